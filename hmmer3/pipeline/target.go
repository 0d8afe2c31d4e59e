package pipeline

import (
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/domaindef"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/msvfilter"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/hmmer3/vitfilter"
	"github.com/hmmgo/hmmgo/seqio"
)

// worker is one goroutine's copy of everything the pipeline mutates per
// target: the length-configured profile and null model, DP matrices and
// the domain definition workspace.
type worker struct {
	m          *Model
	cfg        *Config
	f1, f2, f3 float64
	bias       bool
	om         oprofile.Profile
	others     [3]oprofile.Profile // the other targets' length configurations in a kernel group (groupProfile)
	pair       *fwdback.PairMatrix
	bg         profile.Background
	oxf, oxb   *fwdback.Matrix
	def        *domaindef.Definer
	stats      hits.Stats

	// One batch's filter survivors, their Viterbi filter jobs and scores,
	// and the survivors of the Viterbi filter with their Forward scores.
	cands   []candidate
	jobs    []vitfilter.Job
	vfsc    []float32
	surv    []*candidate
	order   []int // w.pending's indices in length order
	fwdsc   []float32
	parsers []keptParsers // flush's Forward survivors' parsers, by pending index
	// The staged search's Forward survivors that this worker scored, with
	// their parsers.
	kept []keptRows
	// Viterbi survivors of this and earlier batches waiting for the
	// Forward filter, which scores them in groups of neighbours in length
	// (forwardGroup): a batch alone has about one survivor.
	pending []candidate
	// defineGroup's targets between domaindef.Prepare and Finish.
	defs     []defTarget
	prepared []*domaindef.Pending

	scratch *scratch // where oxf, oxb, pair and def came from; nil until ensureScratch
	seed    uint32   // domain definition's seed when cfg.Seed is 0
}

// pendingForward is how many Viterbi survivors a worker gathers before it
// runs the Forward filter and the later stages on them.
const pendingForward = 32

// scratch is a worker's large workspace: the DP matrices and domain
// definition's buffers, which grow to the longest target and envelope
// the worker meets. The workers of later queries take it from
// scratchPool instead of growing their own again: a 24-query GPU run
// spent 6% of its CPU time allocating and clearing matrices.
type scratch struct {
	oxf, oxb *fwdback.Matrix
	pair     *fwdback.PairMatrix
	ew       *fwdback.EnvWork   // backwardGroup's kernels' workspace
	bck      [4]*fwdback.Matrix // backwardGroup's Backward parsers
	def      *domaindef.Definer
}

// scratchPool keeps the scratch given back, up to one per core (the
// staged search uses no more at once, scratchSlots). It is not a
// sync.Pool: domain definition's matrices live in huge-page mappings
// outside the Go heap, whose collections therefore come often (the heap
// stays small), and each emptied a sync.Pool: the next worker mapped
// and faulted its matrices in again (24 models, 2 cores: 3.6 GB of huge
// page faults for a 0.9 GB peak), where heap matrices had been reused
// from the heap's free pages. Scratch past the bound is freed at once.
var scratchPool struct {
	sync.Mutex
	free []*scratch
}

func getScratch() *scratch {
	scratchPool.Lock()
	defer scratchPool.Unlock()
	n := len(scratchPool.free)
	if n == 0 {
		return nil
	}
	s := scratchPool.free[n-1]
	scratchPool.free[n-1] = nil
	scratchPool.free = scratchPool.free[:n-1]
	return s
}

func putScratch(s *scratch) {
	if keep := scratchKeepBytes(); keep >= 0 && s.def.MatrixBytes() > keep {
		s.def.Release()
	}
	scratchPool.Lock()
	defer scratchPool.Unlock()
	if len(scratchPool.free) >= runtime.GOMAXPROCS(0) {
		s.def.Release()
		return
	}
	scratchPool.free = append(scratchPool.free, s)
}

func newWorker(m *Model, cfg *Config, arbitrarySeed uint32) *worker {
	w := newLazyWorker(m, cfg, arbitrarySeed)
	w.ensureScratch()
	return w
}

// newLazyWorker is a worker that takes its scratch only when Forward or
// domain definition first needs it (ensureScratch). The staged search
// makes a worker per core for every query in flight, and a query spends
// most of its time in the filters, where no worker needs matrices: with
// eager scratch, every query in flight held a core's worth of matrices
// grown to the longest envelope seen (16 GB live in a 1,000-model run).
func newLazyWorker(m *Model, cfg *Config, arbitrarySeed uint32) *worker {
	w := &worker{m: m, cfg: cfg, om: *m.OM, others: [3]oprofile.Profile{*m.OM, *m.OM, *m.OM}, bg: *m.BG, bias: cfg.biasFilter(),
		seed: arbitrarySeed}
	w.f1, w.f2, w.f3 = cfg.filterThresholds()
	return w
}

// ensureScratch gives the worker its matrices and domain definition
// workspace, from scratchPool when a finished query left one there.
func (w *worker) ensureScratch() {
	if w.scratch != nil {
		return
	}
	s := getScratch()
	if s == nil {
		s = &scratch{oxf: fwdback.NewMatrix(), oxb: fwdback.NewMatrix(), pair: fwdback.NewPairMatrix(),
			ew: fwdback.NewEnvWork(), def: domaindef.NewInHugePages(w.cfg.Seed, w.seed)}
		for j := range s.pair.Keep {
			s.pair.Keep[j], s.bck[j] = fwdback.NewMatrix(), fwdback.NewMatrix()
		}
	} else {
		s.def.Reset(w.cfg.Seed, w.seed)
	}
	w.oxf, w.oxb, w.pair, w.def, w.scratch = s.oxf, s.oxb, s.pair, s.def, s
	n := scratchOut.Add(1)
	for p := scratchPeak.Load(); n > p && !scratchPeak.CompareAndSwap(p, n); p = scratchPeak.Load() {
	}
}

// release gives the worker's scratch back for a later query's workers;
// the worker must not be used after.
func (w *worker) release() {
	if w.scratch != nil {
		putScratch(w.scratch)
		scratchOut.Add(-1)
	}
	w.scratch, w.oxf, w.oxb, w.pair, w.def = nil, nil, nil, nil, nil
}

// nullOne is bg.NullOne(L) after bg.SetLength(L), which depends on L
// alone: the staged search asks for it for every target of every query,
// so the values are kept by length for the whole process (nullTable).
// It leaves w.bg alone.
func (w *worker) nullOne(L int) float32 { return nullOne(L) }

func nullOne(L int) float32 {
	if t := *nullTable.Load(); L < len(t) {
		return t[L]
	}
	return growNullTable(L)[L]
}

// nullTable holds NullOne by length, 0..len-1; it only grows, each time
// into a new slice, so readers need no lock.
var (
	nullTable   atomic.Pointer[[]float32]
	nullTableMu sync.Mutex
)

func init() { nullTable.Store(new([]float32)) }

// growNullTable extends nullTable to cover length L.
func growNullTable(L int) []float32 {
	nullTableMu.Lock()
	defer nullTableMu.Unlock()
	old := *nullTable.Load()
	if L < len(old) {
		return old
	}
	t := make([]float32, max(L+1, 2*len(old), 1<<12))
	copy(t, old)
	var bg profile.Background // NullOne reads P1 alone, which SetLength sets
	for n := len(old); n < len(t); n++ {
		bg.SetLength(n)
		t[n] = bg.NullOne(n)
	}
	nullTable.Store(&t)
	return t
}

// bits converts a nats score difference to bits, rounding as HMMER does
// (float difference, double division, float result).
func bits(a, b float32) float32 { return float32(float64(a-b) / math.Ln2) }

// candidate is a target that passed the MSV and bias filters, held until
// the Viterbi filter has scored the whole batch.
type candidate struct {
	sq               *seqio.Sequence
	idx              int64
	nullsc, filtersc float32
	job              int // its vitfilter job, or -1 when the MSV P-value already passed F2
}

// runBatch is p7_Pipeline for each of seqs, in order; index(n) is the
// 0-based database position of seqs[n], which decides the provisional
// E-value test (HMMER's serial pipeline uses the number of targets read
// so far as Z). The MSV and bias filters run target by target; the
// Viterbi filter then scores every survivor of the batch in one
// vitfilter.ScoreBatch call (small models score two targets at a time
// there). Its survivors wait with those of earlier batches until
// pendingForward are pending; then flush runs the Forward filter on them
// in groups (forwardGroup) and the rest target by target in database
// order, and the hits found come back (the caller calls flush once more
// after its last batch). Every filter score depends only on its target,
// so the hits, the counters and the order in which targets reach domain
// definition are those of running the whole pipeline on one target after
// another.
func (w *worker) runBatch(seqs []*seqio.Sequence, index func(n int) int64) ([]*hits.Hit, error) {
	w.cands, w.jobs = w.cands[:0], w.jobs[:0]
	for n, sq := range seqs {
		w.filter(sq, index(n))
	}
	lap := w.stopwatch()
	if len(w.jobs) > 0 {
		if cap(w.vfsc) < len(w.jobs) {
			w.vfsc = make([]float32, len(w.jobs))
		}
		w.vfsc = w.vfsc[:len(w.jobs)]
		vitfilter.ScoreBatch(&w.om.Vit, w.jobs, w.vfsc)
		lap(hits.StageVit)
	}
	ev := &w.m.OM.EvParam
	w.surv = w.surv[:0]
	for i := range w.cands {
		c := &w.cands[i]
		if c.job >= 0 {
			P := easel.GumbelSurv(float64(bits(w.vfsc[c.job], c.filtersc)), float64(ev[hmm.VitMu]), float64(ev[hmm.VitLambda]))
			if P > w.f2 {
				continue
			}
		}
		w.stats.NPastVit++
		w.surv = append(w.surv, c)
	}
	if !fwdback.PairKernel() {
		return w.finishEach()
	}
	for _, c := range w.surv {
		w.pending = append(w.pending, *c)
	}
	if len(w.pending) < pendingForward {
		return nil, nil
	}
	return w.flush()
}

// flush runs the Forward filter on the pending survivors, in groups of
// neighbours in length, then the later stages on its survivors in
// database order, and returns their hits.
func (w *worker) flush() ([]*hits.Hit, error) {
	pending := w.pending
	w.pending = w.pending[:0]
	if len(pending) == 0 {
		return nil, nil
	}
	lap := w.stopwatch()
	w.order = w.order[:0]
	for k := range pending {
		w.order = append(w.order, k)
	}
	sort.SliceStable(w.order, func(a, b int) bool {
		return len(pending[w.order[a]].sq.Dsq) < len(pending[w.order[b]].sq.Dsq)
	})
	if cap(w.fwdsc) < len(pending) {
		w.fwdsc = make([]float32, len(pending))
	}
	w.fwdsc = w.fwdsc[:len(pending)] // every entry is set below
	if cap(w.parsers) < len(pending) {
		w.parsers = make([]keptParsers, len(pending))
	}
	w.parsers = w.parsers[:len(pending)]
	clear(w.parsers) // keep sets the survivors' entries
	target := func(k int) []byte { return pending[k].sq.Dsq }
	filtersc := func(k int) float32 { return pending[k].filtersc }
	keep := func(k int, rows *fwdback.Matrix) { w.parsers[k].fwd = rows }
	for _, g := range kernelGroups(w.order) {
		if err := w.forwardGroup(target, filtersc, g, w.fwdsc, keep); err != nil {
			return nil, err
		}
	}
	lap(hits.StageFwd)
	var survivors []int // in length order
	for _, k := range w.order {
		if w.parsers[k].fwd != nil {
			survivors = append(survivors, k)
		}
	}
	keptOf := func(k int) *keptParsers { return &w.parsers[k] }
	for _, g := range kernelGroups(survivors) {
		w.backwardGroup(target, keptOf, g)
	}
	w.defs = w.defs[:0]
	for k := range pending {
		if p := w.parsers[k]; p.fwd != nil {
			c := &pending[k]
			w.defs = append(w.defs, defTarget{sq: c.sq, idx: c.idx, nullsc: c.nullsc, fwdsc: w.fwdsc[k], kept: p})
		}
	}
	err := w.defineAll(w.defs)
	lap(hits.StageDomains)
	if err != nil {
		return nil, err
	}
	var found []*hits.Hit
	for _, d := range w.defs {
		if d.hit != nil {
			found = append(found, d.hit)
		}
	}
	return found, nil
}

// defTarget is a target that passed the Forward filter, on its way
// through domain definition and scoring (defineAll).
type defTarget struct {
	sq            *seqio.Sequence
	idx           int64
	nullsc, fwdsc float32
	fwd, bck      *fwdback.Matrix // its parser matrices; nil: computed here
	err           error           // the parsers' error
	p             *domaindef.Pending
	hit           *hits.Hit // the result: nil when none is reportable

	// kept, when fwd is nil, is its parsers as the Forward filter left
	// them (forwardGroup). defineAll gives them back to parserRows.
	kept keptParsers
}

// defineAll runs domain definition and scoring on ts, their envelopes
// rescored together (domaindef.Rescore), and sets each one's hit. Its
// error is the first one that running the targets one after another
// would meet.
func (w *worker) defineAll(ts []defTarget) error {
	n, stop := w.prepareAll(ts)
	w.def.Rescore(w.prepared)
	return w.finishAll(ts[:n], stop)
}

// prepareAll is defineAll up to the envelopes (domaindef.Prepare, each
// target's t.p, also listed in w.prepared): it returns how many targets
// were prepared and the error that stopped it.
func (w *worker) prepareAll(ts []defTarget) (int, error) {
	w.ensureScratch()
	w.prepared = w.prepared[:0]
	var stop error
	n := len(ts)
	for k := range ts {
		t := &ts[k]
		fwd, bck := t.fwd, t.bck
		switch {
		case t.err != nil:
			stop = t.err
		case fwd == nil && t.kept.fwd != nil:
			w.om.ReconfigLength(len(t.sq.Dsq))
			fwd, bck, stop = t.kept.fwd, t.kept.bck, t.kept.err
		case fwd == nil:
			// Forward again, for its whole matrix: only where the
			// accelerator scored the target and gave no parsers.
			w.bg.SetLength(len(t.sq.Dsq))
			if _, stop = w.forward(t.sq.Dsq); stop == nil {
				_, stop = fwdback.Backward(t.sq.Dsq, &w.om, w.oxf, w.oxb, false)
			}
			fwd, bck = w.oxf, w.oxb
		default:
			w.om.ReconfigLength(len(t.sq.Dsq))
		}
		if stop != nil {
			n = k
			break
		}
		t.p = w.def.Prepare(t.sq.Dsq, &w.om, fwd, bck)
		w.prepared = append(w.prepared, t.p)
	}
	for k := range ts {
		if t := &ts[k]; t.kept.fwd != nil {
			parserRows.Put(t.kept.fwd)
			if t.kept.bck != nil { // none where the accelerator gave parsers
				parserRows.Put(t.kept.bck)
			}
			t.kept = keptParsers{}
		}
	}
	return n, stop
}

// finishAll is defineAll after the envelopes are rescored: each target's
// result and hit; stop is prepareAll's error.
func (w *worker) finishAll(ts []defTarget, stop error) error {
	for k := range ts {
		t := &ts[k]
		res, err := w.def.Finish(t.p)
		if err != nil {
			return err
		}
		if res.NRegions == 0 || res.NEnvelopes == 0 || len(res.Domains) == 0 {
			continue
		}
		t.hit = w.score(t.sq, t.idx, t.nullsc, t.fwdsc, res)
	}
	return stop
}

// stopwatch returns a function that adds the time since its last call
// (or since stopwatch's) to a stage's time, when stage times are kept.
func (w *worker) stopwatch() func(stage int) {
	if !w.cfg.TimeStages {
		return func(int) {}
	}
	t0 := time.Now()
	return func(stage int) {
		t1 := time.Now()
		w.stats.StageTime[stage] += t1.Sub(t0)
		t0 = t1
	}
}

// finishEach runs Forward and the rest on each Viterbi survivor in turn
// (without the paired kernel: Forward's matrix then serves Backward).
func (w *worker) finishEach() ([]*hits.Hit, error) {
	var found []*hits.Hit
	for _, c := range w.surv {
		h, err := w.finish(c)
		if err != nil {
			return nil, err
		}
		if h != nil {
			found = append(found, h)
		}
	}
	return found, nil
}

// filter runs the MSV and bias filters on one target; a survivor becomes
// a candidate, with a Viterbi filter job unless the MSV P-value has
// already passed F2.
func (w *worker) filter(sq *seqio.Sequence, idx int64) {
	dsq := sq.Dsq
	L := len(dsq)
	w.stats.NSeqs++
	w.stats.NRes += int64(L)
	if L == 0 {
		return
	}
	om, bg, ev := &w.om, &w.bg, &w.m.OM.EvParam
	bg.SetLength(L)
	om.ReconfigLength(L)
	nullsc := bg.NullOne(L)
	var t0 time.Time
	lap := func(stage int) {
		if w.cfg.TimeStages {
			t1 := time.Now()
			w.stats.StageTime[stage] += t1.Sub(t0)
			t0 = t1
		}
	}
	if w.cfg.TimeStages {
		t0 = time.Now()
	}

	usc := msvfilter.Score(dsq, &om.MSV)
	lap(hits.StageMSV)
	P := easel.GumbelSurv(float64(bits(usc, nullsc)), float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
	if P > w.f1 {
		return
	}
	w.stats.NPastMSV++

	filtersc := nullsc
	if w.bias {
		filtersc = bg.FilterScore(dsq)
		P = easel.GumbelSurv(float64(bits(usc, filtersc)), float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
		lap(hits.StageBias)
		if P > w.f1 {
			return
		}
	}
	w.stats.NPastBias++

	c := candidate{sq: sq, idx: idx, nullsc: nullsc, filtersc: filtersc, job: -1}
	// The Viterbi filter runs only when the MSV P-value has not already
	// passed F2.
	if P > w.f2 {
		c.job = len(w.jobs)
		w.jobs = append(w.jobs, vitfilter.Job{Dsq: dsq, XW: om.Vit.XW})
	}
	w.cands = append(w.cands, c)
}

// finish runs Forward on a target that passed the filters and, for a
// survivor, Backward, domain definition and scoring (the rest of
// p7_Pipeline).
func (w *worker) finish(c *candidate) (*hits.Hit, error) {
	lap := w.stopwatch()
	w.bg.SetLength(len(c.sq.Dsq)) // other targets of the batch set it since
	fwdsc, err := w.forward(c.sq.Dsq)
	if err != nil {
		return nil, err
	}
	lap(hits.StageFwd)
	if !w.passesForward(fwdsc, c.filtersc) {
		return nil, nil
	}
	defer lap(hits.StageDomains)
	return w.domains(c.sq, c.idx, c.nullsc, fwdsc)
}

// forward is the Forward filter's score of dsq, its matrix left in w.oxf
// for Backward.
func (w *worker) forward(dsq []byte) (float32, error) {
	w.om.ReconfigLength(len(dsq))
	return fwdback.Forward(dsq, &w.om, w.oxf, false)
}

// kernelGroups cuts order (targets in length order) into the groups the
// grouped Forward and Backward kernels take (groupSize).
func kernelGroups(order []int) [][]int {
	var groups [][]int
	for k, g := 0, fwdback.Group(); k < len(order); {
		n := groupSize(len(order)-k, g)
		groups = append(groups, order[k:k+n])
		k += n
	}
	return groups
}

// groupSize is how many of the left targets the next Forward group
// takes, the kernels taking g (fwdback.Group) at once: g, or two of
// three, or what is left.
func groupSize(left, g int) int {
	n := min(g, left)
	if n == 3 {
		n = 2
	}
	return n
}

// forwardGroup sets sc[k] to the Forward filter score of target(k) for
// each k of idx (one, two or four targets) at once, on
// fwdback.ForwardPair's or ForwardQuad's kernel where it runs, and tests
// it against F3 (filtersc(k) the target's filter score): for each target
// that passes, counted in NPastFwd, keep(k, rows) takes its Forward
// parser's special rows, from parserRows, for backwardGroup and domain
// definition. It returns the first error in idx's order (then keeps
// nothing) and leaves no matrix in w.oxf.
func (w *worker) forwardGroup(target func(k int) []byte, filtersc func(k int) float32, idx []int, sc []float32,
	keep func(k int, rows *fwdback.Matrix)) error {
	w.ensureScratch()
	dsq := func(j int) []byte { return target(idx[j]) }
	var (
		s4   [4]float32
		errs [4]error
	)
	switch len(idx) {
	case 1:
		s4[0], errs[0] = w.forward(dsq(0))
	case 2:
		s4[0], errs[0], s4[1], errs[1] = fwdback.ForwardPair(dsq(0), dsq(1), w.groupProfile(0, len(dsq(0))), w.groupProfile(1, len(dsq(1))), w.pair)
	case 4:
		var ds [4][]byte
		var oms [4]*oprofile.Profile
		for j := range ds {
			ds[j] = dsq(j)
			oms[j] = w.groupProfile(j, len(ds[j]))
		}
		fwdback.ForwardQuad(&ds, &oms, w.pair, &s4, &errs)
	default:
		panic("pipeline: forwardGroup of " + strconv.Itoa(len(idx)) + " targets")
	}
	for j, k := range idx {
		sc[k] = s4[j]
		if errs[j] != nil {
			return errs[j]
		}
	}
	for j, k := range idx {
		if w.passesForward(sc[k], filtersc(k)) {
			src := w.pair.Keep[j]
			if len(idx) == 1 {
				src = w.oxf
			}
			rows := parserRows.Get().(*fwdback.Matrix)
			rows.KeepSpecials(src)
			keep(k, rows)
		}
	}
	return nil
}

// groupProfile is the profile of target j of a group of the grouped
// kernels (forwardGroup, backwardGroup), configured for length L: the
// worker's own for the first, w.others for the rest.
func (w *worker) groupProfile(j, L int) *oprofile.Profile {
	om := &w.om
	if j > 0 {
		om = &w.others[j-1]
	}
	om.ReconfigLength(L)
	return om
}

// keptParsers is a Forward survivor's parsers between the Forward filter
// and domain definition: the Forward parser's special rows, which
// forwardGroup keeps, and the Backward parser's, which backwardGroup
// keeps, or that parser's error (ErrRange), which domain definition
// meets in its turn. Both come from parserRows.
type keptParsers struct {
	fwd, bck *fwdback.Matrix
	err      error
}

// backwardGroup runs the Backward parsers of the Forward survivors idx
// (up to fwdback.Group() of one query) at once (fwdback.BackwardParsers,
// 1.4-1.9 times the rate of one at a time on an AVX-512 core;
// docs/cpu-kernels.md), each target(k) in its own length configuration,
// from the Forward rows keptOf(k) holds, and keeps there what domain
// definition reads of the Backward parser: its special rows, from
// parserRows, as for Forward (the cell row stays in the worker's
// scratch).
func (w *worker) backwardGroup(target func(k int) []byte, keptOf func(k int) *keptParsers, idx []int) {
	w.ensureScratch()
	var (
		ds         [4][]byte
		oms        [4]*oprofile.Profile
		fwds, bcks [4]*fwdback.Matrix
		sc         [4]float32
		errs       [4]error
	)
	n := len(idx)
	for j, k := range idx {
		ds[j] = target(k)
		oms[j], fwds[j], bcks[j] = w.groupProfile(j, len(ds[j])), keptOf(k).fwd, w.scratch.bck[j]
	}
	fwdback.BackwardParsers(ds[:n], oms[:n], fwds[:n], bcks[:n], sc[:n], errs[:n], w.scratch.ew)
	for j, k := range idx {
		p := keptOf(k)
		p.bck, p.err = parserRows.Get().(*fwdback.Matrix), errs[j]
		p.bck.KeepSpecials(bcks[j])
	}
}

// keptRows is a Forward survivor's parsers, by database index.
type keptRows struct {
	i int
	p keptParsers
}

// parserRows holds the special-row matrices that carry Forward
// survivors' parsers from the Forward filter to domain definition (24
// bytes a residue each, on the heap), for the next survivors to reuse.
var parserRows = sync.Pool{New: func() any { return fwdback.NewMatrix() }}

// passesForward tests a Forward score against F3 and counts it.
func (w *worker) passesForward(fwdsc, filtersc float32) bool {
	if !w.forwardPValuePasses(fwdsc, filtersc) {
		return false
	}
	w.stats.NPastFwd++
	return true
}

func (w *worker) forwardPValuePasses(fwdsc, filtersc float32) bool {
	ev := &w.m.OM.EvParam
	P := easel.ExpSurv(float64(bits(fwdsc, filtersc)), float64(ev[hmm.FwdTau]), float64(ev[hmm.FwdLambda]))
	return P <= w.f3
}

// failsForward is the Forward score the staged search gives a target
// whose bound (ForwardResult.Margin) already fails F3: P(-Inf) is 1.
var failsForward = float32(math.Inf(-1))

// mayPassForward says whether a target whose exact Forward score lies
// within margin(L, sc) of sc might pass F3: P falls as the score rises
// (bits and ExpSurv are monotone, rounding included), so it fails for
// certain when the upper end fails. The upper end is rounded up.
func (w *worker) mayPassForward(sc float32, margin func(L int, sc float32) float32, L int, filtersc float32) bool {
	m := margin(L, sc)
	if !(m >= 0) || math.IsInf(float64(m), 1) || math.IsNaN(float64(sc)) {
		return true
	}
	up := math.Nextafter32(sc+m, float32(math.Inf(1)))
	return w.forwardPValuePasses(up, filtersc)
}

// domains is the rest of the pipeline for a target that passed the
// Forward filter, its Forward matrix in w.oxf: Backward, domain definition
// and scoring. It returns nil when no domain is found or the target is not
// reportable.
func (w *worker) domains(sq *seqio.Sequence, idx int64, nullsc, fwdsc float32) (*hits.Hit, error) {
	if _, err := fwdback.Backward(sq.Dsq, &w.om, w.oxf, w.oxb, false); err != nil {
		return nil, err
	}
	return w.define(sq, idx, nullsc, fwdsc, w.oxf, w.oxb)
}

// define runs domain definition on a target's Forward and Backward
// matrices (w.om configured for its length) and scores it.
func (w *worker) define(sq *seqio.Sequence, idx int64, nullsc, fwdsc float32, fwd, bck *fwdback.Matrix) (*hits.Hit, error) {
	res, err := w.def.Define(sq.Dsq, &w.om, fwd, bck)
	if err != nil {
		return nil, err
	}
	if res.NRegions == 0 || res.NEnvelopes == 0 || len(res.Domains) == 0 {
		return nil, nil
	}
	return w.score(sq, idx, nullsc, fwdsc, res), nil
}

// score turns a defined target into a hit (the end of p7_Pipeline): the
// null2-corrected sequence score, the domain-sum reconstruction, per-domain
// scores, and the provisional reporting test.
func (w *worker) score(sq *seqio.Sequence, idx int64, nullsc, fwdsc float32, res *domaindef.Result) *hits.Hit {
	L := len(sq.Dsq)
	ev := &w.m.OM.EvParam
	null2 := !w.cfg.NoNull2
	logOmega := easel.Log(float64(w.bg.Omega))
	lengthTerm := easel.Log(float64(float32(L) / float32(L+3)))

	var seqbias float32
	if null2 {
		seqbias = easel.FSum(res.N2Sc)
		seqbias = profile.FLogsum(0, float32(logOmega+float64(seqbias)))
	}
	preScore := bits(fwdsc, nullsc)
	seqScore := bits(fwdsc, nullsc+seqbias)

	var sumScore float32
	seqbias = 0
	Ld := 0
	for i := range res.Domains {
		d := &res.Domains[i]
		if (null2 && d.EnvSc-d.DomCorrection > 0) || (!null2 && d.EnvSc > 0) {
			sumScore += d.EnvSc
			Ld += int(d.JEnv-d.IEnv) + 1
			if null2 {
				seqbias += d.DomCorrection
			}
		}
	}
	if null2 {
		seqbias = profile.FLogsum(0, float32(logOmega+float64(seqbias)))
	}
	sumScore = float32(float64(sumScore) + float64(L-Ld)*lengthTerm)
	pre2Score := bits(sumScore, nullsc)
	sumScore = bits(sumScore, nullsc+seqbias)
	if Ld > 0 && sumScore > seqScore {
		seqScore = sumScore
		preScore = pre2Score
	}

	tau, lambda := float64(ev[hmm.FwdTau]), float64(ev[hmm.FwdLambda])
	lnP := easel.ExpLogSurv(float64(seqScore), tau, lambda)
	th := w.m.Thresholds
	if !th.ZFromOption {
		th.Z = float64(idx + 1)
	}
	if !th.TargetReportable(seqScore, lnP) {
		return nil
	}

	hit := &hits.Hit{
		Name: sq.Name, Acc: sq.Acc, Desc: sq.Desc,
		NExpected: res.NExpected, NRegions: res.NRegions, NClustered: res.NClustered,
		NOverlaps: res.NOverlaps, NEnvelopes: res.NEnvelopes,
		PreScore: preScore, PreLnP: easel.ExpLogSurv(float64(preScore), tau, lambda),
		Score: seqScore, LnP: lnP, SortKey: th.SortKey(seqScore, lnP),
		SumScore: sumScore, SumLnP: easel.ExpLogSurv(float64(sumScore), tau, lambda),
		SeqIdx: idx,
	}
	hit.Domains = make([]hits.Domain, len(res.Domains))
	for i := range res.Domains {
		rd := &res.Domains[i]
		d := rd.Domain
		Ld := int(d.JEnv-d.IEnv) + 1
		bs := float32(float64(d.EnvSc) + float64(L-Ld)*lengthTerm)
		if null2 {
			d.DomBias = profile.FLogsum(0, float32(logOmega+float64(d.DomCorrection)))
		}
		d.BitScore = bits(bs, nullsc+d.DomBias)
		d.LnP = easel.ExpLogSurv(float64(d.BitScore), tau, lambda)
		d.Ad = hits.NewAliDisplay(&rd.Trace, 0, w.m.Display, sq)
		hit.Domains[i] = d
		if d.BitScore > hit.Domains[hit.BestDomain].BitScore {
			hit.BestDomain = i
		}
	}
	if th.Cutoff != hits.NoCutoff {
		if th.TargetReportable(hit.Score, hit.LnP) {
			hit.Flags |= hits.IsReported
			if th.TargetIncludable(hit.Score, hit.LnP) {
				hit.Flags |= hits.IsIncluded
			}
		}
		for i := range hit.Domains {
			d := &hit.Domains[i]
			if th.DomainReportable(d.BitScore, d.LnP) {
				d.IsReported = true
				if th.DomainIncludable(d.BitScore, d.LnP) {
					d.IsIncluded = true
				}
			}
		}
	}
	return hit
}

// msvfilterScore is the MSV filter kernel, named for the CPU accelerator.
func msvfilterScore(dsq []byte, om *oprofile.Profile) float32 { return msvfilter.Score(dsq, &om.MSV) }
