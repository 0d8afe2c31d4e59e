package core

import (
	"fmt"
	"testing"
)

// backward turns a forward list of operations into a trace (end first).
func backward(ops ...uint8) []uint8 {
	t := append([]uint8(nil), ops...)
	reverse(t)
	return t
}

func TestRefGapsAndRows(t *testing.T) {
	const M, D, I = opMatch, opDelete, opInsert
	// read 1: two residues before the first column, match, deletion, match
	// read 2: match, one insertion, match, match, one residue after the end
	t1 := backward(I, I, M, D, M)
	t2 := backward(M, I, M, M, I)
	g := newRefGaps(3)
	g.add(t1)
	g.add(t2)
	if fmt.Sprint([]int(g)) != "[2 1 0 1]" || g.width() != 7 {
		t.Fatalf("gaps %v width %d", g, g.width())
	}
	if got := string(g.expandRef([]byte("acg"))); got != "--a-cg-" {
		t.Errorf("reference row %q", got)
	}
	// Inserted residues are packed left in their gap region, except before
	// the first column, where PaPaRa packs them right.
	if got := string(g.readRow(t1, DNA, readOf("ACGT"))); got != "ACG--T-" {
		t.Errorf("read 1 row %q", got)
	}
	if got := string(g.readRow(t2, DNA, readOf("ACGTA"))); got != "--ACGTA" {
		t.Errorf("read 2 row %q", got)
	}
	one := newRefGaps(3)
	one.add(backward(I, M, M, M))
	one.add(backward(I, I, M, M, M))
	if got := string(one.readRow(backward(I, M, M, M), DNA, readOf("ACGT"))); got != "-ACGT" {
		t.Errorf("leading insert row %q, want -ACGT", got)
	}
	if got := string(readRowNoRefGaps(t2, DNA, readOf("ACGTA"))); got != "AGT" {
		t.Errorf("-r row %q", got)
	}
}

func TestModels(t *testing.T) {
	for _, c := range []struct {
		m     *Model
		in    byte
		state uint32
		ok    bool
	}{
		{DNA, 'A', 1, true}, {DNA, 'c', 2, true}, {DNA, 'U', 8, true}, {DNA, 'N', 15, true},
		{DNA, '?', 15, true}, {DNA, 'R', 5, true}, {DNA, 'X', 0, false},
		{Protein, 'A', 1, true}, {Protein, 'b', 12, true}, {Protein, '-', 1<<20 - 1, true}, {Protein, 'X', 0, false},
	} {
		s, ok := c.m.RefState(c.in)
		if s != c.state || ok != c.ok {
			t.Errorf("%s %q: state %d %v, want %d %v", c.m.Name, c.in, s, ok, c.state, c.ok)
		}
	}
	// Reads keep upper-case symbols only, as PaPaRa does.
	if DNA.Known('a') || DNA.Known('N') || !DNA.Known('M') || !DNA.Valid('n') || DNA.Valid('1') {
		t.Error("DNA read alphabet")
	}
	if Protein.IsSingle(Protein.States[20]) || !Protein.IsSingle(Protein.States[3]) {
		t.Error("protein: B is ambiguous, D is single")
	}
	if DNA.StateChar(5) != 'R' || Protein.StateChar(2) != 'R' || Protein.StateChar(3) != 'X' {
		t.Error("StateChar")
	}
}
