package hmmsearch

import (
	"sync"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// queryRunner searches the queries of a model file and emits their results
// in file order. One query spreads its targets over all --cpu workers,
// which keeps them busy only when the database has at least one batch of
// targets per worker; against a smaller database (many models, few
// targets) it runs several queries at once instead, each on a share of the
// workers, so the total stays --cpu. The first query's database size
// decides. Results do not depend on the schedule: each query's hits and
// numbers are the same for any number of workers.
type queryRunner struct {
	s        *search
	base     pipeline.Config
	opts     report.Options
	planned  bool
	parallel int           // queries searched at once (a GPU search: on the devices)
	slots    chan struct{} // one per query running (a GPU search: on the devices)
	// running bounds a GPU search's queries, on the devices or past them
	// (runningQueries); nil otherwise.
	running  chan struct{}
	pending  []*pendingQuery
	progress *progress // nil unless stderr is a terminal
}

type pendingQuery struct {
	nquery int
	done   chan struct{}
	r      *queryResult
	err    error
}

func newQueryRunner(s *search, base pipeline.Config, opts report.Options) *queryRunner {
	q := &queryRunner{s: s, base: base, opts: opts, parallel: 1}
	if cli.IsTerminal(s.env.Stderr) {
		q.progress = newProgress(s.env.Stderr)
	}
	if s.gpu != nil && s.seqfile != "-" {
		// A GPU search overlaps queries from the first one on, once the
		// first query's alphabet has loaded the database (add).
		q.planned = true
		q.parallel = s.gpuQueries
		q.slots = make(chan struct{}, q.parallel)
	}
	return q
}

// add searches one query, now or in the background; it emits the results
// of the queries that are finished and first in line.
func (q *queryRunner) add(h *hmm.HMM, nquery int) error {
	if s := q.s; s.gpu != nil && s.gpu.seqs == nil && s.seqfile != "-" {
		if err := s.loadGPU(h.Alph); err != nil {
			return err
		}
		// Dealt queries: each GPU keeps as many in flight as one alone.
		if d := s.gpu.deal; d != nil && !s.gpuQueriesSet && q.parallel > 1 && len(q.pending) == 0 {
			q.parallel *= len(d.running)
			q.slots = make(chan struct{}, q.parallel)
		}
	}
	if q.parallel == 1 {
		r, err := q.s.query(h, nquery, q.base, nil)
		if err != nil {
			return err
		}
		if !q.planned {
			q.plan(r)
		}
		return q.emit(r, nquery)
	}
	p := &pendingQuery{nquery: nquery, done: make(chan struct{})}
	if q.s.gpu != nil && q.running == nil {
		q.running = make(chan struct{}, runningQueries(q.parallel, len(q.s.gpu.seqs)))
	}
	if q.running != nil {
		q.running <- struct{}{}
	}
	q.slots <- struct{}{}
	// A GPU search's query gives its place back after its last device
	// call, and the next query starts while it defines its domains.
	var once sync.Once
	leaveDevices := func() { once.Do(func() { <-q.slots }) }
	go func() {
		defer close(p.done)
		defer func() {
			leaveDevices()
			if q.running != nil {
				<-q.running
			}
		}()
		p.r, p.err = q.s.query(h, nquery, q.base, leaveDevices)
	}()
	q.pending = append(q.pending, p)
	return q.drain(false)
}

// gpuQueriesAtOnce is how many queries a GPU search keeps in flight, so
// that the device filters one query while the workers run Forward and
// domain definition for the ones before it (a worker's tasks use it too).
const gpuQueriesAtOnce = 6

// gpuSearchQueriesAtOnce is hmmsearch --gpu's number: a query's filter
// stages are a chain of short launches, each followed by a host pass, so
// one query keeps neither the device nor the cores busy, and the run's
// pace is the queries in flight over one query's latency. Measured on an
// H100 host with 16 cores (docs/BENCHMARKS.md, 1,000 models): with 6 in
// flight the cores were 10.7 of 16 busy and the GPU 40%.
// With queries dealt to several GPUs (gpudeal.go) it is per GPU.
const gpuSearchQueriesAtOnce = 12

// gpuDomainsQueriesAtOnce replaces it when the envelopes are rescored on
// the GPU ($HMMGO_GPU_DOMAINS=gpu, or a share): the workers then wait on
// the device more than they compute, and the device takes many queries'
// envelopes at once. The 24 CUDAMPF models on an H200 with 16 cores: 2.8-3.6 s
// with 24 in flight, 4.2-5.0 s with 12, 3.7-4.0 s with 36
// (docs/BENCHMARKS.md).
const gpuDomainsQueriesAtOnce = 24

// runningQueries is how many queries a GPU search with places on the
// devices runs at once, on the devices or past them, over a database of
// targets: eight times the places, as long as their per-target arrays
// (about 40 bytes a target a query: the staged search's, the filters'
// scores) stay within runningBytes. A query past the devices waits for
// its domains; with large models first in the file (the 1,000-model
// benchmark) the small ones behind them finish theirs first (pipeline's
// slotQueue).
func runningQueries(places, targets int) int {
	const perTarget = 40
	byMemory := runningBytes / max(1, perTarget*targets)
	return max(places, min(8*places, byMemory))
}

// runningBytes is the host memory the per-target arrays of a GPU search's
// running queries may take.
const runningBytes = 4 << 30

// plan chooses the number of queries at once from the first query's
// database: as many as leave each at least one batch per worker. A GPU
// search overlaps queries whatever the database size.
func (q *queryRunner) plan(first *queryResult) {
	q.planned = true
	ncpu := q.base.CPUs
	if q.s.gpu != nil || q.s.seqfile == "-" || ncpu < 2 {
		return
	}
	batches := (first.Stats.NRes + pipeline.BatchResidues - 1) / pipeline.BatchResidues
	perQuery := int(min(int64(ncpu), max(1, batches)))
	if k := ncpu / perQuery; k > 1 {
		q.parallel = k
		q.base.CPUs = perQuery
		q.slots = make(chan struct{}, k)
	}
}

// Results go out in file order, so the queries that finish behind a
// slow one are held until it is done. The bound on them was two per
// query in flight (24 for a GPU search): behind a model that takes
// seconds (a long CUDAMPF model's Forward and domain definition), the
// run then stops starting queries once 23 small ones have finished. In
// the 1,000-model run that cost little (H100, docs/BENCHMARKS.md: 11.8
// queries in flight on average with the old bound, 11.9 with this one),
// but held results cost only their hits, so the bound is now in queries
// and in hits.
const (
	heldQueriesAtMost = 256
	heldHitsAtMost    = 100_000
)

// mustWaitForHead reports whether drain has to wait for the oldest query
// before more may start: too many queries pending, or too many hits held
// in the finished ones behind it.
func (q *queryRunner) mustWaitForHead() bool {
	if len(q.pending) >= max(2*q.parallel, heldQueriesAtMost) {
		return true
	}
	held := 0
	for _, p := range q.pending[1:] {
		select {
		case <-p.done:
			if p.r != nil {
				held += len(p.r.Hits)
			}
		default:
		}
	}
	return held >= heldHitsAtMost
}

// drain emits finished results in query order; with all, it waits for
// every query. It also waits when too many results are held back behind
// a slow one (mustWaitForHead).
func (q *queryRunner) drain(all bool) error {
	for len(q.pending) > 0 {
		p := q.pending[0]
		if all || q.mustWaitForHead() {
			<-p.done
		} else {
			select {
			case <-p.done:
			default:
				return nil
			}
		}
		q.pending = q.pending[1:]
		if p.err != nil {
			return p.err
		}
		if err := q.emit(p.r, p.nquery); err != nil {
			return err
		}
	}
	return nil
}

// flush emits every remaining result.
func (q *queryRunner) flush() error { return q.drain(true) }

// wait lets queries still running finish (after an error), so that none
// outlives the command, and ends the progress line.
func (q *queryRunner) wait() {
	for _, p := range q.pending {
		<-p.done
	}
	if q.progress != nil {
		q.progress.end()
	}
}

func (q *queryRunner) emit(r *queryResult, nquery int) error {
	if q.progress != nil {
		q.progress.done(r.M, r.Stats.NRes)
	}
	if q.s.shard != nil {
		q.s.shard.results = append(q.s.shard.results, r)
		return nil
	}
	return q.s.printQuery(r, nquery, q.opts)
}
