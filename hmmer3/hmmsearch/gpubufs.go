package hmmsearch

import (
	"sync/atomic"

	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
)

// A many-model search asks the filters for a score per database target
// three times a query: at 485,000 targets, 1,000 queries made about 10 GB
// of short-lived score and selection slices, and clearing them (fresh
// pages after every collection) cost more CPU than the scores themselves.
// The slices are kept for the next query instead: the per-device ones
// here, the database-order scores through pipeline.ScoreRecycler.

// Kept without clearing: every user writes each element it later reads.
var (
	partScores gpudb.Pool[float32] // a device's scores, in its own target order
	partSel    gpudb.Pool[bool]    // a device's selection, in its own target order
	dbScores   gpudb.Pool[float32] // scores in database order, handed to the pipeline
)

// Recycle implements pipeline.ScoreRecycler.
func (g *gpuSearch) Recycle(scores []float32) {
	if len(scores) == len(g.seqs) {
		dbScores.Put(scores)
	}
}

// The passes below run in database order over the wanted flags, with
// pos taking each target to its place on the device: a query wants a
// few percent of the targets, and walking the device's order instead
// (want[index[i]] for every i) read the flags at random, 485,000 times
// per filter and query: selection and scatter were 13 CPU s of a
// 1,000-model run's profile (docs/BENCHMARKS.md, m1000), and one
// query's three passes took 5.9-8.5 ms on two cores of the dev machine,
// 2.8-3.1 ms this way.

// setPositions fills p.pos for a database of n targets from p.index.
func (p *gpuPart) setPositions(n int) {
	p.pos = make([]int32, n)
	for i := range p.pos {
		p.pos[i] = -1
	}
	for i, db := range p.index {
		p.pos[db] = int32(i)
	}
}

// selectPart sets sel[i] for p's i-th target: want (database order) and
// not empty (the kernels skip empty targets). It reports whether any is
// selected.
func (p *gpuPart) selectPart(want []bool, sel []bool) bool {
	clear(sel)
	var any atomic.Bool
	gpudb.ForChunks(len(want), func(lo, hi int) {
		found := false
		for db, w := range want[lo:hi] {
			if !w {
				continue
			}
			if k := p.pos[lo+db]; k >= 0 && p.lens[k] > 0 {
				sel[k] = true
				found = true
			}
		}
		if found {
			any.Store(true)
		}
	})
	return any.Load()
}

// scatter copies p's scores into database order: every target's, or
// with want only those selectPart selects (wanted and not empty).
func (p *gpuPart) scatter(out []float32, want []bool, scores []float32) {
	gpudb.ForChunks(len(p.pos), func(lo, hi int) {
		if want == nil {
			for db := lo; db < hi; db++ {
				if k := p.pos[db]; k >= 0 {
					scores[db] = out[k]
				}
			}
			return
		}
		for db := lo; db < hi; db++ {
			if want[db] {
				if k := p.pos[db]; k >= 0 && p.lens[k] > 0 {
					scores[db] = out[k]
				}
			}
		}
	})
}
