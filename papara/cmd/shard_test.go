package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

// TestShardsMergeToUnsharded: the shards of a run, merged, write the
// alignment and placement table of one unsharded run byte for byte, with
// and without reference gaps (the inserted columns depend on all reads).
func TestShardsMergeToUnsharded(t *testing.T) {
	for _, g := range fixtures(t) {
		if g.big {
			continue
		}
		for _, r := range []bool{false, true} {
			label := g.name
			args := []string{"-t", g.tree, "-s", g.aln, "-q", g.reads, "-j", "2", "-n", g.name, "-f"}
			args = append(args, g.extra...)
			if r {
				args = append(args, "-r")
				label += "_r"
			}
			t.Run(label, func(t *testing.T) {
				dir := t.TempDir()
				t.Chdir(dir)
				if code, _, stderr := runPapara(args...); code != 0 {
					t.Fatalf("unsharded: exit %d: %s", code, stderr)
				}
				want := map[string][]byte{}
				for _, f := range []string{"papara_alignment.", "papara_placement."} {
					want[f] = readMaybeGz(t, f+g.name)
					os.Remove(f + g.name)
				}
				os.Remove("papara_log." + g.name)
				var files []string
				for i := 1; i <= 3; i++ {
					p := filepath.Join(dir, fmt.Sprintf("shard%d", i))
					code, _, stderr := runPapara(append([]string{"--shard", fmt.Sprintf("%d/3", i), "--shard-out", p}, args...)...)
					if code != 0 {
						t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
					}
					files = append(files, p)
				}
				if _, err := os.Stat("papara_alignment." + g.name); err == nil {
					t.Fatal("a shard wrote the alignment")
				}
				set, err := shard.ReadSet(files)
				if err != nil {
					t.Fatal(err)
				}
				var stderr bytes.Buffer
				if err := Merge(cli.Env{Stdout: &stderr, Stderr: &stderr}, set); err != nil {
					t.Fatalf("%v: %s", err, stderr.String())
				}
				for f, w := range want {
					if got := readMaybeGz(t, f+g.name); !bytes.Equal(got, w) {
						t.Errorf("%s differs from the unsharded run: %s", f, firstDiff(got, w))
					}
				}
				if log := readMaybeGz(t, "papara_log."+g.name); !strings.Contains(string(log), "merged from 3 shards") {
					t.Errorf("log does not say it was merged:\n%s", log)
				}
			})
		}
	}
}

// TestMergeNeedsSameInputs: a merge re-reads the inputs and refuses them
// when they changed since the shards ran.
func TestMergeNeedsSameInputs(t *testing.T) {
	g := fixtures(t)[0]
	dir := t.TempDir()
	t.Chdir(dir)
	reads := filepath.Join(dir, "reads.fa")
	data, _ := os.ReadFile(g.reads)
	os.WriteFile(reads, data, 0o644)
	var files []string
	for i := 1; i <= 2; i++ {
		p := fmt.Sprintf("s%d", i)
		args := append([]string{"--shard", fmt.Sprintf("%d/2", i), "--shard-out", p, "-t", g.tree, "-s", g.aln, "-q", reads, "-j", "1"}, g.extra...)
		if code, _, stderr := runPapara(args...); code != 0 {
			t.Fatal(stderr)
		}
		files = append(files, p)
	}
	os.WriteFile(reads, append(data, '\n'), 0o644)
	set, err := shard.ReadSet(files)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = Merge(cli.Env{Stdout: &out, Stderr: &out}, set)
	if err == nil || !strings.Contains(out.String(), "inputs changed") {
		t.Fatalf("merge over a changed input: %v, %q", err, out.String())
	}
	if _, err := os.Stat("papara_alignment.default"); err == nil {
		t.Fatal("a refused merge wrote the alignment")
	}
}
