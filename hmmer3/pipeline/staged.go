package pipeline

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/hmmer3/vitfilter"
	"github.com/hmmgo/hmmgo/seqio"
)

// Accelerator computes whole pipeline stages for many targets at once
// (the GPUs), each with exactly the per-target CPU result.
type Accelerator interface {
	// MSV returns every target's MSV filter score.
	MSV(om *oprofile.Profile) ([]float32, error)
	// Viterbi returns the Viterbi filter score of the targets with want[i].
	Viterbi(om *oprofile.Profile, want []bool) ([]float32, error)
	// Forward returns the Forward filter score of the targets with
	// want[i] (om in multihit mode, each target's own length), exact or
	// within a bound (ForwardResult). It may leave some or all of them to
	// the pipeline's workers (where the CPU is faster: the longest
	// targets, or a small batch). It may block while it batches the
	// requests of several queries.
	Forward(om *oprofile.Profile, want []bool) (ForwardResult, error)
	// Parsers returns the Forward and Backward parsers of the targets with
	// want[i], as Forward configures om; the others are zero. nil, as for
	// Forward, leaves them to the CPU, and so does a zero entry of a wanted
	// target (a device that left the run).
	Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error)
}

// ForwardResult is what Accelerator.Forward gives.
type ForwardResult struct {
	// Scores: nil leaves every wanted target to the workers.
	Scores []float32
	// Computed says which wanted targets have a score; nil: all of them.
	Computed []bool
	// Margin, when set, makes the scores bounds rather than exact: the
	// exact Forward score of a target of length L lies within
	// Margin(L, score) nats of its score (+Inf: no bound). The Forward
	// filter needs an exact score only where a target may pass it (a few
	// a query: domain definition and the reported score use it); every
	// other target fails for certain when score + margin fails, and the
	// workers compute the exact score of the rest.
	Margin func(L int, score float32) float32
}

// BiasAccelerator is an Accelerator that can also compute the bias
// filter for many targets at once.
type BiasAccelerator interface {
	Accelerator
	// Bias returns bg.FilterScore of the targets with want[i], bg as
	// SetFilter configured it and its length set to each target's own
	// (SetLength), or nil to leave them to the CPU workers.
	Bias(bg *profile.Background, want []bool) ([]float32, error)
}

// ScoreRecycler is an Accelerator that takes back the score slices its
// MSV, Viterbi and Bias returned once SearchStaged is done with them, to
// hand them out again for a later query (they are as long as the
// database, three per query).
type ScoreRecycler interface {
	Recycle(scores []float32)
}

// CallsDone is an Accelerator told when SearchStaged will make no more
// calls on it (after the parsers, or after the envelopes where it
// rescores them), so that the devices can be given back while the
// workers finish: hmmsearch releases its GPUs once the last query's
// calls are done.
type CallsDone interface {
	CallsDone()
}

// MSVCandidates is an Accelerator whose MSV scores can come with a list
// of the targets that may pass the MSV filter, made while it turns its
// results into scores: the staged search then tests those alone, where
// testing every target was a pass over the database's worth of scores in
// every query (docs/BENCHMARKS.md, 2026-11-29).
type MSVCandidates interface {
	// MSVAbove is MSV, and the places, in order, of every target whose
	// score is at least least(L) for its length L (others may be listed
	// too); above is nil when it made no list.
	MSVAbove(om *oprofile.Profile, least func(L int) float32) (scores []float32, above []int, err error)
}

// leastMSV is a score below which a target whose null score is nullsc
// fails the MSV pass's floor test, float64(score-nullsc) < floorNats,
// for certain: the crossing, less a margin far wider than the float32
// rounding of the difference and of the bound itself.
func leastMSV(floorNats float64, nullsc float32) float32 {
	x := floorNats + float64(nullsc)
	return math.Nextafter32(float32(x-1e-3*(1+math.Abs(x))), float32(math.Inf(-1)))
}

// TargetLengths is an Accelerator that keeps its targets' lengths (in
// the order of SearchStaged's seqs): the staged search's first pass then
// reads them in order instead of each target's Sequence, a cache miss
// per target of the database in every query.
type TargetLengths interface {
	Lengths() []int32
}

// targetState carries a target between stages.
type targetState struct {
	nullsc, filtersc float32
	P                float64
}

// SearchStaged runs the pipeline stage by stage over targets held in
// memory: the MSV filter, the Viterbi filter and the Forward/Backward
// parsers come from acc in bulk, the rest (null and bias models, P-values,
// domain definition, scores) runs on cfg.CPUs workers. Hits, counters and
// every number are those of Search. indices, when not nil, gives each
// target's index in the whole database (seqs is one shard of it, or the
// database in another order), as an IndexedSource does for Search; the
// hits come back in database order.
func SearchStaged(m *Model, seqs []*seqio.Sequence, indices []int64, cfg *Config, acc Accelerator) ([]*hits.Hit, *hits.Stats, error) {
	n := len(seqs)
	dbIndex := func(i int) int64 {
		if indices != nil {
			return indices[i]
		}
		return int64(i)
	}
	ncpu := max(1, cfg.CPUs)
	workers := make([]*worker, ncpu)
	for c := range workers {
		workers[c] = newLazyWorker(m, cfg, 1)
	}
	defer func() {
		for _, w := range workers {
			w.release()
		}
	}()
	// eachItem runs fn on items 0..count-1, the workers taking the next
	// item as they finish; a worker stops at its first error, and the
	// first error in worker order is returned.
	//
	// The caller is worker 0: with every core busy (hmmsearch --gpu keeps
	// a dozen queries in flight), a started goroutine may wait for a core
	// while the caller, which has one, would only wait for it.
	eachItem := func(count int, fn func(w *worker, k int) error) error {
		var wg sync.WaitGroup
		errs := make([]error, ncpu)
		var next atomic.Int64
		work := func(c int) {
			w := workers[c]
			for {
				k := int(next.Add(1) - 1)
				if k >= count {
					return
				}
				if err := fn(w, k); err != nil {
					errs[c] = err
					return
				}
			}
		}
		for c := 1; c < ncpu && c < count; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				work(c)
			}(c)
		}
		work(0)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}

	// The per-target passes take targets in chunks of consecutive ones.
	chunk := max(1, min(4096, n/(4*ncpu)+1))
	chunks := (n + chunk - 1) / chunk

	// forEachChunk runs fn on consecutive ranges covering all targets, the
	// workers taking the next range as they finish.
	forEachChunk := func(fn func(w *worker, lo, hi int)) {
		eachItem(chunks, func(w *worker, k int) error {
			fn(w, k*chunk, min(k*chunk+chunk, n))
			return nil
		})
	}

	// forEach runs fn on each target of list with want[i], in pieces.
	// After the MSV filter the passes walk its survivors' list (a few
	// percent of the targets) instead of every target's flags.
	forEach := func(list []int, want []bool, fn func(w *worker, i int) error) error {
		const piece = 1024
		return eachItem((len(list)+piece-1)/piece, func(w *worker, k int) error {
			for _, i := range list[k*piece : min(k*piece+piece, len(list))] {
				if want[i] {
					if err := fn(w, i); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}

	// A search that tells its accelerator when it has made its last call
	// (CallsDone) counts as on the devices until then: the scratch slots
	// serve its tasks first, and keep a reserve for the host passes of
	// the searches on the devices (slotQueue).
	// A search that fails is out of them too, but its accelerator is not
	// told: the caller may search again on the devices.
	cd, onDevice := acc.(CallsDone)
	if onDevice {
		scratchSlots().deviceStages(1)
	}
	leaveDevices := func() {
		if onDevice {
			onDevice = false
			scratchSlots().deviceStages(-1)
		}
	}
	defer leaveDevices()
	callsDone := func() {
		if onDevice {
			leaveDevices()
			cd.CallsDone()
		}
	}

	// forEachOf runs fn on items 0..count-1 (groups of targets, which
	// need DP scratch), one at a time per worker, each in a scratch slot.
	forEachOf := func(count int, fn func(w *worker, k int) error) error {
		urgent := onDevice || cd == nil
		return eachItem(count, func(w *worker, k int) error {
			return withScratchSlot(w, urgent, func() error { return fn(w, k) })
		})
	}

	// recycle hands a score slice back to the accelerator when the search
	// returns.
	recycle := func([]float32) {}

	// With cfg.TimeStages each stage's wall time is recorded (the device
	// stages and the CPU passes between them run one after the other).
	var wall [hits.NStages]time.Duration
	mark := time.Now()
	lap := func(stage int) {
		now := time.Now()
		wall[stage] += now.Sub(mark)
		mark = now
	}
	if r, ok := acc.(ScoreRecycler); ok {
		var done [][]float32
		defer func() {
			for _, sc := range done {
				r.Recycle(sc)
			}
		}()
		recycle = func(sc []float32) {
			if sc != nil {
				done = append(done, sc)
			}
		}
	}
	ev := &m.OM.EvParam
	f1, _, _ := cfg.filterThresholds()
	msvFloor := gumbelFloor(f1, float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
	floorNats := msvFloorNats(msvFloor)
	var usc []float32
	var above []int // nil: every target's score is tested
	var err error
	if mc, ok := acc.(MSVCandidates); ok {
		usc, above, err = mc.MSVAbove(m.OM, func(L int) float32 { return leastMSV(floorNats, nullOne(L)) })
	} else {
		usc, err = acc.MSV(m.OM)
	}
	recycle(usc)
	if err != nil {
		return nil, nil, err
	}
	lap(hits.StageMSV)
	bufs := getStagedBufs(n)
	// Only the MSV survivors' flags are ever set: those are cleared for
	// the next query, not the whole arrays.
	var msvSurvivors []int
	defer func() {
		bufs.clear(msvSurvivors)
		stagedPool.Put(bufs)
	}()
	st := bufs.st
	needVit, passVit := bufs.needVit, bufs.passVit
	// With a BiasAccelerator the MSV survivors' bias scores come from it
	// in bulk, between the MSV and the bias P-value passes.
	biasAcc, _ := acc.(BiasAccelerator)
	var needBias []bool
	if biasAcc != nil && cfg.biasFilter() {
		needBias = bufs.needBias
	}
	// afterBias takes a target past the bias filter to the Viterbi stage.
	afterBias := func(w *worker, i int) {
		s := &st[i]
		w.stats.NPastBias++
		if s.P > w.f2 {
			needVit[i] = true
		} else {
			passVit[i] = true
		}
	}
	// Null model, MSV and bias P-values. Every target of every query comes
	// through this test, so it runs in chunks with its counts kept
	// locally, and tests the floor in nats, without bits' division
	// (msvFloorNats); with a list of the targets above the floor from
	// the accelerator, only those.
	var lens []int32
	if tl, ok := acc.(TargetLengths); ok {
		if l := tl.Lengths(); len(l) == n {
			lens = l
		}
	}
	length := func(i int) int {
		if lens != nil {
			return int(lens[i])
		}
		return len(seqs[i].Dsq)
	}
	// msvTest takes target i of length L > 0 through the MSV filter and,
	// past it, on to the bias filter, and lists it in past.
	msvTest := func(w *worker, i, L int, past []int) []int {
		nullsc := w.nullOne(L)
		if float64(usc[i]-nullsc) < floorNats {
			return past // P > F1 for certain: most targets end here
		}
		s := &st[i] // written only for the targets that may pass
		s.nullsc = nullsc
		sc := float64(bits(usc[i], s.nullsc))
		if sc < msvFloor {
			return past
		}
		w.bg.SetLength(L)
		s.P = easel.GumbelSurv(sc, float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
		if s.P > w.f1 {
			return past
		}
		w.stats.NPastMSV++
		past = append(past, i)
		s.filtersc = s.nullsc
		if needBias != nil {
			needBias[i] = true
			return past
		}
		if w.bias {
			s.filtersc = w.bg.FilterScore(seqs[i].Dsq)
			s.P = easel.GumbelSurv(float64(bits(usc[i], s.filtersc)), float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
			if s.P > w.f1 {
				return past
			}
		}
		afterBias(w, i)
		return past
	}
	// pastMSV lists the MSV survivors, by piece and then in order.
	var pastMSV [][]int
	if above == nil {
		pastMSV = make([][]int, chunks)
		forEachChunk(func(w *worker, lo, hi int) {
			var nseqs, nres int64
			var past []int
			for i := lo; i < hi; i++ {
				L := length(i)
				nseqs++
				nres += int64(L)
				if L > 0 {
					past = msvTest(w, i, L, past)
				}
			}
			w.stats.NSeqs += nseqs
			w.stats.NRes += nres
			pastMSV[lo/chunk] = past
		})
	} else {
		const piece = 1024
		pastMSV = make([][]int, (len(above)+piece-1)/piece)
		eachItem(len(pastMSV), func(w *worker, k int) error {
			var past []int
			for _, i := range above[k*piece : min(k*piece+piece, len(above))] {
				if L := length(i); L > 0 {
					past = msvTest(w, i, L, past)
				}
			}
			pastMSV[k] = past
			return nil
		})
		w := workers[0]
		w.stats.NSeqs += int64(n)
		if lens != nil {
			for _, L := range lens {
				w.stats.NRes += int64(L)
			}
		} else {
			for _, sq := range seqs {
				w.stats.NRes += int64(len(sq.Dsq))
			}
		}
	}
	msvSurvivors = slices.Concat(pastMSV...)
	if needBias != nil {
		fsc, err := biasAcc.Bias(m.BG, needBias)
		recycle(fsc)
		if err != nil {
			return nil, nil, err
		}
		forEach(msvSurvivors, needBias, func(w *worker, i int) error {
			s := &st[i]
			if fsc != nil {
				s.filtersc = fsc[i]
			} else {
				w.bg.SetLength(len(seqs[i].Dsq))
				s.filtersc = w.bg.FilterScore(seqs[i].Dsq)
			}
			s.P = easel.GumbelSurv(float64(bits(usc[i], s.filtersc)), float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
			if s.P <= w.f1 {
				afterBias(w, i)
			}
			return nil
		})
	}
	lap(hits.StageBias)
	vfsc, err := acc.Viterbi(m.OM, needVit)
	recycle(vfsc)
	if err != nil {
		return nil, nil, err
	}
	forEach(msvSurvivors, needVit, func(w *worker, i int) error {
		s := &st[i]
		s.P = easel.GumbelSurv(float64(bits(vfsc[i], s.filtersc)), float64(ev[hmm.VitMu]), float64(ev[hmm.VitLambda]))
		passVit[i] = s.P <= w.f2
		return nil
	})
	// pastVit lists the Viterbi survivors, in order.
	var pastVit []int
	for _, i := range msvSurvivors {
		if passVit[i] {
			pastVit = append(pastVit, i)
		}
	}
	workers[0].stats.NPastVit += int64(len(pastVit))
	lap(hits.StageVit)
	om := *m.OM
	om.ReconfigMultihit(om.L)
	fres, err := acc.Forward(&om, passVit)
	if err != nil {
		return nil, nil, err
	}
	fwdsc, computed := fres.Scores, fres.Computed
	var onCPU []bool // the targets the workers score exactly
	switch {
	case fwdsc == nil:
		fwdsc, onCPU = bufs.fwdsc, passVit
	case computed != nil || fres.Margin != nil:
		onCPU = make([]bool, n)
		for _, i := range pastVit {
			onCPU[i] = computed != nil && !computed[i]
		}
	}
	if fwdsc != nil && fres.Margin != nil {
		forEach(pastVit, passVit, func(w *worker, i int) error {
			if !onCPU[i] {
				onCPU[i] = w.mayPassForward(fwdsc[i], fres.Margin, len(seqs[i].Dsq), st[i].filtersc)
				if !onCPU[i] {
					fwdsc[i] = failsForward
				}
			}
			return nil
		})
	}
	passFwd := bufs.passFwd
	target := func(i int) []byte { return seqs[i].Dsq }
	if onCPU != nil {
		// Targets in groups (forwardGroup): lead[i] marks a group's first
		// target, group[i] its members. Members are neighbours in length
		// order: the kernels share rows only while the targets last, the
		// longest one's tail runs alone.
		var order []int
		for _, i := range pastVit {
			if onCPU[i] {
				order = append(order, i)
			}
		}
		inLengthOrder(order, seqs)
		groups := kernelGroups(order)
		filtersc := func(k int) float32 { return st[k].filtersc }
		err = forEachOf(len(groups), func(w *worker, k int) error {
			return w.forwardGroup(target, filtersc, groups[k], fwdsc, func(i int, rows *fwdback.Matrix) {
				passFwd[i] = true
				w.kept = append(w.kept, keptRows{i, keptParsers{fwd: rows}})
			})
		})
		if err != nil {
			return nil, nil, err
		}
	}
	// The workers decided F3 for the targets they scored (forwardGroup).
	forEach(pastVit, passVit, func(w *worker, i int) error {
		if onCPU == nil || !onCPU[i] {
			passFwd[i] = w.passesForward(fwdsc[i], st[i].filtersc)
		}
		return nil
	})
	lap(hits.StageFwd)
	parsers, err := acc.Parsers(&om, passFwd)
	if err != nil {
		return nil, nil, err
	}
	ea, envelopesOnDevice := acc.(EnvelopeAccelerator)
	envelopesOnDevice = envelopesOnDevice && ea.EnvelopeShare() != nil
	if !envelopesOnDevice {
		callsDone()
	}
	// The parsers the workers kept, by database index, and where the
	// accelerator gave none their Backward parsers, run together in
	// groups of neighbours in length (backwardGroup).
	kept := map[int]*keptParsers{}
	var order []int
	for _, w := range workers {
		for k := range w.kept {
			i := w.kept[k].i
			kept[i] = &w.kept[k].p
			if parsers == nil || parsers[i].Fwd == nil {
				order = append(order, i)
			}
		}
	}
	if len(order) > 0 {
		inLengthOrder(order, seqs)
		groups := kernelGroups(order)
		keptOf := func(i int) *keptParsers { return kept[i] }
		err := forEachOf(len(groups), func(w *worker, g int) error {
			w.backwardGroup(target, keptOf, groups[g])
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	// Domain definition in groups, whose envelopes are rescored together
	// (worker.defineAll).
	var survivors []int
	for _, i := range pastVit {
		if passFwd[i] {
			survivors = append(survivors, i)
		}
	}
	groups := defineGroups(survivors, func(j int) int { return len(seqs[j].Dsq) }, defineGroupSize(len(survivors), ncpu))
	targets := func(g int) []defTarget {
		ts := make([]defTarget, len(groups[g]))
		for k, j := range groups[g] {
			ts[k] = defTarget{sq: seqs[j], idx: dbIndex(j), nullsc: st[j].nullsc, fwdsc: fwdsc[j]}
			if p := kept[j]; p != nil {
				ts[k].kept = *p
			}
			if parsers != nil {
				p := &parsers[j]
				ts[k].fwd, ts[k].bck, ts[k].err = p.Fwd, p.Bck, p.Err
			}
		}
		return ts
	}
	// found holds each survivor's hit, in database order as survivors
	// are; the groups are not.
	found := make([]*hits.Hit, len(survivors))
	hitsOf := func(g int, ts []defTarget) {
		for k := range ts {
			found[sort.SearchInts(survivors, groups[g][k])] = ts[k].hit
		}
	}
	if envelopesOnDevice {
		err = defineOnDevice(ea, ncpu, len(groups), targets, hitsOf, forEachOf)
		callsDone()
	} else {
		err = forEachOf(len(groups), func(w *worker, g int) error {
			ts := targets(g)
			err := w.defineAll(ts)
			hitsOf(g, ts)
			return err
		})
	}
	if err != nil {
		return nil, nil, err
	}
	lap(hits.StageDomains)
	var list []*hits.Hit
	for _, h := range found {
		if h != nil {
			list = append(list, h)
		}
	}
	if indices != nil {
		// found is in the order of seqs, which may be another than the
		// database's (a GPU's own, hmmsearch --gpu).
		slices.SortFunc(list, func(a, b *hits.Hit) int { return cmp.Compare(a.SeqIdx, b.SeqIdx) })
	}
	stats := &hits.Stats{NModels: 1, NNodes: int64(m.HMM.M)}
	stats.F1, stats.F2, stats.F3 = cfg.filterThresholds()
	for _, w := range workers {
		stats.Add(&w.stats)
	}
	if cfg.TimeStages {
		stats.StageTime = wall
	}
	return list, stats, nil
}

// stagedBufs are SearchStaged's per-target arrays, kept for the next
// query: a many-model search otherwise allocates and clears tens of
// megabytes per query. The flags go back to the pool cleared (clear);
// st and fwdsc are not cleared, since every element the search reads it
// wrote first (nullsc for every target above the MSV floor, P and
// filtersc for the MSV survivors, fwdsc for the Viterbi survivors).
type stagedBufs struct {
	st                                  []targetState
	needVit, passVit, needBias, passFwd []bool
	fwdsc                               []float32
}

var stagedPool sync.Pool

// clear unsets the flags of the targets set, the only ones a search sets.
func (b *stagedBufs) clear(set []int) {
	for _, i := range set {
		b.needVit[i], b.passVit[i], b.needBias[i], b.passFwd[i] = false, false, false, false
	}
}

func getStagedBufs(n int) *stagedBufs {
	if b, ok := stagedPool.Get().(*stagedBufs); ok && len(b.st) == n {
		return b
	}
	return &stagedBufs{st: make([]targetState, n), needVit: make([]bool, n), passVit: make([]bool, n),
		needBias: make([]bool, n), passFwd: make([]bool, n), fwdsc: make([]float32, n)}
}

// defineGroupSize is how many Forward survivors of the staged search a
// worker defines at once: enough that most groups hold several
// envelopes to rescore together, few enough that every worker gets
// about eight groups (from 2 to 16 targets). With at most four survivors
// a worker, each is a group of its own: there the query's longest
// targets, not the rate, set when its domains are done.
func defineGroupSize(survivors, workers int) int {
	if survivors <= 4*workers {
		return 1
	}
	return max(2, min(16, survivors/(8*workers)))
}

// defineGroups deals the survivors (positions in the search's targets)
// into groups of at most size, longest target first and round robin:
// group 0 takes the longest, group 1 the next, and so on, then again
// from group 0. The workers take the groups in order, so the longest
// targets start first and no group holds two of them (as neighbours in
// database order, or in length order, could), which left one worker
// defining the query's longest targets one after the other while the
// others idled: a single 2,405-node query's domains took 0.52 s on an
// H200 host's 16 cores in database order, 0.40 s so (docs/BENCHMARKS.md).
func defineGroups(survivors []int, length func(j int) int, size int) [][]int {
	order := slices.Clone(survivors)
	slices.SortStableFunc(order, func(a, b int) int { return length(b) - length(a) })
	groups := make([][]int, (len(order)+size-1)/size)
	for k, j := range order {
		groups[k%len(groups)] = append(groups[k%len(groups)], j)
	}
	return groups
}

// msvFloorNats is a bound in nats under which a target's MSV score
// (usc - nullsc, float32) is certainly below floor bits once bits()
// converts it: floor less a thousandth of a bit, which covers the float32
// rounding of any score under 16,000 bits in magnitude (relative 2^-24).
// Scores further below are below the floor anyway; for a floor outside
// +-1,000 bits it gives -Inf and every target takes the exact test.
func msvFloorNats(floor float64) float64 {
	if !(floor > -1000 && floor < 1000) {
		return math.Inf(-1)
	}
	return (floor - 1e-3) * math.Ln2
}

// gumbelFloor returns a score below which easel.GumbelSurv(x, mu, lambda)
// certainly exceeds p: the exact crossing, less a margin in which the
// true P-value grows by about lambda x margin relatively, far more than
// the few ulps by which the computed one may differ from it. Scores above
// the floor still get the exact test; most targets of a search fall below.
func gumbelFloor(p, mu, lambda float64) float64 {
	if !(p < 1) || !(lambda > 0) {
		return math.Inf(-1)
	}
	margin := 0.01 + 0.01/lambda
	return mu - math.Log(-math.Log1p(-p))/lambda - margin
}

// CPUAccelerator computes the bulk stages on the CPU with the same kernels
// Search uses; it is SearchStaged's reference and fallback.
type CPUAccelerator struct {
	Seqs []*seqio.Sequence
}

func (c CPUAccelerator) each(om *oprofile.Profile, want []bool, fn func(p *oprofile.Profile, i int)) {
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := *om
			for i := w; i < len(c.Seqs); i += n {
				if (want == nil || want[i]) && c.Seqs[i].L() > 0 {
					p.ReconfigLength(c.Seqs[i].L())
					fn(&p, i)
				}
			}
		}(w)
	}
	wg.Wait()
}

// MSV implements Accelerator.
func (c CPUAccelerator) MSV(om *oprofile.Profile) ([]float32, error) {
	out := make([]float32, len(c.Seqs))
	c.each(om, nil, func(p *oprofile.Profile, i int) { out[i] = msvfilterScore(c.Seqs[i].Dsq, p) })
	return out, nil
}

// Viterbi implements Accelerator. Each worker scores its targets in one
// vitfilter.ScoreBatch call (two at a time for small models).
func (c CPUAccelerator) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	out := make([]float32, len(c.Seqs))
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := *om
			var jobs []vitfilter.Job
			var at []int
			for i := w; i < len(c.Seqs); i += n {
				if (want == nil || want[i]) && c.Seqs[i].L() > 0 {
					p.ReconfigLength(c.Seqs[i].L())
					jobs = append(jobs, vitfilter.Job{Dsq: c.Seqs[i].Dsq, XW: p.Vit.XW})
					at = append(at, i)
				}
			}
			sc := make([]float32, len(jobs))
			vitfilter.ScoreBatch(&p.Vit, jobs, sc)
			for j, i := range at {
				out[i] = sc[j]
			}
		}(w)
	}
	wg.Wait()
	return out, nil
}

// Forward implements Accelerator: it leaves every target to the
// workers, which score them on the grouped kernels and keep the parser
// rows of those passing F3 for domain definition (forwardGroup).
func (c CPUAccelerator) Forward(*oprofile.Profile, []bool) (ForwardResult, error) {
	return ForwardResult{}, nil
}

// Parsers implements Accelerator: the workers have kept the Forward
// survivors' rows and run Backward on them.
func (c CPUAccelerator) Parsers(*oprofile.Profile, []bool) ([]fwdback.Parser, error) {
	return nil, nil
}

// inLengthOrder sorts order (target numbers of seqs) shortest first, ties
// by number: the order the grouped kernels take their targets in
// (kernelGroups).
func inLengthOrder(order []int, seqs []*seqio.Sequence) {
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(len(seqs[a].Dsq)-len(seqs[b].Dsq), a-b) })
}
