package hmmsearch

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/biasfilter"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/msvfilter"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/hmmer3/vitfilter"
	"github.com/hmmgo/hmmgo/internal/lenorder"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

// normalizeGPUArgs turns "--gpu LIST" into "--gpu=LIST" and a bare
// "--gpu" into "--gpu=yes", since Easel's option rules give an option
// either always or never a value.
func normalizeGPUArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--gpu" && i+1 < len(args) && len(devices.NormalizeArgs(args[i:i+2])) == 1:
			out = append(out, "--gpu="+args[i+1])
			i++
		case a == "--gpu":
			out = append(out, "--gpu=yes")
		default:
			out = append(out, a)
		}
	}
	return out
}

// gpuRequest reads --gpu/--nogpu.
func (s *search) gpuRequest() (devices.Request, error) {
	if s.g.isOn("--nogpu") {
		return devices.Request{Mode: devices.Never}, nil
	}
	if !s.g.isOn("--gpu") {
		return devices.Request{Mode: devices.Auto}, nil
	}
	v := s.g.str("--gpu")
	if v == "yes" {
		v = ""
	}
	return devices.ParseGPU(v)
}

// gpuKernels is one device's filter and parser kernels. They are made
// once per process and shared by every set of targets resident on the
// device (a worker keeps several blocks resident; each would otherwise
// load its own modules and scratch buffers).
type gpuKernels struct {
	dev    *cuda.Device
	ctx    *cuda.Context
	filter *msvfilter.GPU
	vit    *vitfilter.GPU
	fwd    *fwdback.GPU
	bias   *biasfilter.GPU
}

// openKernels makes the kernels of each device, the devices at once: a
// context takes the driver about 0.13 s (two H200s one after the other
// started 0.13 s later than one, docs/BENCHMARKS.md).
func openKernels(devs []*cuda.Device) ([]*gpuKernels, error) {
	out := make([]*gpuKernels, len(devs))
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for i, dev := range devs {
		wg.Go(func() {
			ctx, err := dev.Context()
			if err != nil {
				errs[i] = err
				return
			}
			out[i] = &gpuKernels{dev: dev, ctx: ctx, filter: msvfilter.NewGPU(ctx), vit: vitfilter.NewGPU(ctx), fwd: fwdback.NewGPU(ctx), bias: biasfilter.NewGPU(ctx)}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// gpuSearch runs the bulk pipeline stages (MSV, Viterbi filter,
// Forward/Backward parsers) of every query on GPUs over targets kept
// resident: hmmsearch --gpu uploads the whole database once for all its
// queries; a worker uploads each block of targets once for all the tasks
// that search it.
type gpuSearch struct {
	gpus []*gpuKernels
	// devs are the devices whose kernels openKernelsAsync is making;
	// kernelsReady closes when gpus (or kernelsErr) is set, kernelsAt.
	devs         []*cuda.Device
	kernelsReady chan struct{}
	kernelsErr   error
	kernelsAt    time.Time
	marks        func(step string, at time.Time) // start-up timeline ($HMMGO_STAGE_TIMES)
	seqs         []*seqio.Sequence
	abc          *alphabet.Alphabet
	parts        []*gpuPart
	// launches is how many filter launches of a family a device admits
	// at once (filterGates): filterLaunchesAtOnce for a search of the
	// whole database; 0, as many as it has lanes (a worker's blocks,
	// whose kernels are latency-bound and overlap).
	launches int
	deal     *dealState // queries dealt to devices that each hold every target (gpudeal.go); nil: split
	lens     []int32    // each target's length, database order (Lengths)
	// forward says where Forward and the parsers run ($HMMGO_GPU_FORWARD
	// through forwardMode, unset "bound"): "gpu", "cpu", or the exact
	// kernel by the cost rule and the parsers by batch size when empty;
	// "filter" puts every Forward filter batch on the GPU and leaves the
	// parsers to the batch-size rule; "bound" does the same with the
	// bound kernel (fwdback.ForwardBoundBatch), whose scores the staged
	// search uses to fail targets for certain and scores the others
	// exactly on the CPU. With "gpu" the parsers of every
	// query run on the GPU too, under the same device lock as the filter
	// batches (docs/fwdbatch.md: that, not the filter, made forced runs
	// slow).
	forward string
	// bias is "cpu" to leave the bias filter to the CPU workers
	// ($HMMGO_GPU_BIAS, for benchmarks); otherwise the GPUs compute it.
	bias string
	// envelopes divides domain definition's envelopes between the GPUs
	// and the cores ($HMMGO_GPU_DOMAINS=gpu or a share), each GPU call on
	// the next device in turn; nil: the cores rescore them all.
	envelopes *pipeline.EnvelopeShare
	nextEnv   atomic.Uint32
	// split is $HMMGO_GPU_SPLIT ("db", "queries" or empty: by size; gpudeal.go).
	split string
	cost  forwardCost // the batched Forward's cost rule
	// fwdLaunches is how many Forward batches a device may have in
	// flight ($HMMGO_FWD_LAUNCHES; 0: one).
	fwdLaunches int
	trace       io.Writer // one line per Forward batch, when set
	batchMu     sync.Mutex
	batchers    map[*gpuPart]*forwardBatcher // by device when queries are dealt; nil key: all devices
	// failures makes devices fail on purpose ($HMMGO_GPU_FAIL, gpufail.go):
	// the call that fails, by ordinal.
	failures map[int]failure
	// handBack: a device that fails leaves the run and its work goes on
	// without it (hmmsearch --gpu, gpufail.go); otherwise a failed call's
	// error is the caller's (a worker's task frees its other blocks and
	// tries again).
	handBack bool
	warn     func(string) // says on stderr that a device left the run
	fault    atomic.Bool  // a fault took every device out (gpuSearch.fail)

	// The contexts are given back once the last query has started and
	// every query's device calls are done (gpurelease.go).
	inflight    atomic.Int64 // queries started and not done with the devices
	allStarted  atomic.Bool
	releaseOnce sync.Once
	releasing   atomic.Pointer[chan struct{}] // closed when released
	releaseFrom time.Time
	releaseTo   time.Time // set before releasing closes
}

// gpuForwardMinTargets is the smallest batch of Forward survivors whose
// parsers (the Forward and Backward rows domain definition needs) run on
// the GPU by default; the Forward filter itself goes through the batcher's
// cost rule (fwdbatch.go). The kernel gives each target four threads that walk its
// rows one after another, so a batch needs tens of thousands of targets to
// fill the device, and one long target takes longer there than the whole
// batch on the cores. Measured on an H100 with 16 cores (docs/BENCHMARKS.md,
// 175M residues): the ~1,000 Viterbi survivors of a default query took
// 0.04-4.2 s on the GPU, many times the workers' time; at 38,000-53,000
// survivors (--F1 0.1 --F2 0.1) the GPU took 0.9-4.6 s against the
// workers' 1.5-11.1 s.
const gpuForwardMinTargets = 20_000

// forwardOnGPU decides where the parsers of the targets with want[i] run.
func (g *gpuSearch) forwardOnGPU(want []bool) bool {
	switch g.forward {
	case "gpu":
		return true
	case "cpu":
		return false
	}
	n := 0
	for _, w := range want {
		if w {
			n++
		}
	}
	return n >= gpuForwardMinTargets
}

type gpuPart struct {
	k     *gpuKernels
	gates filterGates
	db    *gpudb.DB
	index []int   // database number of each of this device's targets
	lens  []int32 // their lengths, read per query without touching the sequences
	pos   []int32 // each database target's place in index, -1 on another device
	partHealth
	partTargets
}

// openKernels makes the kernels of g.devs now.
func (g *gpuSearch) openKernels() error {
	var err error
	g.gpus, err = openKernels(g.devs)
	return err
}

// openKernelsAsync makes the kernels of g.devs in the background;
// awaitKernels waits for them.
func (g *gpuSearch) openKernelsAsync() {
	g.kernelsReady = make(chan struct{})
	go func() {
		defer close(g.kernelsReady)
		g.kernelsErr = g.openKernels()
		g.kernelsAt = time.Now()
	}()
}

func (g *gpuSearch) awaitKernels() error {
	if g.kernelsReady != nil {
		<-g.kernelsReady
	}
	return g.kernelsErr
}

// load reads the whole database (in the query's alphabet) and makes it
// resident.
func (g *gpuSearch) load(src pipeline.SequenceSource, abc *alphabet.Alphabet) error {
	l, err := readTargets(src, nil)
	if err != nil {
		return err
	}
	g.mark("database read", time.Now())
	return g.place(l, abc)
}

// place makes the targets resident once the contexts are made: the split
// over the devices, host work only, goes first, beside the driver.
func (g *gpuSearch) place(l *loaded, abc *alphabet.Alphabet) error {
	seqs := l.seqs
	g.seqs, g.abc = seqs, abc
	g.lens = make([]int32, len(seqs))
	for i, sq := range seqs {
		g.lens[i] = int32(len(sq.Dsq))
	}
	split := planSplit(seqs, l.stored, g.dealMode(seqs), len(g.devices()))
	split.residues = l.residues
	if err := g.awaitKernels(); err != nil {
		return err
	}
	if g.kernelsReady != nil {
		g.mark("contexts and kernels ready (made beside the reading)", g.kernelsAt)
	}
	g.attach(split)
	g.precompileShared()
	g.mark("database split over the GPUs", time.Now())
	return nil
}

// loaded is a database read whole for the devices: its targets and,
// from a makedb file, the layouts' plan it stores and its residues as
// mapped, which a device copy can take as they are.
type loaded struct {
	seqs     []*seqio.Sequence
	stored   *gpudb.StoredPlan
	residues []byte
}

// readTargets reads every target of src, and from a makedb file read
// whole, in order (a shard's subset is not), its plan and residues.
// Closing stop (nil: never) ends the read with errReadStopped.
func readTargets(src pipeline.SequenceSource, stop <-chan struct{}) (*loaded, error) {
	l := &loaded{}
	if s, ok := src.(*seqdb.Source); ok {
		sp, err := gpudb.LoadStoredPlan(s.DB())
		if err != nil {
			return nil, err
		}
		l.stored, l.residues = sp, s.DB().ResidueSection()
	}
	for {
		sq, err := src.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		l.seqs = append(l.seqs, sq)
		if len(l.seqs)%4096 == 0 && stopped(stop) {
			return nil, errReadStopped
		}
	}
	if l.stored != nil && len(l.stored.Order) != len(l.seqs) {
		l.stored = nil // a source already part read
	}
	return l, nil
}

// mark notes when a start-up step ended on the run's timeline, if kept.
func (g *gpuSearch) mark(step string, at time.Time) {
	if g.marks != nil {
		g.marks(step, at)
	}
}

// uploadResidues starts copying every device's residues, which the
// first query's layouts need, while that query plans them on the host.
func (g *gpuSearch) uploadResidues() {
	for _, p := range g.parts {
		if p.k.ctx != nil { // (tests place targets without devices)
			go p.db.UploadResidues()
		}
	}
}

// precompileShared compiles the kernels every model uses while the
// first query is prepared: the packing kernel (for the first layout) and
// the bias and Forward kernels.
func (g *gpuSearch) precompileShared() {
	done := map[nvrtc.Target]bool{}
	for _, k := range g.gpus {
		if t := (nvrtc.Target{Major: k.dev.Major, Minor: k.dev.Minor}); !done[t] {
			done[t] = true
			gpudb.Precompile(t)
			if g.bias != "cpu" {
				biasfilter.Precompile(t)
			}
			switch g.forward {
			case "cpu":
			case "bound":
				fwdback.PrecompileBound(t)
			default:
				fwdback.PrecompileBatch(t)
			}
		}
	}
}

// splitPlan is the database dealt out to n devices, on the host: each
// part's targets and their residues, and the stored plan where it
// serves every part.
type splitPlan struct {
	parts    []*gpuPart
	dsqs     [][][]byte
	stored   *gpudb.StoredPlan
	residues []byte // see loaded
	deal     bool
}

// planSplit deals the targets out to n devices round-robin in length
// order, so every device gets the same mix of lengths (ClawHMMER's
// interleaved partitions): each device's targets are longest first. The
// order is the stored plan's when there is one (no sort here). One device
// holds the whole database in that order, which is what the stored block
// tables number; several hold other sets, and plan their own layouts.
// With deal, every device holds the whole database (gpudeal.go).
func planSplit(seqs []*seqio.Sequence, stored *gpudb.StoredPlan, deal bool, n int) *splitPlan {
	var order []int
	if stored != nil && len(stored.Order) == len(seqs) {
		order = stored.Order
	} else {
		stored = nil
		order = lenorder.LongestFirst(len(seqs), func(i int) int { return len(seqs[i].Dsq) })
	}
	stride := n
	if deal {
		stride = 1
	}
	if stride != 1 {
		stored = nil
	}
	sp := &splitPlan{parts: make([]*gpuPart, n), dsqs: make([][][]byte, n), stored: stored, deal: deal}
	for d := range n {
		first := d
		if deal {
			first = 0
		}
		// Sized up front: appending half a million targets one at a time
		// grew these slices ~30 times over, on the start-up's critical
		// path (docs/BENCHMARKS.md).
		size := (len(order) - first + stride - 1) / stride
		p := &gpuPart{index: make([]int, 0, size), lens: make([]int32, 0, size)}
		dsqs := make([][]byte, 0, size)
		for r := first; r < len(order); r += stride {
			p.index = append(p.index, order[r])
			p.lens = append(p.lens, int32(len(seqs[order[r]].Dsq)))
			dsqs = append(dsqs, seqs[order[r]].Dsq)
		}
		p.setPositions(len(seqs))
		sp.parts[d], sp.dsqs[d] = p, dsqs
	}
	return sp
}

// attach gives the planned parts their devices' kernels and databases.
func (g *gpuSearch) attach(sp *splitPlan) {
	if sp.deal {
		g.deal = &dealState{running: make([]atomic.Int32, len(sp.parts))}
	}
	for d, p := range sp.parts {
		p.k, p.gates = g.gpus[d], newFilterGates(g.launches)
		p.ordinal = d
		if p.k.dev != nil {
			p.ordinal = p.k.dev.Ordinal
		}
		p.failure = g.failures[p.ordinal]
		p.db = gpudb.New(p.k.ctx, sp.dsqs[d])
		if sp.stored != nil {
			p.db.UseStoredPlan(sp.stored)
		}
		if sp.residues != nil {
			p.db.UseResidues(sp.residues)
		}
	}
	g.parts = sp.parts
}

// devices are the devices of the search: those selected, or those of its
// kernels.
func (g *gpuSearch) devices() []*cuda.Device {
	if g.devs != nil {
		return g.devs
	}
	devs := make([]*cuda.Device, len(g.gpus))
	for i, k := range g.gpus {
		devs[i] = k.dev
	}
	return devs
}

// eachPart runs fn on every device of parts at once and returns the
// first error.
func eachPart(parts []*gpuPart, fn func(d int, p *gpuPart) error) error {
	errs := make([]error, len(parts))
	one := func(d int, p *gpuPart) {
		err := fn(d, p)
		if err != nil && !isDeviceError(err) {
			err = fmt.Errorf("GPU %d: %w", p.ordinal, err)
		}
		errs[d] = err
	}
	// The last part runs on the caller: with one GPU, no goroutine to
	// start and wait for on each filter stage of each query.
	var wg sync.WaitGroup
	last := len(parts) - 1
	for d, p := range parts[:max(0, last)] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one(d, p)
		}()
	}
	if last >= 0 {
		one(last, parts[last])
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Lengths implements pipeline.TargetLengths.
func (g *gpuSearch) Lengths() []int32 { return g.lens }

// MSV implements pipeline.Accelerator: every target's MSV filter score.
func (g *gpuSearch) MSV(om *oprofile.Profile) ([]float32, error) {
	sc, _, err := g.msv(g.parts, om, 0, false, nil)
	return sc, err
}

// msv is MSV on some devices; own: in the order of the one device of
// parts (gpuorder.go), so its scores are the query's as they are, and
// with least its device lists the targets at or above it
// (pipeline.MSVCandidates; not when the cores compute them).
func (g *gpuSearch) msv(parts []*gpuPart, om *oprofile.Profile, rank int64, own bool, least func(L int) float32) ([]float32, []int, error) {
	scores := dbScores.Get(len(g.seqs)) // every element is set below
	var above []int
	err := eachPart(parts, func(d int, p *gpuPart) error {
		out := scores
		if !own {
			out = partScores.Get(len(p.index))
			defer partScores.Put(out)
		}
		err := g.call(p, func() error {
			defer p.gates.enter(msvGate, rank)()
			if own && least != nil {
				var err error
				above, err = p.k.filter.ScoresAbove(&om.MSV, g.abc.Kp, p.db, out, least)
				return err
			}
			return p.k.filter.Scores(&om.MSV, g.abc.Kp, p.db, out)
		}, func() error {
			if own {
				above = nil // the cores make no list
			}
			sc, err := g.host(p).MSV(om)
			copy(out, sc)
			return err
		})
		if err != nil || own {
			return err
		}
		p.scatter(out, nil, scores)
		return nil
	})
	return scores, above, err
}

// selectedScores runs one device's filter over the targets with want[i]
// (database order, or with own the order of the one device of parts)
// and puts their scores into scores; the others keep what they held,
// which the pipeline never reads. host computes the same scores on the
// cores, for a device out of the run.
func (g *gpuSearch) selectedScores(parts []*gpuPart, want []bool, scores []float32, own bool, run, host func(p *gpuPart, sel []bool, out []float32) error) error {
	return eachPart(parts, func(d int, p *gpuPart) error {
		sel, out := want, scores
		if own {
			if !anyWanted(want) {
				return nil
			}
		} else {
			sel = partSel.Get(len(p.index))
			defer partSel.Put(sel)
			if !p.selectPart(want, sel) {
				return nil
			}
			out = partScores.Get(len(p.index))
			defer partScores.Put(out)
		}
		err := g.call(p, func() error { return run(p, sel, out) }, func() error { return host(p, sel, out) })
		if err != nil || own {
			return err
		}
		p.scatter(out, want, scores)
		return nil
	})
}

// Viterbi implements pipeline.Accelerator for the targets with want[i].
func (g *gpuSearch) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	return g.viterbi(g.parts, om, want, 0, false)
}

func (g *gpuSearch) viterbi(parts []*gpuPart, om *oprofile.Profile, want []bool, rank int64, own bool) ([]float32, error) {
	scores := dbScores.Get(len(g.seqs))
	err := g.selectedScores(parts, want, scores, own, func(p *gpuPart, sel []bool, out []float32) error {
		defer p.gates.enter(vitGate, rank)()
		return p.k.vit.Scores(&om.Vit, g.abc.Kp, p.db, sel, out)
	}, func(p *gpuPart, sel []bool, out []float32) error {
		sc, err := g.host(p).Viterbi(om, sel)
		copy(out, sc)
		return err
	})
	return scores, err
}

// Bias implements pipeline.BiasAccelerator: the bias filter scores of the
// targets with want[i] (the MSV survivors), or nil with $HMMGO_GPU_BIAS=cpu.
func (g *gpuSearch) Bias(bg *profile.Background, want []bool) ([]float32, error) {
	return g.biasScores(g.parts, bg, want, 0, false)
}

func (g *gpuSearch) biasScores(parts []*gpuPart, bg *profile.Background, want []bool, rank int64, own bool) ([]float32, error) {
	if g.bias == "cpu" {
		return nil, nil
	}
	scores := dbScores.Get(len(g.seqs))
	err := g.selectedScores(parts, want, scores, own, func(p *gpuPart, sel []bool, out []float32) error {
		defer p.gates.enter(biasGate, rank)()
		return p.k.bias.Scores(bg, p.db, sel, out)
	}, func(p *gpuPart, sel []bool, out []float32) error {
		g.hostBias(p, bg, sel, out)
		return nil
	})
	return scores, err
}

// Forward implements pipeline.Accelerator for the targets with want[i]:
// the request joins the batch of the queries in flight (forwardBatcher),
// and the scores come back for the targets the cost rule gave the device.
func (g *gpuSearch) Forward(om *oprofile.Profile, want []bool) (pipeline.ForwardResult, error) {
	return g.forwardOn(g.parts, om, want, false)
}

// forwardOn is Forward on some devices: their own batcher, so that
// queries dealt to different devices batch and launch independently.
// With own, want is in the order of the one device of parts: a search
// makes its queries all in that order or all in the database's
// (gpuSearch.ownOrder), so a batcher sees only one of them.
func (g *gpuSearch) forwardOn(parts []*gpuPart, om *oprofile.Profile, want []bool, own bool) (pipeline.ForwardResult, error) {
	if g.forward == "cpu" {
		return pipeline.ForwardResult{}, nil
	}
	bound := g.forward == "bound"
	var key *gpuPart
	if len(parts) < len(g.parts) {
		key = parts[0]
	}
	g.batchMu.Lock()
	b := g.batchers[key]
	if b == nil {
		force := g.forward
		if force == "filter" {
			force = "gpu"
		}
		launch := func(reqs []*fwdRequest, sel [][]int) ([][]float32, error) {
			return g.launchForward(parts, reqs, sel, bound, own)
		}
		lengths := g.lens
		if own {
			lengths = parts[0].lens
		}
		b = &forwardBatcher{launch: launch, cost: g.cost, lengths: lengths, force: force, trace: g.trace, runnable: runnableGoroutines, launches: g.fwdLaunches}
		if g.batchers == nil {
			g.batchers = map[*gpuPart]*forwardBatcher{}
		}
		g.batchers[key] = b
	}
	g.batchMu.Unlock()
	scores, onGPU, err := b.forward(om, want)
	res := pipeline.ForwardResult{Scores: scores, Computed: onGPU}
	if bound && scores != nil {
		M := om.M
		res.Margin = func(L int, sc float32) float32 { return fwdback.BoundMargin(L, M, sc) }
	}
	return res, err
}

// launchForward is a batcher's launch: each of its devices takes its
// share of every request's selected targets (sel[k], database numbers,
// or with own places on the one device of parts), all requests in one
// kernel launch. The scores come back indexed like sel[k]: exact, or
// from the bound kernel (fwdback.ForwardBoundBatch).
func (g *gpuSearch) launchForward(parts []*gpuPart, reqs []*fwdRequest, sel [][]int, bound, own bool) ([][]float32, error) {
	scores := make([][]float32, len(reqs))
	for k := range reqs {
		scores[k] = make([]float32, len(sel[k]))
	}
	err := eachPart(parts, func(d int, p *gpuPart) error {
		jobs := make([]fwdback.BatchJob, len(reqs))
		slots := make([][]int, len(reqs)) // where each job's k-th score goes in scores[r]
		for k, r := range reqs {
			index := make([]int, 0, len(sel[k]))
			for j, db := range sel[k] {
				i := db
				if !own {
					i = int(p.pos[db])
				}
				if i >= 0 {
					index = append(index, i)
					slots[k] = append(slots[k], j)
				}
			}
			jobs[k] = fwdback.BatchJob{OM: r.om, Targets: p.db.Dsqs, Index: index}
		}
		var res []fwdback.BatchResult
		err := g.call(p, func() error {
			batch := p.k.fwd.ForwardBatch
			if bound {
				batch = p.k.fwd.ForwardBoundBatch
			}
			var err error
			res, err = batch(jobs)
			return err
		}, func() error {
			// Not computed: the workers score these targets.
			for k := range reqs {
				for _, j := range slots[k] {
					scores[k][j] = float32(math.NaN())
				}
			}
			return nil
		})
		if err != nil || res == nil {
			return err
		}
		if g.trace != nil {
			t := p.k.fwd.LastBatch
			fmt.Fprintf(g.trace, "fwdlaunch gpu=%d plan_ms=%.2f launch_ms=%.2f kernel_ms=%.2f assemble_ms=%.2f shape=%q\n", d,
				ms(t.Plan), ms(t.Launch), ms(t.Kernel), ms(t.Assemble), t.Shape)
		}
		for k := range reqs {
			for n, j := range slots[k] {
				if e := res[k].Errs[n]; e != nil {
					if bound { // no bound: the workers score it exactly
						scores[k][j] = float32(math.NaN())
						continue
					}
					return fmt.Errorf("%s: %w", g.partSeqs(p)[jobs[k].Index[n]].Name, e)
				}
				scores[k][j] = res[k].Scores[n]
			}
		}
		return nil
	})
	return scores, err
}

// Parsers implements pipeline.Accelerator for the targets with want[i].
func (g *gpuSearch) Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error) {
	return g.parsers(g.parts, om, want, false)
}

// parsers is Parsers on some devices; with own, want and the parsers
// are in the order of the one device of parts.
func (g *gpuSearch) parsers(parts []*gpuPart, om *oprofile.Profile, want []bool, own bool) ([]fwdback.Parser, error) {
	if !g.forwardOnGPU(want) {
		return nil, nil
	}
	out := make([]fwdback.Parser, len(g.seqs))
	err := eachPart(parts, func(d int, p *gpuPart) error {
		var dsqs [][]byte
		var which []int
		for k, db := range p.index {
			if own {
				db = k
			}
			if want[db] {
				dsqs = append(dsqs, g.partSeqs(p)[k].Dsq)
				which = append(which, db)
			}
		}
		if len(dsqs) == 0 {
			return nil
		}
		// Out of the run, the parsers stay zero: the workers compute them.
		return g.call(p, func() error {
			ps, err := p.k.fwd.Parsers(om, dsqs, nil)
			if err != nil {
				return err
			}
			for j, db := range which {
				out[db] = ps[j]
			}
			return nil
		}, func() error { return nil })
	})
	return out, err
}

// EnvelopeShare implements pipeline.EnvelopeAccelerator.
func (g *gpuSearch) EnvelopeShare() *pipeline.EnvelopeShare { return g.envelopes }

// RescoreEnvelopes implements pipeline.EnvelopeAccelerator: the jobs
// carry their residues, so any device still in the run can take them.
// An error leaves them to the cores.
func (g *gpuSearch) RescoreEnvelopes(om *oprofile.Profile, jobs []fwdback.EnvJob) ([]fwdback.EnvResult, error) {
	if err := g.awaitKernels(); err != nil {
		return nil, err
	}
	next := int(g.nextEnv.Add(1) - 1)
	for t := range g.parts {
		p := g.parts[(next+t)%len(g.parts)]
		if p.down.Load() {
			continue
		}
		var res []fwdback.EnvResult
		err := g.call(p, func() error {
			var err error
			res, err = p.k.fwd.RescoreEnvelopes(om, jobs)
			return err
		}, func() error { return errNoDevice })
		return res, err
	}
	return nil, errNoDevice
}

// free releases the device memory of the resident targets, unless the
// contexts are being given back already.
func (g *gpuSearch) free() {
	if g.releaseStarted() {
		return
	}
	for _, p := range g.parts {
		if p != nil {
			p.db.Free()
		}
	}
}

var (
	_ pipeline.BiasAccelerator     = (*gpuSearch)(nil)
	_ pipeline.EnvelopeAccelerator = (*gpuSearch)(nil)
	_ pipeline.ScoreRecycler       = (*gpuSearch)(nil)
	_ pipeline.TargetLengths       = (*gpuSearch)(nil)
)

// readAhead reads models ahead of the search and starts compiling the GPU
// kernels each will need (they are specialised on the model's length), so
// that NVRTC works on idle cores while the queries before it search.
type readAhead struct {
	models chan readModel
	stop   chan struct{}
}

type readModel struct {
	h   *hmm.HMM
	err error
}

// modelsAhead is how many models may be read ahead of the search.
const modelsAhead = 64

func (g *gpuSearch) readAhead(r ModelReader) *readAhead {
	devs := g.devices()
	ra := &readAhead{models: make(chan readModel, modelsAhead), stop: make(chan struct{})}
	go func() {
		defer close(ra.models)
		for {
			h, err := r.Read()
			if err == nil {
				precompileFor(devs, h)
			}
			select {
			case ra.models <- readModel{h, err}:
			case <-ra.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

// Read returns the next model, or the reader's error (io.EOF at the end).
func (ra *readAhead) Read() (*hmm.HMM, error) {
	m, ok := <-ra.models
	if !ok {
		return nil, io.EOF
	}
	return m.h, m.err
}

// close stops reading ahead.
func (ra *readAhead) close() { close(ra.stop) }

// precompile starts the NVRTC compilations of h's filter kernels for every
// kind of device in use.
func precompile(gpus []*gpuKernels, h *hmm.HMM) {
	devs := make([]*cuda.Device, len(gpus))
	for i, k := range gpus {
		devs[i] = k.dev
	}
	precompileFor(devs, h)
}

// precompileFor is precompile by the devices alone (their kernels may
// still be in the making).
func precompileFor(devs []*cuda.Device, h *hmm.HMM) {
	done := map[nvrtc.Target]bool{}
	for _, d := range devs {
		t := nvrtc.Target{Major: d.Major, Minor: d.Minor}
		if !done[t] {
			done[t] = true
			msvfilter.Precompile(h.M, h.Alph.Kp, t)
			vitfilter.Precompile(h.M, h.Alph.Kp, t)
		}
	}
}

// envelopeShare reads $HMMGO_GPU_DOMAINS, who rescores domain
// definition's envelopes in a GPU search: "gpu" the GPUs
// (fwdback.GPU.RescoreEnvelopes), a number from 0 to 1 the GPUs and the
// workers at once, that fraction of the cells for the workers
// (pipeline.EnvelopeShare), and unset or "cpu" (nil) the workers alone.
func envelopeShare(v string) (*pipeline.EnvelopeShare, error) {
	switch v {
	case "", "cpu":
		return nil, nil
	case "gpu":
		return pipeline.NewEnvelopeShare(0), nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
		return pipeline.NewEnvelopeShare(f), nil
	}
	return nil, fmt.Errorf("HMMGO_GPU_DOMAINS is %q: say gpu, cpu or the cores' share of the envelopes (0 to 1), or leave it unset (cpu)", v)
}
