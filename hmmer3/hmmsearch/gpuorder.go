package hmmsearch

import (
	"slices"
	"sync"

	"github.com/hmmgo/hmmgo/seqio"
)

// A query whose device holds every target (one GPU, or queries dealt to
// several) runs the staged search in that device's target order, longest
// first, with the database numbers as the search's indices: the scores
// and selections then pass between the pipeline and the device as they
// are. In database order every filter stage of every query copied its
// scores through the device's permutation, and read the wanted flags
// through it: at 485,000 targets that was three passes of random
// accesses a query, 8.5 CPU s of a 1,000-model run (docs/BENCHMARKS.md,
// 2026-11-29). The hits are the same: the pipeline numbers them by the
// indices and returns them in database order. A query split over several
// devices keeps the database order.

// partTargets is what a device's part keeps for queries in its order.
type partTargets struct {
	seqsOnce    sync.Once
	seqs        []*seqio.Sequence // the part's targets in its order
	numbersOnce sync.Once
	numbers     []int64 // their database numbers, as the search gives them
}

// partSeqs are p's targets in p's order: the cores' accelerator over them
// scores as the device does, and a query in p's order searches them.
func (g *gpuSearch) partSeqs(p *gpuPart) []*seqio.Sequence {
	p.seqsOnce.Do(func() {
		p.seqs = make([]*seqio.Sequence, len(p.index))
		for k, db := range p.index {
			p.seqs[k] = g.seqs[db]
		}
	})
	return p.seqs
}

// partNumbers are the database numbers of p's targets in p's order:
// indices[db] for target db when the search gives indices (a shard of a
// database), db itself otherwise. A run's queries all give the same
// indices, so they are composed once.
func (g *gpuSearch) partNumbers(p *gpuPart, indices []int64) []int64 {
	p.numbersOnce.Do(func() {
		p.numbers = make([]int64, len(p.index))
		for k, db := range p.index {
			if indices != nil {
				p.numbers[k] = indices[db]
			} else {
				p.numbers[k] = int64(db)
			}
		}
	})
	return p.numbers
}

// ownOrder reports whether a query on the parts use runs in the order of
// its one device: that device holds every target.
func (g *gpuSearch) ownOrder(use []*gpuPart) bool {
	return len(use) == 1 && len(use[0].index) == len(g.seqs)
}

// anyWanted reports whether want selects a target. In a device's own
// order want is the device's selection as it is: the staged search never
// wants an empty target (it fails the MSV filter unscored), which the
// kernels skip and selectPart leaves out.
func anyWanted(want []bool) bool { return slices.Contains(want, true) }
