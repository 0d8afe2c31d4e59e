package msvfilter

import (
	"math/rand"
	"slices"
	"testing"
)

// splitLong keeps every undecided target exactly once, in order, and
// puts in long exactly those longer than LongRows.
func TestSplitLong(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	dsqs := make([][]byte, 500)
	var rest []int
	for i := range dsqs {
		dsqs[i] = make([]byte, rng.Intn(2000))
		if rng.Intn(3) > 0 {
			rest = append(rest, i)
		}
	}
	ms := gpuShape{T: 1}
	for _, rows := range []int{1, 300, 1000, 5000} {
		g := &GPU{LongRows: rows}
		long, short := g.splitLong(ms, 40, dsqs, rest)
		for _, i := range long {
			if len(dsqs[i]) <= rows {
				t.Errorf("rows %d: target %d (L=%d) in long", rows, i, len(dsqs[i]))
			}
		}
		for _, i := range short {
			if len(dsqs[i]) > rows {
				t.Errorf("rows %d: target %d (L=%d) in short", rows, i, len(dsqs[i]))
			}
		}
		both := append(slices.Clone(long), short...)
		slices.Sort(both)
		if !slices.Equal(both, rest) {
			t.Errorf("rows %d: long and short are not the undecided targets", rows)
		}
	}
	if long, short := (&GPU{LongRows: -1}).splitLong(ms, 40, dsqs, rest); len(long) != 0 || !slices.Equal(short, rest) {
		t.Errorf("LongRows -1 split the pass")
	}
	if long, _ := (&GPU{}).splitLong(ms, splitFromM-1, dsqs, rest); len(long) != 0 {
		t.Errorf("M = %d split the pass by default", splitFromM-1)
	}
}
