package fwdback

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The program: fwd.cu, then bwd.cu, which uses fwd.cu's definitions, and
// envelope rescoring's envdecode.cu, envbwd.cu, envfwd.cu and
// envtrace.cu, which use the files' before them and are compiled only
// with ENV_KERNELS (fwdShape.Env).
var (
	//go:embed fwd.cu
	fwdSource string
	//go:embed bwd.cu
	bwdSource string
	//go:embed envdecode.cu
	envDecodeSource string
	//go:embed envbwd.cu
	envBwdSource string
	//go:embed envfwd.cu
	envFwdSource string
	//go:embed envtrace.cu
	envTraceSource string
	cudaSource     = fwdSource + "\n" + bwdSource + "\n" + envDecodeSource + "\n" + envBwdSource + "\n" + envFwdSource + "\n" + envTraceSource
)

// threadsPerTarget is the kernel's lane split: one thread per SSE lane.
const threadsPerTarget = 4

// nvrtcOptions keep IEEE single precision as hmmsearch computes it: no
// FMA contraction, correctly rounded division and square root, subnormal
// results flushed to zero by x86's own rule (fwd.cu gives the measurement,
// and why flushing subnormal inputs too is safe).
var nvrtcOptions = []string{"--fmad=false", "--ftz=true", "--prec-div=true", "--prec-sqrt=true"}

// GPU computes Forward parser scores on one device, identical to Forward's.
type GPU struct {
	ctx     *cuda.Context
	mu      sync.Mutex
	kernels map[fwdShape]shapeKernels
	// sharedSet is the dynamic shared memory each program's kernels are
	// allowed so far (kernel).
	sharedSet map[fwdShape]int
	bufs      *gpudb.Buffers
	// Placement overrides where the kernel keeps profile and row state
	// (benchmarks); the default picks by model size.
	Placement Placement
	// KernelTime accumulates device time (CUDA events), for benchmarks.
	KernelTime time.Duration
	// LastKernel is the device time of the last batched launch.
	LastKernel time.Duration
	// LastBatch is where the last ForwardBatch call's time went.
	LastBatch BatchTimes
	// LastShape describes the last launch: placement, threads per block,
	// blocks and shared memory (benchmarks).
	LastShape string
	// MultiPipe is fwd_multi_kernel's row walk (fwd.cu's FWD_PIPE): 0 the
	// plain walk, n the pipelined one with chunks of n steps. NewGPU sets
	// defaultMultiPipe, or $HMMGO_FWD_PIPE (benchmarks).
	MultiPipe int
	// lanes give ForwardBatch a stream and buffers of its own, so that its
	// launch neither waits for nor stalls the filter kernels of other
	// queries (as the default stream, cuCtxSynchronize and cuMemFree do).
	lanes *gpudb.Lanes
	// envLanes are RescoreEnvelopes' streams and buffers: a query's
	// envelopes then neither wait for nor stall the Forward batches.
	envLanes *gpudb.Lanes
}

// shapeKernels are the kernels of one compiled program, by the places
// below; kernelNames names them.
type shapeKernels [nKernels]*cuda.Function

const (
	kFwd = iota
	kBwd
	kFwdMulti  // none with the profile in shared memory
	kEnvDecode // this and the rest only with ENV_KERNELS
	kEnvTrace
	kEnvBwd
	kEnvFwd
	nKernels
)

var kernelNames = [nKernels]string{"fwd_kernel", "bwd_kernel", "fwd_multi_kernel",
	"env_decode_kernel", "env_trace_kernel", "env_bwd_kernel", "env_fwd_kernel"}

// defaultMultiPipe is the chunked walk's chunk: 16 was fastest of 0
// (the plain walk), 4, 8 and 16 at every M of TestGPUBatchLatency on an
// H100 (docs/fwdbatch.md), with 127-128 registers and no spills.
const defaultMultiPipe = 16

// NewGPU prepares Forward on a device context.
func NewGPU(ctx *cuda.Context) *GPU {
	return &GPU{ctx: ctx, kernels: map[fwdShape]shapeKernels{}, sharedSet: map[fwdShape]int{}, bufs: gpudb.NewBuffers(ctx), MultiPipe: multiPipeFromEnv(),
		lanes: gpudb.NewLanes(ctx, 2), envLanes: gpudb.NewOrderedLanes(ctx, envLanesPerGPU)}
}

// multiPipeFromEnv is defaultMultiPipe, or $HMMGO_FWD_PIPE (benchmarks).
func multiPipeFromEnv() int {
	if n, err := strconv.Atoi(os.Getenv("HMMGO_FWD_PIPE")); err == nil && n >= 0 && n <= 16 {
		return n
	}
	return defaultMultiPipe
}

func (g *GPU) limits() deviceLimits {
	d := g.ctx.Device()
	return deviceLimits{SMs: d.Multiprocessors, SharedOptin: d.SharedMemPerBlockOptin, SharedPerSM: d.SharedMemPerSM, ThreadsPerSM: d.MaxThreadsPerSM}
}

// kernel returns the Forward and Backward kernels of a shape, compiled
// on first use and allowed the shape's shared memory.
func (g *GPU) kernel(s fwdShape) (fwd, bwd *cuda.Function, err error) {
	key := s.key()
	fs, ok := g.kernels[key]
	if !ok {
		k, err := nvrtc.Build(g.ctx, program(s))
		if err != nil {
			return nil, nil, err
		}
		for i, name := range kernelNames {
			if i == kFwdMulti && s.ProfShared || i >= kEnvDecode && !s.Env {
				continue
			}
			if fs[i], err = k.Function(name); err != nil {
				return nil, nil, err
			}
		}
		g.kernels[key] = fs
	}
	// The limit only ever rises: ForwardBatch launches after it lets go
	// of g.mu, so a second batch (or a parser launch) that lowered it
	// for a smaller shape would make the first one's launch fail
	// (CUDA_ERROR_INVALID_VALUE, seen with two batches in flight on an
	// H100). A higher limit than a launch asks for changes nothing.
	if s.sharedBytes > g.sharedSet[key] {
		for _, f := range fs {
			if f == nil {
				continue
			}
			if err := f.SetMaxDynamicSharedMemory(s.sharedBytes); err != nil {
				return nil, nil, err
			}
		}
		g.sharedSet[key] = s.sharedBytes
	}
	return fs[kFwd], fs[kBwd], nil
}

// program is the source and options of a shape's kernels.
func program(s fwdShape) nvrtc.Program {
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	opts := append([]string{fmt.Sprintf("-DBLOCK=%d", s.Block), fmt.Sprintf("-DPROF_SHARED=%d", b2i(s.ProfShared)),
		fmt.Sprintf("-DSTATE_SHARED=%d", b2i(s.StateShared)), fmt.Sprintf("-DFWD_PIPE=%d", s.Pipe), fmt.Sprintf("-DENV_KERNELS=%d", b2i(s.Env))}, nvrtcOptions...)
	return nvrtc.Program{Name: "fwdback.cu", Source: cudaSource, Options: opts}
}

// PrecompileBatch starts compiling (or reading from the disk cache) the
// two programs ForwardBatch's chunked walk uses, row state shared or not,
// for devices of target t: a batch otherwise waits for them under the
// device lock, and so do the queries in it (in a traced 1,000-model run,
// the first four launches waited 1.5 s each on three compilations).
func PrecompileBatch(t nvrtc.Target) {
	pipe := multiPipeFromEnv()
	if pipe == 0 {
		return // the plain walk's block size depends on the batch
	}
	for _, shared := range []bool{true, false} {
		nvrtc.Prefetch(program(fwdShape{Block: 32 * pipeWarps, StateShared: shared, Pipe: pipe}), t, nvrtc.DefaultCache())
	}
}

// multiKernel returns fwd_multi_kernel of a shape (ProfShared false).
func (g *GPU) multiKernel(s fwdShape) (*cuda.Function, error) {
	if _, _, err := g.kernel(s); err != nil {
		return nil, err
	}
	return g.kernels[s.key()][kFwdMulti], nil
}

// key is what a compiled program depends on.
func (s fwdShape) key() fwdShape {
	return fwdShape{Block: s.Block, ProfShared: s.ProfShared, StateShared: s.StateShared, Pipe: s.Pipe, Env: s.Env}
}

// ForwardBatch computes the Forward filter scores of several queries'
// targets in one launch of fwd_multi_kernel: for each job, exactly what
// ForwardScores(job.OM, job.Targets, nil) returns for the targets with
// job.Want[i] (zero and nil for the others). One query's Viterbi
// survivors (~1,000) give the device about a warp per SM; a batch of the
// queries in flight gives it several, and the kernel time is set by the
// longest block of the batch rather than one per query.
func (g *GPU) ForwardBatch(jobs []BatchJob) ([]BatchResult, error) {
	t0 := time.Now()
	bp, err := newBatchPlan(jobs)
	if err != nil {
		return nil, err
	}
	if bp.packed.NBlocks == 0 {
		return bp.assemble(make([]float32, len(bp.dsqs)), nil)
	}
	t1 := time.Now()
	outC, recs, err := g.launchMulti(bp)
	if err != nil {
		return nil, fmt.Errorf("batched forward on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	t2 := time.Now()
	res, err := bp.assemble(outC, recs)
	g.mu.Lock()
	g.LastBatch = BatchTimes{Plan: t1.Sub(t0), Launch: t2.Sub(t1), Kernel: g.LastKernel, Assemble: time.Since(t2), Shape: g.LastShape}
	g.mu.Unlock()
	return res, err
}

// BatchTimes is where a ForwardBatch call's time went: the batch plan
// (profiles, packing), the launch (compilation when new, copies, kernel,
// read-back), the kernel alone (CUDA events), and the scores' assembly.
type BatchTimes struct {
	Plan, Launch, Kernel, Assemble time.Duration
	Shape                          string
}

// launchMulti runs fwd_multi_kernel over a batch plan and returns the
// final C values and the rescaled rows (combined numbering). Everything
// goes through one lane: the copies, the launch and the read-back are
// queued on its stream and only that stream is waited for.
func (g *GPU) launchMulti(bp *batchPlan) ([]float32, []scaleRecord, error) {
	g.mu.Lock()
	s := chooseMultiShape(bp.qmax, g.limits(), g.MultiPipe)
	k, err := g.multiKernel(s)
	g.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	ln, err := g.lanes.Take()
	if err != nil {
		return nil, nil, err
	}
	defer g.lanes.Give(ln)
	layout, err := ln.UploadPacked(bp.packed)
	if err != nil {
		return nil, nil, err
	}
	n := len(bp.dsqs)
	up := uploader(ln, &err)
	bjob := make([]byte, 4*len(bp.bjob))
	for i, j := range bp.bjob {
		binary.LittleEndian.PutUint32(bjob[4*i:], uint32(j))
	}
	bjobs, bbjob := up("mjobs", bp.jobTab), up("mbjob", bjob)
	bt, bo, blm := up("mtrans", cuda.Bytes(bp.trans)), up("modds", cuda.Bytes(bp.odds)), up("mloopmove", cuda.Bytes(bp.loop))
	if err != nil {
		return nil, nil, err
	}
	// outC, then the two counters (blocks handed out, records), cleared
	// together and read back together.
	bc, err := ln.Zero("moutc", 4*n+8)
	if err != nil {
		return nil, nil, err
	}
	counters := bc.Ptr().Add(4 * n)
	reccap := bp.residues()
	brec, err := ln.Bufs.Get("mrecords", scaleRecordBytes*reccap)
	if err != nil {
		return nil, nil, err
	}
	stateBytes := 4
	if !s.StateShared {
		stateBytes = s.grid * (s.Block / 32) * 4 * 3 * bp.qmax * 32
	}
	bstate, err := ln.Bufs.Get("mstate", stateBytes)
	if err != nil {
		return nil, nil, err
	}
	var a cuda.Args
	a.Buffer(bjobs).Buffer(bbjob).Buffer(bt).Buffer(bo).Int32(int32(bp.qmax)).
		Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).
		Ptr(counters).Buffer(blm).Buffer(bstate).Buffer(bc).Buffer(brec).Ptr(counters.Add(4)).Uint32(uint32(reccap))
	out := make([]byte, 4*n+8)
	d, err := ln.Run(func(st *cuda.Stream) error {
		return k.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: s.grid}, Block: cuda.Dim3{X: s.threads}, SharedMem: s.sharedBytes, Stream: st}, &a)
	}, bc, out)
	if err != nil {
		return nil, nil, err
	}
	g.mu.Lock()
	g.KernelTime += d
	g.LastKernel = d
	g.LastShape = fmt.Sprintf("multi %s pipe %d, %d threads x %d blocks, %d B shared", s.place, s.Pipe, s.threads, s.grid, s.sharedBytes)
	g.mu.Unlock()
	nrec := int(binary.LittleEndian.Uint32(out[4*n+4:]))
	if nrec > reccap {
		return nil, nil, fmt.Errorf("kernel reported %d rescaled rows for %d residues", nrec, reccap)
	}
	raw := make([]byte, scaleRecordBytes*nrec)
	if nrec > 0 {
		if err := ln.Stream.CopyDtoH(raw, brec.Ptr()); err != nil {
			return nil, nil, err
		}
		if err := ln.Stream.Synchronize(); err != nil {
			return nil, nil, err
		}
	}
	outC := make([]float32, n)
	copy(cuda.Bytes(outC), out[:4*n])
	return outC, decodeScaleRecords(raw), nil
}

// ForwardScores returns the Forward parser score (nats) of every target,
// exactly what Forward(targets[i], om', mx, false) returns, where om' is om
// with its length model set for lengths[i] (ReconfigRestLength; nil
// lengths means each target's own length, as the pipeline configures it).
// om's E-state (multihit or unihit) is used as it is. errs[i] is ErrRange
// where Forward returns it (scores[i] is then 0); err reports a failure
// of the device.
func (g *GPU) ForwardScores(om *oprofile.Profile, targets [][]byte, lengths []int) (scores []float32, errs []error, err error) {
	return g.forward(om, targets, lengths, nil, nil)
}

// ForwardScoresDB is ForwardScores over the targets of a database resident
// on the device: all of them when want is nil, else those with want[i]
// (the others get score 0 and no error).
func (g *GPU) ForwardScoresDB(om *oprofile.Profile, db *gpudb.DB, want []bool, lengths []int) (scores []float32, errs []error, err error) {
	return g.forward(om, db.Dsqs, lengths, db, want)
}

func (g *GPU) forward(om *oprofile.Profile, dsqs [][]byte, lengths []int, db *gpudb.DB, want []bool) ([]float32, []error, error) {
	if lengths == nil {
		lengths = make([]int, len(dsqs))
		for i, d := range dsqs {
			lengths[i] = len(d)
		}
	} else if len(lengths) != len(dsqs) {
		return nil, nil, fmt.Errorf("fwdback: %d lengths for %d targets", len(lengths), len(dsqs))
	}
	if want != nil && len(want) != len(dsqs) {
		return nil, nil, fmt.Errorf("fwdback: %d selections for %d targets", len(want), len(dsqs))
	}
	plan, err := newFwdPlan(om, lengths)
	if err != nil {
		return nil, nil, err
	}
	var idx []int
	residues := 0
	for i, d := range dsqs {
		if len(d) > 0 && (want == nil || want[i]) {
			idx = append(idx, i)
			residues += len(d)
		}
	}
	selected := func(i int) bool { return want == nil || want[i] }
	if !plan.exactOnGPU() {
		scores, errs := cpuForwardScores(om, dsqs, lengths, selected)
		return scores, errs, nil
	}
	r := &fwdRun{outC: make([]float32, len(dsqs))}
	if len(idx) > 0 {
		if r, err = g.launch(plan, dsqs, idx, residues, db, want == nil, nil, 0); err != nil {
			return nil, nil, fmt.Errorf("forward on GPU %d: %w", g.ctx.Device().Ordinal, err)
		}
	}
	scores, errs, err := assembleScores(plan, dsqs, r.outC, r.recs)
	if err != nil {
		return nil, nil, err
	}
	for i := range dsqs {
		if !selected(i) {
			scores[i], errs[i] = 0, nil
		}
	}
	return scores, errs, nil
}

// Parsers runs the parser Forward and Backward of every target on the
// GPU and returns what domain definition needs of them: the special rows
// of both matrices, bit for bit those of Forward(targets[i], om', fwd,
// false) and Backward(targets[i], om', fwd, bck, false), with om' as in
// ForwardScores, and both scores. The pipeline calls it for the targets
// that pass the Forward filter; domaindef.Define can take the matrices
// as they are (with om configured for the target as usual). Empty targets
// are computed on the CPU.
func (g *GPU) Parsers(om *oprofile.Profile, targets [][]byte, lengths []int) ([]Parser, error) {
	if lengths == nil {
		lengths = make([]int, len(targets))
		for i, d := range targets {
			lengths[i] = len(d)
		}
	} else if len(lengths) != len(targets) {
		return nil, fmt.Errorf("fwdback: %d lengths for %d targets", len(lengths), len(targets))
	}
	plan, err := newFwdPlan(om, lengths)
	if err != nil {
		return nil, err
	}
	var idx []int
	residues := 0
	for i, d := range targets {
		if len(d) > 0 {
			idx = append(idx, i)
			residues += len(d)
		}
	}
	if !plan.exactOnGPU() {
		idx = nil
	}
	var r *fwdRun
	xoff, rowFloats := rowOffsets(targets, idx)
	if len(idx) > 0 {
		if r, err = g.launch(plan, targets, idx, residues, nil, false, xoff, rowFloats); err != nil {
			return nil, fmt.Errorf("forward/backward on GPU %d: %w", g.ctx.Device().Ordinal, err)
		}
	}
	return finishParsers(om, plan, targets, lengths, idx, xoff, r), nil
}

// fwdRun is what one launch sequence returns, per target of the call
// (database numbering): the final C value, the rescaled rows and, when the
// special rows were asked for, those of Forward and Backward (from
// xoff[i] floats on) and Backward's switch to its own scale factors.
type fwdRun struct {
	outC   []float32
	recs   []scaleRecord
	fx, bx []float32
	own    []int32
}

// launch runs Forward (and with xoff, Backward) over targets idx of dsqs.
// residues is their total length; rowFloats the size of the special rows.
func (g *GPU) launch(plan *fwdPlan, dsqs [][]byte, idx []int, residues int, db *gpudb.DB, all bool, xoff []int64, rowFloats int) (*fwdRun, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, err := chooseShape(g.Placement, plan, g.limits())
	if err != nil {
		return nil, err
	}
	fwdK, bwdK, err := g.kernel(s)
	if err != nil {
		return nil, err
	}
	var layout *gpudb.Device
	if db != nil && all {
		if layout, err = db.Layout(threadsPerTarget); err != nil {
			return nil, err
		}
	} else {
		if layout, err = gpudb.Upload(g.ctx, gpudb.Pack(dsqs, idx, threadsPerTarget)); err != nil {
			return nil, err
		}
		defer layout.Free()
	}
	n := len(dsqs)
	up := func(name string, b []byte) *cuda.Buffer {
		if err != nil {
			return nil
		}
		var buf *cuda.Buffer
		buf, err = g.bufs.Upload(name, b)
		return buf
	}
	get := func(name string, size int) *cuda.Buffer {
		if err != nil {
			return nil
		}
		var buf *cuda.Buffer
		buf, err = g.bufs.Get(name, size)
		return buf
	}
	bt, bo, blm := up("trans", cuda.Bytes(plan.Trans)), up("odds", cuda.Bytes(plan.Odds)), up("loopmove", cuda.Bytes(plan.LoopMove))
	bcount := get("counters", 8) // the work counter, the record counter
	bc := get("outC", 4*n)
	// At most one rescaled row per residue, so the records cannot overflow.
	reccap := residues
	brec := get("records", scaleRecordBytes*reccap)
	stateBytes := 4
	if !s.StateShared {
		stateBytes = s.grid * (s.Block / 32) * plan.stateBytesPerWarp()
	}
	bstate := get("state", stateBytes)
	var bxoff, bfx, bbx, bown *cuda.Buffer
	if xoff != nil {
		bxoff, bfx, bbx, bown = up("xoff", cuda.Bytes(xoff)), get("fxrows", 4*rowFloats), get("bxrows", 4*rowFloats), get("own", 4*n)
	}
	if err != nil {
		return nil, err
	}
	if err := bcount.Memset32(0); err != nil {
		return nil, err
	}
	check := int32(0)
	if plan.Check {
		check = 1
	}
	ptr := func(b *cuda.Buffer) cuda.DevicePtr {
		if b == nil {
			return 0
		}
		return b.Ptr()
	}
	var a cuda.Args
	a.Buffer(bt).Buffer(bo).Int32(int32(plan.Q)).Int32(int32(plan.QS)).Int32(int32(plan.Kp)).Int32(check).
		Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).
		Ptr(bcount.Ptr()).Buffer(blm).Float32(plan.EMove).Float32(plan.ELoop).
		Buffer(bstate).Buffer(bc).Buffer(brec).Ptr(bcount.Ptr().Add(4)).Uint32(uint32(reccap)).
		Ptr(ptr(bfx)).Ptr(ptr(bxoff))
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: s.grid}, Block: cuda.Dim3{X: s.Block}, SharedMem: s.sharedBytes}
	d, err := gpudb.Timed(g.ctx, func() error { return fwdK.Launch(cfg, &a) })
	if err != nil {
		return nil, err
	}
	g.KernelTime += d
	g.LastShape = fmt.Sprintf("%s, %d threads x %d blocks, %d B shared", s.place, s.Block, s.grid, s.sharedBytes)
	counters := make([]byte, 8)
	if err := bcount.CopyToHost(counters, 0); err != nil {
		return nil, err
	}
	nrec := int(binary.LittleEndian.Uint32(counters[4:]))
	if nrec > reccap {
		return nil, fmt.Errorf("kernel reported %d rescaled rows for %d residues", nrec, reccap)
	}
	r := &fwdRun{outC: make([]float32, n)}
	if err := bc.CopyToHost(cuda.Bytes(r.outC), 0); err != nil {
		return nil, err
	}
	rawRec := make([]byte, scaleRecordBytes*nrec)
	if nrec > 0 {
		if err := brec.CopyToHost(rawRec, 0); err != nil {
			return nil, err
		}
	}
	r.recs = decodeScaleRecords(rawRec)
	if xoff == nil {
		return r, nil
	}

	if err := bcount.Memset32(0); err != nil {
		return nil, err
	}
	a.Reset()
	a.Buffer(bt).Buffer(bo).Int32(int32(plan.Q)).Int32(int32(plan.QS)).Int32(int32(plan.Kp)).
		Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).
		Ptr(bcount.Ptr()).Buffer(blm).Float32(plan.EMove).Float32(plan.ELoop).
		Buffer(bstate).Buffer(bfx).Buffer(bxoff).Buffer(bbx).Buffer(bown)
	if d, err = gpudb.Timed(g.ctx, func() error { return bwdK.Launch(cfg, &a) }); err != nil {
		return nil, err
	}
	g.KernelTime += d
	r.fx, r.bx, r.own = make([]float32, rowFloats), make([]float32, rowFloats), make([]int32, n)
	for _, c := range []struct {
		b   *cuda.Buffer
		dst []byte
	}{{bfx, cuda.Bytes(r.fx)}, {bbx, cuda.Bytes(r.bx)}, {bown, cuda.Bytes(r.own)}} {
		if err := c.b.CopyToHost(c.dst, 0); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// cpuForwardScores is the fallback for profiles the kernel cannot
// reproduce (see fwdPlan.exactOnGPU), on every core.
func cpuForwardScores(om *oprofile.Profile, dsqs [][]byte, lengths []int, selected func(int) bool) ([]float32, []error) {
	scores := make([]float32, len(dsqs))
	errs := make([]error, len(dsqs))
	type scratch struct {
		p  oprofile.Profile
		mx *Matrix
	}
	onEveryCore(len(dsqs), func() *scratch { return &scratch{*om, NewMatrix()} }, func(s *scratch, i int) {
		if selected(i) {
			s.p.ReconfigRestLength(lengths[i])
			scores[i], errs[i] = Forward(dsqs[i], &s.p, s.mx, false)
		}
	})
	return scores, errs
}

// onEveryCore runs work(s, i) for i in [0, n), items dealt in turn to one
// goroutine a core, each with its own scratch s from newScratch.
func onEveryCore[S any](n int, newScratch func() S, work func(s S, i int)) {
	var wg sync.WaitGroup
	cores := runtime.NumCPU()
	for w := 0; w < cores; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := newScratch()
			for i := w; i < n; i += cores {
				work(s, i)
			}
		}(w)
	}
	wg.Wait()
}

// uploader returns an upload to ln's named buffers that does nothing once
// an upload has failed: *err holds the first failure, so that a launch
// uploads its arrays in a row and checks once.
func uploader(ln *gpudb.Lane, err *error) func(name string, b []byte) *cuda.Buffer {
	return func(name string, b []byte) *cuda.Buffer {
		if *err != nil {
			return nil
		}
		var buf *cuda.Buffer
		buf, *err = ln.Upload(name, b)
		return buf
	}
}
