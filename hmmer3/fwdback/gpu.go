package fwdback

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

//go:embed fwd.cu
var cudaSource string

// threadsPerTarget is the kernel's lane split: one thread per SSE lane.
const threadsPerTarget = 4

// nvrtcOptions keep IEEE single precision as hmmsearch computes it: no
// FMA contraction, correctly rounded division and square root, subnormal
// results flushed to zero (fwd.cu says why flushing inputs too is safe).
var nvrtcOptions = []string{"--fmad=false", "--ftz=true", "--prec-div=true", "--prec-sqrt=true"}

// GPU computes Forward parser scores on one device, identical to Forward's.
type GPU struct {
	ctx     *cuda.Context
	mu      sync.Mutex
	kernels map[fwdShape]*cuda.Function
	bufs    *gpudb.Buffers
	// Placement overrides where the kernel keeps profile and row state
	// (benchmarks); the default picks by model size.
	Placement Placement
	// KernelTime accumulates device time (CUDA events), for benchmarks.
	KernelTime time.Duration
	// LastShape describes the last launch: placement, threads per block,
	// blocks and shared memory (benchmarks).
	LastShape string
}

// NewGPU prepares Forward on a device context.
func NewGPU(ctx *cuda.Context) *GPU {
	return &GPU{ctx: ctx, kernels: map[fwdShape]*cuda.Function{}, bufs: gpudb.NewBuffers(ctx)}
}

func (g *GPU) limits() deviceLimits {
	d := g.ctx.Device()
	return deviceLimits{SMs: d.Multiprocessors, SharedOptin: d.SharedMemPerBlockOptin, SharedPerSM: d.SharedMemPerSM, ThreadsPerSM: d.MaxThreadsPerSM}
}

func (g *GPU) kernel(s fwdShape) (*cuda.Function, error) {
	key := fwdShape{Block: s.Block, ProfShared: s.ProfShared, StateShared: s.StateShared}
	if f := g.kernels[key]; f != nil {
		return f, f.SetMaxDynamicSharedMemory(s.sharedBytes)
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	opts := append([]string{fmt.Sprintf("-DBLOCK=%d", s.Block), fmt.Sprintf("-DPROF_SHARED=%d", b2i(s.ProfShared)),
		fmt.Sprintf("-DSTATE_SHARED=%d", b2i(s.StateShared))}, nvrtcOptions...)
	k, err := nvrtc.Build(g.ctx, nvrtc.Program{Name: "fwd.cu", Source: cudaSource, Options: opts})
	if err != nil {
		return nil, err
	}
	f, err := k.Function("fwd_kernel")
	if err != nil {
		return nil, err
	}
	g.kernels[key] = f
	return f, f.SetMaxDynamicSharedMemory(s.sharedBytes)
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
	outC := make([]float32, len(dsqs))
	var recs []scaleRecord
	if len(idx) > 0 {
		if outC, recs, err = g.launch(plan, dsqs, idx, residues, db, want == nil); err != nil {
			return nil, nil, fmt.Errorf("forward on GPU %d: %w", g.ctx.Device().Ordinal, err)
		}
	}
	scores, errs, err := assembleScores(plan, dsqs, outC, recs)
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

// launch runs the kernel over targets idx of dsqs and returns each one's
// final C value and the rescaled rows.
func (g *GPU) launch(plan *fwdPlan, dsqs [][]byte, idx []int, residues int, db *gpudb.DB, all bool) ([]float32, []scaleRecord, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, err := chooseShape(g.Placement, plan, g.limits())
	if err != nil {
		return nil, nil, err
	}
	f, err := g.kernel(s)
	if err != nil {
		return nil, nil, err
	}
	var layout *gpudb.Device
	if db != nil && all {
		if layout, err = db.Layout(threadsPerTarget); err != nil {
			return nil, nil, err
		}
	} else {
		if layout, err = gpudb.Upload(g.ctx, gpudb.Pack(dsqs, idx, threadsPerTarget)); err != nil {
			return nil, nil, err
		}
		defer layout.Free()
	}
	n := len(dsqs)
	bt, err := g.bufs.Upload("trans", cuda.Bytes(plan.Trans))
	if err != nil {
		return nil, nil, err
	}
	bo, err := g.bufs.Upload("odds", cuda.Bytes(plan.Odds))
	if err != nil {
		return nil, nil, err
	}
	blm, err := g.bufs.Upload("loopmove", cuda.Bytes(plan.LoopMove))
	if err != nil {
		return nil, nil, err
	}
	// One word each: the work counter and the record counter.
	bcount, err := g.bufs.Get("counters", 8)
	if err != nil {
		return nil, nil, err
	}
	if err := bcount.Memset32(0); err != nil {
		return nil, nil, err
	}
	bc, err := g.bufs.Get("outC", 4*n)
	if err != nil {
		return nil, nil, err
	}
	// At most one rescaled row per residue, so the records cannot overflow.
	reccap := residues
	brec, err := g.bufs.Get("records", scaleRecordBytes*reccap)
	if err != nil {
		return nil, nil, err
	}
	var bstate *cuda.Buffer
	if !s.StateShared {
		if bstate, err = g.bufs.Get("state", s.grid*(s.Block/32)*plan.stateBytesPerWarp()); err != nil {
			return nil, nil, err
		}
	} else if bstate, err = g.bufs.Get("state", 4); err != nil {
		return nil, nil, err
	}
	check := int32(0)
	if plan.Check {
		check = 1
	}
	var a cuda.Args
	a.Buffer(bt).Buffer(bo).Int32(int32(plan.Q)).Int32(int32(plan.QS)).Int32(int32(plan.Kp)).Int32(check).
		Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).
		Ptr(bcount.Ptr()).Buffer(blm).Float32(plan.EMove).Float32(plan.ELoop).
		Buffer(bstate).Buffer(bc).Buffer(brec).Ptr(bcount.Ptr().Add(4)).Uint32(uint32(reccap))
	d, err := gpudb.Timed(g.ctx, func() error {
		return f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: s.grid}, Block: cuda.Dim3{X: s.Block}, SharedMem: s.sharedBytes}, &a)
	})
	if err != nil {
		return nil, nil, err
	}
	g.KernelTime += d
	g.LastShape = fmt.Sprintf("%s, %d threads x %d blocks, %d B shared", s.place, s.Block, s.grid, s.sharedBytes)
	counters := make([]byte, 8)
	if err := bcount.CopyToHost(counters, 0); err != nil {
		return nil, nil, err
	}
	nrec := int(binary.LittleEndian.Uint32(counters[4:]))
	if nrec > reccap {
		return nil, nil, fmt.Errorf("kernel reported %d rescaled rows for %d residues", nrec, reccap)
	}
	rawC := make([]byte, 4*n)
	if err := bc.CopyToHost(rawC, 0); err != nil {
		return nil, nil, err
	}
	outC := make([]float32, n)
	for i := range outC {
		outC[i] = math.Float32frombits(binary.LittleEndian.Uint32(rawC[4*i:]))
	}
	rawRec := make([]byte, scaleRecordBytes*nrec)
	if nrec > 0 {
		if err := brec.CopyToHost(rawRec, 0); err != nil {
			return nil, nil, err
		}
	}
	return outC, decodeScaleRecords(rawRec), nil
}

// cpuForwardScores is the fallback for profiles the kernel cannot
// reproduce (see fwdPlan.exactOnGPU), on every core.
func cpuForwardScores(om *oprofile.Profile, dsqs [][]byte, lengths []int, selected func(int) bool) ([]float32, []error) {
	scores := make([]float32, len(dsqs))
	errs := make([]error, len(dsqs))
	var wg sync.WaitGroup
	n := runtime.NumCPU()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := *om
			mx := NewMatrix()
			for i := w; i < len(dsqs); i += n {
				if selected(i) {
					p.ReconfigRestLength(lengths[i])
					scores[i], errs[i] = Forward(dsqs[i], &p, mx, false)
				}
			}
		}(w)
	}
	wg.Wait()
	return scores, errs
}
