package search

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func TestGPUOptions(t *testing.T) {
	for _, c := range []struct {
		args  []string
		mode  devices.Mode
		all   bool
		ords  []int
		rest  string
		usage bool
	}{
		{[]string{"m", "d"}, devices.Auto, false, nil, "m d", false},
		{[]string{"--gpu", "m", "d"}, devices.Require, false, nil, "m d", false},
		{[]string{"--gpu", "0,2", "-E", "1", "m", "d"}, devices.Require, false, []int{0, 2}, "-E 1 m d", false},
		{[]string{"-E", "1", "--gpu=all", "m", "d"}, devices.Require, true, nil, "-E 1 m d", false},
		{[]string{"--nogpu", "--cpu", "2", "m", "d"}, devices.Never, false, nil, "--cpu 2 m d", false},
		{[]string{"--cpu-only", "m", "d"}, devices.Never, false, nil, "m d", false},
		{[]string{"-T", "-5", "--gpu", "1", "m", "d"}, devices.Require, false, []int{1}, "-T -5 m d", false},
		{[]string{"--informat", "--gpu", "m", "d"}, devices.Auto, false, nil, "--informat --gpu m d", false}, // a value, not ours
		{[]string{"m", "--gpu", "d"}, devices.Auto, false, nil, "m --gpu d", false},                          // after the files
		{[]string{"--gpu", "--nogpu", "m", "d"}, 0, false, nil, "", true},
		{[]string{"--gpu=x", "m", "d"}, 0, false, nil, "", true},
	} {
		req, rest, err := extractGPUOptions(c.args)
		if c.usage {
			if err == nil {
				t.Errorf("%q: no error", c.args)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if req.Mode != c.mode || req.All != c.all || len(req.Ordinals) != len(c.ords) || strings.Join(rest, " ") != c.rest {
			t.Errorf("%q: mode %v all %v ordinals %v rest %q", c.args, req.Mode, req.All, req.Ordinals, rest)
		}
		for i := range c.ords {
			if req.Ordinals[i] != c.ords[i] {
				t.Errorf("%q: ordinals %v", c.args, req.Ordinals)
			}
		}
	}
}

// TestGPUUnavailable: --gpu on a machine without a usable GPU is an
// error that says why, with no report; --nogpu runs on the CPU.
func TestGPUUnavailable(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer2")
	model, db := filepath.Join(dir, "models", "globin.hmm2"), filepath.Join(dir, "db", "mixed.fa")
	if usable, err := devices.Usable(); err == nil && len(usable) > 0 {
		t.Skip("this machine has a usable GPU")
	}
	out, stderr, status := runSearch([]string{"--gpu", model, db})
	if status != 1 || len(out) != 0 || !strings.Contains(string(stderr), "--gpu: no usable GPU") {
		t.Errorf("--gpu without a GPU: status %d, %d bytes of report, stderr %q", status, len(out), stderr)
	}
	want, _, _ := runSearch([]string{model, db})
	got, _, status := runSearch([]string{"--nogpu", model, db})
	if status != 0 || !bytes.Equal(got, want) {
		t.Errorf("--nogpu: status %d, report differs from the default's", status)
	}
}

// TestGoldenReportsGPU runs every golden case with --gpu (skipped
// without a GPU): scores come from the GPU scorer, and the reports must
// still be hmm2search's, byte for byte.
func TestGoldenReportsGPU(t *testing.T) {
	testutil.GPUContext(t)
	dir := testutil.Testdata(t, "hmmer2")
	cases := readCases(t, dir)
	stage(t, dir)
	n := 0
	for _, c := range cases {
		if c.status != "0" {
			continue
		}
		want := gunzip(t, filepath.Join(dir, "golden", c.name+".out.gz"))
		got, stderr, status := runSearch(append([]string{"--gpu"}, c.args...))
		if status != 0 {
			t.Errorf("%s: exit status %d: %s", c.name, status, stderr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s (--gpu %s): report differs at %s", c.name, strings.Join(c.args, " "), firstDiff(want, got))
		}
		n++
	}
	t.Logf("%d reports identical with --gpu", n)
}
