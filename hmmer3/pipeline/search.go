package pipeline

import (
	"io"
	"sort"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/seqio"
)

// BatchResidues is how many residues a worker takes at a time: enough to
// amortise the hand-off, small enough to balance the load.
const BatchResidues = 200_000

type batch struct {
	first int64 // database index of seqs[0]
	seqs  []*seqio.Sequence
	index []int64 // database index of each target, for an IndexedSource
}

type batchResult struct {
	hits []*hits.Hit
	err  error
}

// Search scores every target from src against m. The hits come back in
// database order, before sorting and thresholding; a target enters the
// list when it is reportable with the number of targets read so far, as
// HMMER's serial pipeline decides (this fixes table column widths), so
// the result is the same for every cfg.CPUs. An IndexedSource gives the
// targets' database indices; otherwise they are numbered as read.
func Search(m *Model, src SequenceSource, cfg *Config) ([]*hits.Hit, *hits.Stats, error) {
	ncpu := cfg.CPUs
	if ncpu < 1 {
		ncpu = 1
	}
	arbitrary := uint32(time.Now().UnixNano()) | 1
	work := make(chan batch, 2*ncpu)
	results := make(chan batchResult, 2*ncpu)
	done := make(chan struct{})
	var readErr error

	// Reader: batches targets in database order.
	go func() {
		defer close(work)
		var b batch
		res := 0
		var idx int64
		indexed, _ := src.(IndexedSource)
		for {
			sq, err := src.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				readErr = err
				return
			}
			if b.seqs == nil {
				b.first = idx
			}
			b.seqs = append(b.seqs, sq)
			if indexed != nil {
				b.index = append(b.index, indexed.DatabaseIndex())
			}
			res += sq.L()
			idx++
			if res >= BatchResidues {
				select {
				case work <- b:
				case <-done:
					return
				}
				b, res = batch{}, 0
			}
		}
		if b.seqs != nil {
			select {
			case work <- b:
			case <-done:
			}
		}
	}()

	var wg sync.WaitGroup
	workers := make([]*worker, ncpu)
	for c := range workers {
		w := newWorker(m, cfg, arbitrary)
		workers[c] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				var r batchResult
				r.hits, r.err = w.runBatch(b.seqs, func(n int) int64 {
					if b.index != nil {
						return b.index[n]
					}
					return b.first + int64(n)
				})
				select {
				case results <- r:
				case <-done:
					return
				}
			}
			var r batchResult
			r.hits, r.err = w.flush()
			select {
			case results <- r:
			case <-done:
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var all []*hits.Hit
	var firstErr error
	for r := range results {
		if r.err != nil && firstErr == nil {
			firstErr = r.err
			close(done)
		}
		all = append(all, r.hits...)
	}
	st := &hits.Stats{NModels: 1, NNodes: int64(m.HMM.M)}
	st.F1, st.F2, st.F3 = cfg.filterThresholds()
	for _, w := range workers {
		st.Add(&w.stats)
		w.release()
	}
	if firstErr != nil {
		return nil, nil, firstErr
	}
	if readErr != nil {
		return nil, nil, readErr
	}
	sort.Slice(all, func(i, j int) bool { return all[i].SeqIdx < all[j].SeqIdx })
	return all, st, nil
}
