package cmd

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/papara/core"
)

// runPapara runs the subcommand in-process.
func runPapara(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// readMaybeGz reads a file, gunzipping *.gz.
func readMaybeGz(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// firstDiff describes where two outputs first differ.
func firstDiff(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if bytes.Equal(gl[i], wl[i]) {
			continue
		}
		g, w := string(gl[i]), string(wl[i])
		k := 0
		for k < len(g) && k < len(w) && g[k] == w[k] {
			k++
		}
		lo := max(0, k-20)
		return fmt.Sprintf("line %d col %d: got %q, want %q", i+1, k+1, g[lo:min(len(g), k+20)], w[lo:min(len(w), k+20)])
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}

// slowOK skips a test whose scoring phase would take minutes on the
// portable kernel (no AVX2), unless HMMGO_PAPARA_SLOW=1. The portable
// kernel itself is checked against the AVX2 ones and the scalar aligner in
// papara/core on every machine.
func slowOK(t *testing.T) {
	t.Helper()
	if !core.FastKernel() && os.Getenv("HMMGO_PAPARA_SLOW") == "" {
		t.Skip("no AVX2 kernel on this machine: skipped (HMMGO_PAPARA_SLOW=1 runs it on the portable kernel)")
	}
}

// golden is one fixture: inputs and PaPaRa 2.5's outputs with and without -r.
type golden struct {
	big                  bool // billions of DP cells
	name                 string
	tree, aln, reads     string
	extra                []string
	want, wantR          string
	protein              bool
	liveTree, liveReason string // tree for the live PaPaRa run (if different)
}

func fixtures(t *testing.T) []golden {
	td := func(p string) string { return testutil.Testdata(t, filepath.Join("papara", p)) }
	return []golden{
		{name: "epa_small", tree: td("epa/ref.tre"), aln: td("epa/aln.phy"), reads: td("epa/query.fasta"),
			want: td("epa/papara_alignment.epa_small"), wantR: td("epa/papara_alignment.epa_small_r")},
		{big: true, name: "pyrg", tree: td("pyrg/sate.tre"), aln: td("pyrg/sate.phy.gz"), reads: td("pyrg/pyrg.even.fas"),
			want: td("pyrg/papara_alignment.pyrg.gz"), wantR: td("pyrg/papara_alignment.pyrg_r.gz")},
		{big: true, name: "q2tiny", tree: td("q2tiny/reference_phylogeny_tiny.unrooted.nwk"), aln: td("q2tiny/ref_tiny.phy.gz"),
			reads: td("q2tiny/input_fragments.fasta"),
			want:  td("q2tiny/papara_alignment.q2tiny.gz"), wantR: td("q2tiny/papara_alignment.q2tiny_r.gz")},
		{big: true, name: "q2tiny_rooted", tree: td("q2tiny/reference_phylogeny_tiny.nwk.gz"), aln: td("q2tiny/ref_tiny.phy.gz"),
			reads: td("q2tiny/input_fragments.fasta"),
			want:  td("q2tiny/papara_alignment.q2tiny.gz"), wantR: td("q2tiny/papara_alignment.q2tiny_r.gz"),
			liveReason: "PaPaRa aborts on this rooted tree"},
		{name: "fn3", tree: td("fn3/fn3.tre"), aln: td("fn3/fn3.phy"), reads: td("fn3/fn3_reads.fa"), extra: []string{"-a"},
			want: td("fn3/papara_alignment.fn3.gz"), wantR: td("fn3/papara_alignment.fn3_r.gz"), protein: true},
		{name: "quirks", tree: td("quirks/quirks.tre"), aln: td("quirks/quirks.phy"), reads: td("quirks/quirks_reads.fa"),
			want: td("quirks/papara_alignment.quirks"), wantR: td("quirks/papara_alignment.quirks_r")},
	}
}

// TestGolden compares hmmgo papara with PaPaRa 2.5's alignments.
func TestGolden(t *testing.T) {
	fs := fixtures(t)
	dir := t.TempDir()
	for _, g := range fs {
		for _, r := range []bool{false, true} {
			want := g.want
			args := []string{"-t", g.tree, "-s", g.aln, "-q", g.reads, "-j", "2", "-n", g.name, "-f"}
			args = append(args, g.extra...)
			label := g.name
			if r {
				want = g.wantR
				args = append(args, "-r")
				label += "_r"
			}
			out := filepath.Join(dir, "aln."+label)
			place := filepath.Join(dir, "place."+label)
			args = append(args, "-o", out, "--placement", place)
			t.Run(label, func(t *testing.T) {
				if g.big {
					slowOK(t)
				}
				t.Chdir(dir)
				code, _, stderr := runPapara(args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				got := readMaybeGz(t, out)
				exp := readMaybeGz(t, want)
				if !bytes.Equal(got, exp) {
					t.Fatalf("alignment differs from PaPaRa 2.5 (%s): %s", want, firstDiff(got, exp))
				}
				pl := readMaybeGz(t, place)
				if n := bytes.Count(pl, []byte("\n")); n < 2 {
					t.Fatalf("placement table has %d lines", n)
				}
			})
		}
	}
}

// TestLivePaPaRa runs a papara binary from PATH (PaPaRa 2.5 built from its
// public source) on the fixtures and compares both outputs.
func TestLivePaPaRa(t *testing.T) {
	fs := fixtures(t)
	papara := testutil.Tool(t, "papara")
	dir := t.TempDir()
	for _, g := range fs {
		if g.liveReason != "" {
			continue
		}
		for _, r := range []string{"", "-r"} {
			t.Run(g.name+r, func(t *testing.T) {
				if g.big {
					slowOK(t)
				}
				t.Chdir(dir)
				// PaPaRa reads no gzip: give it a plain copy.
				for _, p := range []*string{&g.tree, &g.aln, &g.reads} {
					if strings.HasSuffix(*p, ".gz") {
						plain := filepath.Join(dir, strings.TrimSuffix(filepath.Base(*p), ".gz"))
						if err := os.WriteFile(plain, readMaybeGz(t, *p), 0o644); err != nil {
							t.Fatal(err)
						}
						*p = plain
					}
				}
				args := []string{"-t", g.tree, "-s", g.aln, "-q", g.reads, "-n", "live" + g.name + r}
				args = append(args, g.extra...)
				if r != "" {
					args = append(args, r)
				}
				for _, p := range []string{"papara_alignment.", "papara_log.", "papara_quality."} {
					os.Remove(p + "live" + g.name + r)
				}
				cmd := exec.Command(papara, args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("papara: %v\n%s", err, out)
				}
				want := readMaybeGz(t, "papara_alignment.live"+g.name+r)
				mine := filepath.Join(dir, "mine."+g.name+r)
				if code, _, stderr := runPapara(append(args, "-f", "-o", mine, "--placement", mine+".pl")...); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if got := readMaybeGz(t, mine); !bytes.Equal(got, want) {
					t.Fatalf("differs from live PaPaRa: %s", firstDiff(got, want))
				}
			})
		}
	}
}
