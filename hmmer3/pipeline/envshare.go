package pipeline

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/hmmer3/domaindef"
)

// EnvelopeShare divides each query's envelopes between an accelerator
// and the cores, which rescore them at the same time with the same bits.
// A GPU rescores many envelopes at twice the 16 cores' rate, but one long
// envelope takes it about three times what it takes a core, and a query's
// call waits on its longest (docs/gpu-forward.md). So the cores take the
// targets with the longest envelopes, up to a fixed fraction of the
// query's DP cells. One share serves a whole run; it is safe for
// concurrent use.
type EnvelopeShare struct {
	cores float64         // the cores' fraction of the cells
	cells [2]atomic.Int64 // cells rescored by the device and by the cores
}

// NewEnvelopeShare returns a share that gives the cores a fraction of
// every query's cells (0: everything to the accelerator).
func NewEnvelopeShare(cores float64) *EnvelopeShare {
	return &EnvelopeShare{cores: min(1, max(0, cores))}
}

// String says how the cells were shared so far, for benchmark reports.
func (s *EnvelopeShare) String() string {
	return fmt.Sprintf("cores' share %.2f; Mcells rescored by the device %.1f, by the cores %.1f",
		s.cores, float64(s.cells[0].Load())/1e6, float64(s.cells[1].Load())/1e6)
}

// divide splits prepared targets between the cores and the accelerator
// (divideWork) and counts the cells each side got.
func (s *EnvelopeShare) divide(ps []*domaindef.Pending) (cores, device []*domaindef.Pending) {
	cores, device, coreCells, deviceCells := divideWork(ps, s.cores, (*domaindef.Pending).Cells, (*domaindef.Pending).LongestCells)
	s.cells[0].Add(int64(deviceCells))
	s.cells[1].Add(int64(coreCells))
	return cores, device
}

// divideWork gives the cores the items with the longest longest(p) first
// until they hold a fraction of the total cells(p), and the device the
// rest, in their order; items of no cells go to neither.
func divideWork[T comparable](ps []T, fraction float64, cells, longest func(T) int) (cores, device []T, coreCells, deviceCells int) {
	total := 0
	for _, p := range ps {
		total += cells(p)
	}
	byLongest := slices.Clone(ps)
	slices.SortStableFunc(byLongest, func(a, b T) int { return cmp.Compare(longest(b), longest(a)) })
	want := fraction * float64(total)
	taken := map[T]bool{}
	for _, p := range byLongest {
		if float64(coreCells) >= want || cells(p) == 0 {
			break
		}
		cores = append(cores, p)
		coreCells += cells(p)
		taken[p] = true
	}
	for _, p := range ps {
		if !taken[p] && cells(p) > 0 {
			device = append(device, p)
		}
	}
	return cores, device, coreCells, total - coreCells
}
