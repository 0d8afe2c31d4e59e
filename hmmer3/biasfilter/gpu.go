// Package biasfilter computes HMMER's bias filter score
// (profile.(*Background).FilterScore, p7_bg_FilterScore) for many targets
// of a GPU-resident database at once, bit for bit with the CPU: bias.cu
// runs one target per lane with the CPU's float operations in their order
// and glibc's log and logf ported exactly (easel.Log, easel.Logf).
//
// The staged search calls it for the MSV filter's survivors, whose bias
// scores were the largest CPU stage after domain definition.
package biasfilter

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

//go:embed bias.cu
var cudaSource string

// blockThreads is the kernel's block size: eight warps, 256 targets.
const blockThreads = 256

// threadsPerTarget is the gpudb layout the kernel reads: one lane per
// target, 32 targets of similar length per warp.
const threadsPerTarget = 1

// program is the kernel source with the log tables. The options forbid
// contracting multiply-adds and flushing subnormals, and keep IEEE
// division: the CPU code does none of those.
func program() nvrtc.Program {
	return nvrtc.Program{
		Name:    "bias.cu",
		Source:  fmt.Sprintf("#define BLOCK %d\n", blockThreads) + tablesSource() + cudaSource,
		Options: []string{"-std=c++17", "--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true"},
	}
}

// Precompile starts compiling the kernel in the background for devices of
// compute capability t (it does not depend on the model).
func Precompile(t nvrtc.Target) { nvrtc.Prefetch(program(), t, nvrtc.DefaultCache()) }

// sharedBytes is the kernel's shared memory for kp residue codes: log's
// table, logf's, the emission odds.
func sharedBytes(kp int) int { return 288*8 + 8*kp }

// GPU computes bias filter scores on one device.
type GPU struct {
	ctx *cuda.Context
	// lanes hold the streams and buffers of launches in flight (several
	// queries' launches overlap, each on its own stream); kmu guards the
	// kernel, mu KernelTime. Packing runs unlocked, so queries overlap.
	mu, kmu sync.Mutex
	kernels *nvrtc.Kernels
	lanes   *gpudb.Lanes
	// KernelTime accumulates device time (CUDA events), for benchmarks.
	KernelTime time.Duration
	// Stats counts launches and the host time around them.
	Stats gpudb.LaunchStats
}

// NewGPU prepares the bias filter on a device context.
func NewGPU(ctx *cuda.Context) *GPU {
	return &GPU{ctx: ctx, lanes: gpudb.NewLanes(ctx, gpudb.LanesPerKernel)}
}

func (g *GPU) kernel() (*cuda.Function, error) {
	g.kmu.Lock()
	defer g.kmu.Unlock()
	if g.kernels == nil {
		k, err := nvrtc.Build(g.ctx, program())
		if err != nil {
			return nil, err
		}
		g.kernels = k
	}
	return g.kernels.Function("bias_kernel")
}

// paramBytes lays out the kernel's parameters: T[0][2], T[1][0], T[1][1],
// T[1][2], Pi[0], Pi[1] (the first two transitions come from each
// target's length), then the odds, two floats per residue code.
func paramBytes(p profile.FilterParams) (par, odds []byte) {
	put := func(b []byte, fs ...float32) []byte {
		for _, f := range fs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
		return b
	}
	par = put(nil, p.T[0][2], p.T[1][0], p.T[1][1], p.T[1][2], p.Pi[0], p.Pi[1])
	for _, o := range p.Odds {
		odds = put(odds, o[0], o[1])
	}
	return par, odds
}

// Scores sets out[i] to the bias filter score of db.Dsqs[i] (FilterScore
// with SetLength(len(db.Dsqs[i]))) for the targets with want[i] (all when
// want is nil) that are not empty; other entries are left as they are.
// bg must have been configured by SetFilter.
func (g *GPU) Scores(bg *profile.Background, db *gpudb.DB, want []bool, out []float32) error {
	p, ok := bg.FilterParams()
	if !ok {
		return fmt.Errorf("bias filter on GPU: the background has no filter (SetFilter not called)")
	}
	lens := db.Lengths()
	var idx []int
	for i := range lens {
		// want first: a query wants a few percent of the targets, and
		// reading every target's length costs a pass over the database.
		if (want == nil || want[i]) && lens[i] > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	f, err := g.kernel()
	if err != nil {
		return err
	}
	// A query wants its MSV survivors, a few percent of the database:
	// they are planned here and packed on the launch's lane from the
	// residues already on the device (gpudb.Subset), as the Viterbi
	// filter's are, instead of the kernel running over the whole
	// resident layout each query. In the 1,000-model run on an H100 the
	// bias kernels' event time fell from 4.1-4.3 s to 1.4 s (the launches
	// share the device with the other filters), for 1.3 ms of planning a
	// query (docs/BENCHMARKS.md). Most of the database wanted: the whole
	// layout.
	var layout *gpudb.Device
	var subset *gpudb.Subset
	if wholeLayout(len(idx), len(lens)) {
		if layout, err = db.Layout(threadsPerTarget); err != nil {
			return err
		}
	} else {
		planned := time.Now()
		subset, err = db.Subset(idx, threadsPerTarget)
		g.Stats.Subset(planned)
		if err != nil {
			return err
		}
	}
	par, odds := paramBytes(p)
	// The result array is taken before the launch takes its lane, so
	// that the lane is held for device work alone.
	raw := rawArrays.Get(4 * len(lens))
	defer rawArrays.Put(raw)
	if err := g.launch(f, layout, subset, par, odds, len(p.Odds), raw); err != nil {
		return err
	}
	gpudb.ForEachOf(idx, func(i int) {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	})
	return nil
}

// wholeLayout reports whether wanted of n targets run over the whole
// resident layout rather than a subset laid out for the launch: when
// more than a quarter are wanted, planning and packing them would cost
// about what the skipped targets do.
func wholeLayout(wanted, n int) bool { return 4*wanted > n }

// rawArrays keeps the kernel's result buffers (4 bytes per target of the
// database, ~2 MB at 485,000 targets) for the next query instead of a
// fresh, cleared allocation each time; only the wanted entries, which
// the kernel wrote, are read.
var rawArrays gpudb.Pool[byte]

// launch runs the kernel over layout (or subset, laid out on the lane)
// and copies its raw scores, four bytes per target in database
// numbering, into raw.
func (g *GPU) launch(f *cuda.Function, layout *gpudb.Device, subset *gpudb.Subset, par, odds []byte, kp int, raw []byte) error {
	ln, err := g.lanes.Take()
	if err != nil {
		return err
	}
	defer g.lanes.Give(ln)
	defer g.Stats.Held(time.Now())
	if subset != nil {
		if layout, err = ln.Layout(subset); err != nil {
			return err
		}
	}
	bp, err := ln.Upload("par", par)
	if err != nil {
		return err
	}
	bd, err := ln.Upload("odds", odds)
	if err != nil {
		return err
	}
	bn, err := ln.Zero("next", 4)
	if err != nil {
		return err
	}
	bo, err := ln.Bufs.Get("out", len(raw))
	if err != nil {
		return err
	}
	var a cuda.Args
	a.Buffer(bp).Buffer(bd).Int32(int32(kp)).Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).
		Buffer(bn).Buffer(bo)
	shared := sharedBytes(kp)
	// Enough warps for the blocks, at most a persistent grid's worth.
	grid := min(gpudb.PersistentGrid(g.ctx, blockThreads, shared), (layout.NBlocks+blockThreads/32-1)/(blockThreads/32))
	d, err := ln.Run(func(st *cuda.Stream) error {
		return f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: blockThreads}, SharedMem: shared, Stream: st}, &a)
	}, bo, raw)
	if err != nil {
		return fmt.Errorf("bias filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	g.mu.Lock()
	g.KernelTime += d
	g.mu.Unlock()
	return nil
}
