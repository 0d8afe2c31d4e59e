package core

import (
	"fmt"
	"testing"
)

// branchesOf builds one branch from a string of DNA symbols; lower case
// marks CGAP columns.
func branchesOf(cols string) *Branches {
	br := &Branches{N: 1, Len: len(cols), model: DNA, dna: make([]uint8, len(cols))}
	for i := 0; i < len(cols); i++ {
		c := cols[i]
		cg := c >= 'a' && c <= 'z'
		s, _ := DNA.RefState(c)
		br.set(0, i, s, cg)
	}
	return br
}

func readOf(s string) []uint8 {
	q := make([]uint8, len(s))
	for i := range s {
		q[i] = DNA.CState(s[i])
	}
	return q
}

func TestPaperScoring(t *testing.T) {
	for _, c := range []struct {
		ref, read string
		score     int
		row       string // the read's row without reference gaps
	}{
		{"ACGTACGT", "GTAC", 0, "--GTAC--"},
		{"ACGTACGT", "GTTC", 3, "--GTTC--"}, // one mismatch
		// a 4-column deletion: 4 for the first column, 1 for each other
		{"ACGTTTTTACGT", "ACGTACGT", 7, "ACG----TACGT"},
		{"ACGTACGT", "GTAAAC", 6, "--GTAC--"}, // two insertions at 3 each
	} {
		br := branchesOf(c.ref)
		var a aligner
		sc, tr := a.alignPaper(br, 0, DNA, readOf(c.read), nil)
		if sc != c.score {
			t.Errorf("%s vs %s: score %d, want %d", c.read, c.ref, sc, c.score)
		}
		if row := string(readRowNoRefGaps(tr, DNA, readOf(c.read))); row != c.row {
			t.Errorf("%s vs %s: row %s, want %s", c.read, c.ref, row, c.row)
		}
	}
	// A CGAP run makes the deletion free but matching inside it costs 3.
	br := branchesOf("ACGttttACGT")
	var a aligner
	if sc, _ := a.alignPaper(br, 0, DNA, readOf("ACGACGT"), nil); sc != 0 {
		t.Errorf("deletion over CGAP columns: score %d, want 0", sc)
	}
	if sc, _ := a.alignPaper(br, 0, DNA, readOf("ACGTTTTACGT"), nil); sc != 12 {
		t.Errorf("matches on CGAP columns: score %d, want 12", sc)
	}
}

// TestPaperKernelAgrees checks the paper scheme's scoring phase against
// its traceback on random data.
func TestPaperKernelAgrees(t *testing.T) {
	job := syntheticJob(DNA, 20, 60, 8, 30, 9)
	job.Scoring = ScoringPaper
	res := scoreWith(t, job, false)
	var a aligner
	for qi, q := range job.Queries {
		sc, tr := a.alignPaper(job.Branches, int(res.Branch[qi]), DNA, q.CStates, nil)
		if int32(-sc) != res.Score[qi] {
			t.Fatalf("read %d: scoring %d, traceback %d", qi, -res.Score[qi], sc)
		}
		if got := len(readRowNoRefGaps(tr, DNA, q.CStates)); got != job.Branches.Len {
			t.Fatalf("read %d: row of %d columns", qi, got)
		}
	}
}

func ExampleParams_Check() {
	fmt.Println(DefaultParams.Check())
	fmt.Println(Params{GapOpen: -3, GapExtend: -1, Match: 3, MatchCGap: -3}.Check())
	// Output:
	// <nil>
	// scores -3:-1:3:-3: PaPaRa needs match + match_cgap < 0
}
