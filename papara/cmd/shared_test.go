package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/core"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// The two large sets of ../shared/data (rpsS: 2,101 reads x 2,551
// branches; gut16S: 500 reads up to 521 bp x 1,013 branches) take about
// 40 CPU seconds together (25 s on two idle cores): TestSharedFull aligns
// them whole and compares both outputs (with and without -r) with
// PaPaRa's. With -short, TestSharedSubsets instead checks a tenth of their
// reads with -r, where every read's row depends on that read alone, so the
// rows must equal PaPaRa's rows for those reads.

type sharedSet struct {
	name, tree, aln, reads string
	want, wantR            string // PaPaRa outputs without and with -r
}

func sharedSets(t *testing.T) []sharedSet {
	sd := func(p string) string { return testutil.SharedData(t, p) }
	return []sharedSet{
		{"rpsS", sd("sepp/rpsS/sate.tre"), sd("sepp/rpsS/sate.phy.gz"), sd("sepp/rpsS/rpsS.even.fas.gz"),
			sd("papara/expected/papara_alignment.rpsS.gz"), sd("papara/expected/papara_alignment.rpsS_r.gz")},
		{"gut16S", sd("sepp/q2-fragment-insertion/reference_phylogeny_tiny.unrooted.nwk"),
			sd("sepp/q2-fragment-insertion/ref_tiny.phy.gz"), sd("sepp/16S_bacteria/human_gut_16S.fas.gz"),
			sd("papara/expected/papara_alignment.gut16S_refgaps.gz"), sd("papara/expected/papara_alignment.gut16S.gz")},
	}
}

// phylipRows maps the names of a PHYLIP alignment to their sequences and
// returns the names in order.
func phylipRows(t *testing.T, data []byte) ([]string, map[string]string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var names []string
	rows := map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 2 {
			t.Fatalf("bad PHYLIP line %q", l)
		}
		names = append(names, f[0])
		rows[f[0]] = f[1]
	}
	return names, rows
}

func TestSharedSubsets(t *testing.T) {
	if !testing.Short() {
		t.Skip("TestSharedFull covers these reads (go test -short runs this quicker subset instead)")
	}
	slowOK(t)
	for _, s := range sharedSets(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			recs, err := alignio.ReadFasta(s.reads)
			if err != nil {
				t.Fatal(err)
			}
			var fa bytes.Buffer
			var picked []string
			for i := 0; i < len(recs); i += 10 {
				fmt.Fprintf(&fa, ">%s\n%s\n", recs[i].Name, recs[i].Seq)
				picked = append(picked, recs[i].Name)
			}
			reads := filepath.Join(dir, "reads.fa")
			if err := os.WriteFile(reads, fa.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.phy")
			if code, _, stderr := runPapara("-t", s.tree, "-s", s.aln, "-q", reads, "-r", "-j", "2", "-o", out, "--placement", out+".pl"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			_, want := phylipRows(t, readMaybeGz(t, s.wantR))
			names, got := phylipRows(t, readMaybeGz(t, out))
			if len(names) != len(want)-len(recs)+len(picked) {
				t.Fatalf("%d rows, want %d", len(names), len(want)-len(recs)+len(picked))
			}
			for _, n := range names {
				if got[n] != want[n] {
					t.Errorf("row %s differs from PaPaRa 2.5", n)
				}
			}
		})
	}
}

func TestSharedFull(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: TestSharedSubsets checks a tenth of the reads instead")
	}
	slowOK(t)
	for _, s := range sharedSets(t) {
		t.Run(s.name, func(t *testing.T) {
			tree, err := newick.ReadFile(s.tree)
			if err != nil {
				t.Fatal(err)
			}
			aln, err := alignio.ReadAlignment(s.aln)
			if err != nil {
				t.Fatal(err)
			}
			reads, err := alignio.ReadFasta(s.reads)
			if err != nil {
				t.Fatal(err)
			}
			prep, err := core.Prepare(&core.Input{Model: core.DNA, Tree: tree, Alignment: aln, Reads: reads})
			if err != nil {
				t.Fatal(err)
			}
			res, err := core.Run(prep, core.Options{Params: core.DefaultParams})
			if err != nil {
				t.Fatal(err)
			}
			for _, refGaps := range []bool{true, false} {
				want := s.want
				if !refGaps {
					want = s.wantR
				}
				names, rows := res.Render(refGaps)
				var buf bytes.Buffer
				if err := alignio.WritePhylip(&buf, names, rows); err != nil {
					t.Fatal(err)
				}
				if exp := readMaybeGz(t, want); !bytes.Equal(buf.Bytes(), exp) {
					t.Errorf("%s: differs from PaPaRa 2.5: %s", want, firstDiff(buf.Bytes(), exp))
				}
			}
		})
	}
}
