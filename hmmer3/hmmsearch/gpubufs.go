package hmmsearch

import (
	"sync"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
)

// A many-model search asks the filters for a score per database target
// three times a query: at 485,000 targets, 1,000 queries made about 10 GB
// of short-lived score and selection slices, and clearing them (fresh
// pages after every collection) cost more CPU than the scores themselves.
// The slices are kept for the next query instead: the per-device ones
// here, the database-order scores through pipeline.ScoreRecycler.

// bufPool keeps slices of one element type, reused without clearing:
// every user writes each element it later reads.
type bufPool[T any] struct{ p sync.Pool }

func (b *bufPool[T]) get(n int) []T {
	if s, ok := b.p.Get().(*[]T); ok && cap(*s) >= n {
		return (*s)[:n]
	}
	return make([]T, n)
}

func (b *bufPool[T]) put(s []T) { b.p.Put(&s) }

var (
	partScores bufPool[float32] // a device's scores, in its own target order
	partSel    bufPool[bool]    // a device's selection, in its own target order
	dbScores   bufPool[float32] // scores in database order, handed to the pipeline
)

// Recycle implements pipeline.ScoreRecycler.
func (g *gpuSearch) Recycle(scores []float32) {
	if len(scores) == len(g.seqs) {
		dbScores.put(scores)
	}
}

// selectPart sets sel[i] for p's i-th target: want (database order) and
// not empty (the kernels skip empty targets). It reports whether any is
// selected.
func (p *gpuPart) selectPart(want []bool, sel []bool) bool {
	var any atomic.Bool
	gpudb.ForChunks(len(p.index), func(lo, hi int) {
		found := false
		for i := lo; i < hi; i++ {
			sel[i] = want[p.index[i]] && p.lens[i] > 0
			found = found || sel[i]
		}
		if found {
			any.Store(true)
		}
	})
	return any.Load()
}

// scatter copies p's scores into database order: every target's, or
// with sel only the selected ones.
func (p *gpuPart) scatter(out []float32, sel []bool, scores []float32) {
	gpudb.ForChunks(len(p.index), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if sel == nil || sel[i] {
				scores[p.index[i]] = out[i]
			}
		}
	})
}
