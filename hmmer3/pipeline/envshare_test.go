package pipeline

import (
	"fmt"
	"testing"
)

// work is a stand-in for a prepared target: its envelopes' cells, the
// longest first.
type work struct {
	name  string
	cells []int
}

func (w *work) total() int {
	n := 0
	for _, c := range w.cells {
		n += c
	}
	return n
}

func (w *work) longest() int {
	n := 0
	for _, c := range w.cells {
		n = max(n, c)
	}
	return n
}

// TestDivideWork: the cores take the targets with the longest envelopes
// until they hold the fraction of the cells; the device the rest, in
// their order; targets without envelopes go to neither.
func TestDivideWork(t *testing.T) {
	a := &work{"a", []int{10}}
	b := &work{"b", []int{20, 5}} // longest 20, 25 cells
	c := &work{"c", nil}
	d := &work{"d", []int{40}}
	e := &work{"e", []int{30}}
	ps := []*work{a, b, c, d, e} // 105 cells
	names := func(ws []*work) string {
		s := ""
		for _, w := range ws {
			s += w.name
		}
		return s
	}
	for _, tc := range []struct {
		fraction        float64
		cores, device   string
		coreCells, devC int
	}{
		{0, "", "abde", 0, 105},
		{0.2, "d", "abe", 40, 65},
		{0.5, "de", "ab", 70, 35}, // 40 < 52.5, so e too
		{0.6, "de", "ab", 70, 35},
		{0.7, "deb", "a", 95, 10},
		{1, "deba", "", 105, 0},
	} {
		cores, device, cc, dc := divideWork(ps, tc.fraction, (*work).total, (*work).longest)
		got := fmt.Sprintf("%s/%s %d/%d", names(cores), names(device), cc, dc)
		want := fmt.Sprintf("%s/%s %d/%d", tc.cores, tc.device, tc.coreCells, tc.devC)
		if got != want {
			t.Errorf("fraction %g: cores/device %s, want %s", tc.fraction, got, want)
		}
	}
}
