package fwdback

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

//go:embed fwdbound.cu
var fwdboundSource string

// boundStateBytes is a warp's row state in fwdbound.cu for chunks of C
// nodes: M, I and D of 32*C nodes.
func boundStateBytes(C int) int { return 3 * 4 * 32 * C }

// boundMaxWarps is the most warps a block of fwdbound_kernel has.
const boundMaxWarps = 8

// boundKernels holds each GPU's compiled fwdbound_kernel (kept outside
// the GPU struct so that this file stands on its own).
var boundKernels sync.Map // boundKey -> *boundKernel

// BoundVariant is how fwdbound.cu is compiled: Regs (FB_REGS) keeps the
// row state of chunks up to 8 nodes in registers, else every job takes
// the shared-memory path; Unroll (FB_U) is that path's loads in flight.
type boundVariant struct {
	Regs   bool
	Unroll int
	// MinBlocks, when > 0, asks the compiler for registers enough to hold
	// that many blocks of 256 threads an SM (__launch_bounds__).
	MinBlocks int
}

// boundKey names a compiled fwdbound_kernel: its GPU and variant.
type boundKey struct {
	g *GPU
	v boundVariant
}

// boundUse is the variant launches use (benchmarks change it).
var boundUse = boundVariant{Regs: true, Unroll: 4}

// boundStateC is the chunk a launch sizes each warp's shared row state
// for: the longest on the shared-memory path, at least 1.
func (bp *boundPlan) boundStateC(regs bool) int {
	if !regs {
		return bp.cmax
	}
	return max(1, bp.cmaxShared)
}

type boundKernel struct {
	once   sync.Once
	fn     *cuda.Function
	err    error
	mu     sync.Mutex
	shared int // dynamic shared memory allowed so far
}

// boundProgram is fwdbound.cu compiled as variant bv.
func boundProgram(bv boundVariant) nvrtc.Program {
	regs := 0
	if bv.Regs {
		regs = 1
	}
	opts := append([]string{fmt.Sprintf("-DFB_REGS=%d", regs), fmt.Sprintf("-DFB_U=%d", bv.Unroll), fmt.Sprintf("-DFB_MINB=%d", bv.MinBlocks)}, nvrtcOptions...)
	return nvrtc.Program{Name: "fwdbound.cu", Source: fwdboundSource, Options: opts}
}

// PrecompileBound starts compiling (or reading from the disk cache) the
// program ForwardBoundBatch launches, for devices of target t, so that
// the first batch does not wait for it.
func PrecompileBound(t nvrtc.Target) {
	nvrtc.Prefetch(boundProgram(boundUse), t, nvrtc.DefaultCache())
}

func (g *GPU) boundFunction(bv boundVariant, shared int) (*cuda.Function, error) {
	v, _ := boundKernels.LoadOrStore(boundKey{g, bv}, &boundKernel{})
	bk := v.(*boundKernel)
	bk.once.Do(func() {
		var k *nvrtc.Kernels
		if k, bk.err = nvrtc.Build(g.ctx, boundProgram(bv)); bk.err == nil {
			bk.fn, bk.err = k.Function("fwdbound_kernel")
		}
	})
	if bk.err != nil {
		return nil, bk.err
	}
	bk.mu.Lock()
	defer bk.mu.Unlock()
	if shared > bk.shared { // only ever raised: launches in flight keep theirs
		if err := bk.fn.SetMaxDynamicSharedMemory(shared); err != nil {
			return nil, err
		}
		bk.shared = shared
	}
	return bk.fn, nil
}

// boundShape is fwdbound_kernel's launch for chunks of up to cmax nodes:
// as many warps a block as shared memory allows (at most boundMaxWarps),
// blocks enough to fill every SM.
func boundShape(cmax int, d deviceLimits) (warps, grid, shared int) {
	stw := boundStateBytes(cmax)
	warps = min(boundMaxWarps, d.SharedOptin/stw)
	if warps < 1 {
		return 0, 0, 0
	}
	shared = warps * stw
	perSM := min(d.ThreadsPerSM/(32*warps), d.SharedPerSM/(shared+1024))
	return warps, d.SMs * max(1, perSM), shared
}

// ForwardBoundBatch is ForwardBatch with scores that may differ from
// Forward's by up to BoundMargin(len(target), M, score) nats (fwdbound.cu:
// a warp per target, natural node order). Jobs, selections and results
// are ForwardBatch's; errs[i] is ErrRange where the kernel's final C value
// is zero, infinite or NaN (the caller may send those targets to the CPU
// Forward). Jobs the kernel does not take (a model too long for a warp's
// row state in shared memory, unihit mode, subnormal or vanishing profile
// values: see newBoundPlan) are scored by Forward on the CPU, exactly.
func (g *GPU) ForwardBoundBatch(jobs []BatchJob) ([]BatchResult, error) {
	t0 := time.Now()
	d := g.limits()
	bp, err := newBoundPlan(jobs, d.SharedOptin/boundStateBytes(1))
	if err != nil {
		return nil, err
	}
	defer boundResidues.Put(bp.res) // uploaded by then, or not needed
	if len(bp.taskOf) == 0 {
		return bp.assemble(nil, nil), nil
	}
	t1 := time.Now()
	outC, outExp, err := g.launchBound(bp, d)
	if err != nil {
		return nil, fmt.Errorf("forward bound on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	t2 := time.Now()
	res := bp.assemble(outC, outExp)
	g.mu.Lock()
	g.LastBatch = BatchTimes{Plan: t1.Sub(t0), Launch: t2.Sub(t1), Kernel: g.LastKernel, Assemble: time.Since(t2), Shape: g.LastShape}
	g.mu.Unlock()
	return res, nil
}

// launchBound runs fwdbound_kernel over a plan on one of g's lanes and
// returns each task's final C value and scale exponent.
func (g *GPU) launchBound(bp *boundPlan, d deviceLimits) ([]float32, []int32, error) {
	bv := boundUse
	stateC := bp.boundStateC(bv.Regs)
	warps, grid, shared := boundShape(stateC, d)
	if warps == 0 {
		return nil, nil, fmt.Errorf("fwdback: a warp's row state for chunks of %d nodes exceeds shared memory", stateC)
	}
	k, err := g.boundFunction(bv, shared)
	if err != nil {
		return nil, nil, err
	}
	ln, err := g.lanes.Take()
	if err != nil {
		return nil, nil, err
	}
	defer g.lanes.Give(ln)
	up := uploader(ln, &err)
	bjobs, btasks := up("bjobs", bp.jobTab), up("btasks", bp.tasks)
	btrans, bodds, bres := up("btrans", cuda.Bytes(bp.trans)), up("bodds", cuda.Bytes(bp.odds)), up("bres", bp.res)
	if err != nil {
		return nil, nil, err
	}
	n := len(bp.taskOf)
	// outC, outExp, then the work counter: cleared and read back together.
	bout, err := ln.Zero("bout", 8*n+4)
	if err != nil {
		return nil, nil, err
	}
	var a cuda.Args
	a.Buffer(bjobs).Buffer(btasks).Int32(int32(n)).Buffer(btrans).Buffer(bodds).Buffer(bres).Int32(int32(stateC)).
		Ptr(bout.Ptr().Add(8 * n)).Ptr(bout.Ptr()).Ptr(bout.Ptr().Add(4 * n))
	out := make([]byte, 8*n+4)
	dt, err := ln.Run(func(st *cuda.Stream) error {
		return k.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: 32 * warps}, SharedMem: shared, Stream: st}, &a)
	}, bout, out)
	if err != nil {
		return nil, nil, err
	}
	g.mu.Lock()
	g.KernelTime += dt
	g.LastKernel = dt
	g.LastShape = fmt.Sprintf("bound regs=%v U=%d minb=%d, %d threads x %d blocks, %d B shared", bv.Regs, bv.Unroll, bv.MinBlocks, 32*warps, grid, shared)
	g.mu.Unlock()
	outC := make([]float32, n)
	outExp := make([]int32, n)
	for i := range outC {
		outC[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		outExp[i] = int32(binary.LittleEndian.Uint32(out[4*n+4*i:]))
	}
	return outC, outExp, nil
}

// BoundCells is the number of cells (residues x M) the last plan of jobs
// would run on the GPU (benchmarks: GCUPS).
func BoundCells(jobs []BatchJob) int64 {
	bp, err := newBoundPlan(jobs, 1<<20)
	if err != nil {
		return 0
	}
	return bp.cells
}
