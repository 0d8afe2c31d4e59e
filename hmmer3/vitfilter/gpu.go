package vitfilter

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

//go:embed vit.cu
var cudaSource string

//go:embed vit16.cu
var cuda16Source string

//go:embed vit16p.cu
var cuda16pSource string

// GPU runs the Viterbi filter on one device, with Score's result for
// every target.
type GPU struct {
	ctx *cuda.Context
	// lanes hold the streams and buffers of launches in flight (several
	// queries' launches overlap, each on its own stream); kmu guards the
	// kernel table, mu KernelTime. Packing the targets and turning the
	// results into scores run unlocked, so several queries overlap.
	mu, kmu sync.Mutex
	kernels map[gpuKernel]*nvrtc.Kernels
	lanes   *gpudb.Lanes
	// KernelTime accumulates device time (CUDA events), for benchmarks.
	KernelTime time.Duration
	// Stats counts launches and the host time around them.
	Stats gpudb.LaunchStats
	// handedBack counts the targets the DPX kernels left to vit_kernel.
	handedBack int64
}

type gpuShape struct{ T, C, KP, Block int }

// gpuKernel is a compiled kernel: a shape and the kernel's name.
type gpuKernel struct {
	gpuShape
	name string
}

const satKernel = "vit_kernel"

// NewGPU prepares the filter on a device context.
func NewGPU(ctx *cuda.Context) *GPU {
	return &GPU{ctx: ctx, kernels: map[gpuKernel]*nvrtc.Kernels{}, lanes: gpudb.NewLanes(ctx, gpudb.LanesPerKernel)}
}

func (s gpuShape) emisWords() int  { return s.KP * s.T * (s.C/2 | 1) }
func (s gpuShape) transWords() int { return 4 * s.T * (s.C | 1) }
func (s gpuShape) sharedBytes() int {
	return 4*s.emisWords() + 4*s.transWords() + 16 // +16: uint4 alignment of the transitions
}

// shapeFor gives each thread at least eight nodes; its M, I and D cells
// live in registers as 16-bit pairs.
func shapeFor(M, Kp int) gpuShape { return shapeMin(M, Kp, 8) }

// shapeMin gives each thread at least minNodes nodes (fewer threads per
// target, more targets per warp, as the model allows).
func shapeMin(M, Kp, minNodes int) gpuShape {
	T := 32
	for T > 1 && M/T < minNodes {
		T /= 2
	}
	C := (M + T - 1) / T
	C += C & 1
	return gpuShape{T: T, C: C, KP: Kp + 1, Block: 256}
}

func (s gpuShape) defines() string {
	return fmt.Sprintf("#define T %d\n#define C %d\n#define KP %d\n#define BLOCK %d\n", s.T, s.C, s.KP, s.Block)
}

// program is the source of kernel name specialised on the shape.
func (s gpuShape) program(name string) nvrtc.Program {
	src := s.defines() + cudaSource
	switch name {
	case "vit16_kernel":
		src = s.defines() + "#define VIT16_ONLY\n" + cudaSource + cuda16Source
	case "vit16p_kernel":
		src = s.defines() + "#define VIT16_ONLY\n" + cudaSource + cuda16Source + cuda16pSource
	}
	return nvrtc.Program{Name: "vit.cu", Source: src, Options: []string{"-std=c++17"}}
}

// Precompile starts compiling, in the background, the kernel that Scores
// will need for a model of length M on devices of compute capability t.
func Precompile(M, Kp int, t nvrtc.Target) {
	nvrtc.Prefetch(shapeFor(M, Kp).program(satKernel), t, nvrtc.DefaultCache())
	c := currentDPX()
	s := shapeMin(M, Kp, c.minNodes)
	nvrtc.Prefetch(s.program(c.kernelFor(s.T)), t, nvrtc.DefaultCache())
}

func (g *GPU) kernel(s gpuShape, name string) (*cuda.Function, error) {
	g.kmu.Lock()
	defer g.kmu.Unlock()
	key := gpuKernel{s, name}
	k := g.kernels[key]
	if k == nil {
		var err error
		k, err = nvrtc.Build(g.ctx, s.program(name))
		if err != nil {
			return nil, err
		}
		g.kernels[key] = k
	}
	f, err := k.Function(name)
	if err != nil {
		return nil, err
	}
	return f, f.SetMaxDynamicSharedMemory(s.sharedBytes())
}

func pair(lo, hi int16) uint32 { return uint32(uint16(lo)) | uint32(uint16(hi))<<16 }

// emisWords lays out the match scores: for each residue code and
// thread, the thread's nodes as 16-bit pairs (see vit.cu).
func emisWords(s gpuShape, om *oprofile.VitProfile, Kp int) []byte {
	const neg = -32768
	est := s.C/2 | 1
	emis := make([]byte, 4*s.emisWords())
	rw := func(x, k int) int16 {
		if x >= Kp || k > om.M {
			return neg
		}
		return om.RWV[x][k]
	}
	for x := 0; x < s.KP; x++ {
		for t := 0; t < s.T; t++ {
			for j := 0; j < s.C/2; j++ {
				k := t*s.C + 2*j + 1
				binary.LittleEndian.PutUint32(emis[4*((x*s.T+t)*est+j):], pair(rw(x, k), rw(x, k+1)))
			}
		}
	}
	return emis
}

// nodeTrans is node k's transitions, all impossible past the model.
func nodeTrans(om *oprofile.VitProfile, k int) [8]int16 {
	if k <= om.M {
		return om.T[k]
	}
	var tr [8]int16
	for i := range tr {
		tr[i] = -32768
	}
	return tr
}

// transWords lays out vit_kernel's transitions: one uint4 a node.
func transWords(s gpuShape, om *oprofile.VitProfile) []byte {
	tst := s.C | 1
	trans := make([]byte, 4*s.transWords())
	for t := 0; t < s.T; t++ {
		for j := 0; j < s.C; j++ {
			tr := nodeTrans(om, t*s.C+j+1)
			off := 16 * (t*tst + j)
			binary.LittleEndian.PutUint32(trans[off:], pair(tr[oprofile.VBM], tr[oprofile.VMM]))
			binary.LittleEndian.PutUint32(trans[off+4:], pair(tr[oprofile.VIM], tr[oprofile.VDM]))
			binary.LittleEndian.PutUint32(trans[off+8:], pair(tr[oprofile.VMI], tr[oprofile.VII]))
			binary.LittleEndian.PutUint32(trans[off+12:], pair(tr[oprofile.VMD], tr[oprofile.VDD]))
		}
	}
	return trans
}

// Scores sets out[i] to the Viterbi filter score of db.Dsqs[i], for
// targets whose want[i] is true (all when want is nil). om must be in
// multihit mode (as the pipeline keeps it between targets). Models that
// pass planDPX run a DPX kernel (vit16_kernel or vit16p_kernel), and the
// targets it hands back run vit_kernel; other models run vit_kernel
// alone.
func (g *GPU) Scores(om *oprofile.VitProfile, Kp int, db *gpudb.DB, want []bool, out []float32) error {
	if p, ok := planDPX(om, Kp); ok && kernelChoice != "sat32" {
		redo, err := g.scores(p, om, Kp, db, want, out)
		if err != nil || redo == nil {
			return err
		}
		n := 0
		for _, r := range redo {
			if r {
				n++
			}
		}
		atomic.AddInt64(&g.handedBack, int64(n))
		want = redo
	}
	_, err := g.scores(nil, om, Kp, db, want, out)
	return err
}

// scores runs p's DPX kernel (p != nil) or vit_kernel on the wanted
// targets. It returns, for a DPX kernel, the targets left to vit_kernel
// (nil when none).
func (g *GPU) scores(p *dpxPlan, om *oprofile.VitProfile, Kp int, db *gpudb.DB, want []bool, out []float32) ([]bool, error) {
	dsqs := db.Dsqs
	s, name := shapeFor(om.M, Kp), satKernel
	if p != nil {
		s, name = p.shape, p.kernel
	}
	f, err := g.kernel(s, name)
	if err != nil {
		return nil, err
	}
	// The whole database's resident layout, or the wanted targets planned
	// here and laid out on the launch's lane.
	var layout *gpudb.Device
	var subset *gpudb.Subset
	var idx []int // the wanted targets; nil: all of them
	if want == nil {
		if layout, err = db.Layout(s.T); err != nil {
			return nil, err
		}
	} else {
		for i, w := range want {
			if w {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return nil, nil
		}
		packed := time.Now()
		subset, err = db.Subset(idx, s.T)
		g.Stats.Subset(packed)
		if err != nil {
			return nil, err
		}
	}
	var emis, trans []byte
	if p != nil {
		emis, trans = p.emisWords(s, om, Kp), p.transWords(s, om)
	} else {
		emis, trans = emisWords(s, om, Kp), transWords(s, om)
	}
	// moves and raw are indexed by database number, but only the wanted
	// entries are written and read (the kernel reads a target's move and
	// writes its result only for the targets of its layout), so both
	// come from a pool uncleared and the passes visit idx alone: a query
	// wants only the bias filter's survivors, a few percent of 485,000
	// targets at most, and walking them all cost ~10 CPU ms a query in
	// the 1,000-model run (docs/BENCHMARKS.md).
	moves, raw := wordArrays.Get(4*len(dsqs)), wordArrays.Get(4*len(dsqs))
	defer wordArrays.Put(moves)
	defer wordArrays.Put(raw)
	eachWanted(len(dsqs), idx, func(i int) {
		binary.LittleEndian.PutUint32(moves[4*i:], uint32(int32(om.MoveFor(len(dsqs[i]), 1))))
	})
	if err := g.launch(f, s, p, om, layout, subset, emis, trans, moves, raw); err != nil {
		return nil, err
	}
	var redo []bool
	var rmu sync.Mutex
	eachWanted(len(dsqs), idx, func(i int) {
		move := int32(binary.LittleEndian.Uint32(moves[4*i:]))
		xC := int32(binary.LittleEndian.Uint32(raw[4*i:]))
		if p != nil && (xC == rescoreCode || !p.fits(om, move)) {
			rmu.Lock()
			if redo == nil {
				redo = make([]bool, len(dsqs))
			}
			redo[i] = true
			rmu.Unlock()
			return
		}
		out[i] = wordScore(om, xC, move)
	})
	return redo, nil
}

// wordScore turns a kernel's result (xC, or MaxInt32 for an overflow)
// into the filter score, given the target's C move score.
func wordScore(om *oprofile.VitProfile, xC, move int32) float32 {
	switch {
	case xC == math.MaxInt32:
		return float32(math.Inf(1))
	case xC > -32768:
		sc := float32(xC) + float32(move) - float32(om.Base)
		sc /= om.Scale
		return float32(float64(sc) - 3.0)
	}
	return float32(math.Inf(-1))
}

// launch runs the kernel over layout (or subset, laid out on the lane) and
// copies its raw 32-bit result per target (database numbering) into raw,
// which has moves' length.
func (g *GPU) launch(f *cuda.Function, s gpuShape, p *dpxPlan, om *oprofile.VitProfile, layout *gpudb.Device, subset *gpudb.Subset, emis, trans, moves, raw []byte) error {
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
	n := len(moves) / 4
	be, err := ln.Upload("emis", emis)
	if err != nil {
		return err
	}
	bt, err := ln.Upload("trans", trans)
	if err != nil {
		return err
	}
	bm, err := ln.Upload("moves", moves)
	if err != nil {
		return err
	}
	bn, err := ln.Zero("next", 4)
	if err != nil {
		return err
	}
	bo, err := ln.Bufs.Get("out", 4*n)
	if err != nil {
		return err
	}
	var a cuda.Args
	a.Buffer(be).Buffer(bt).Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).Buffer(bn).
		Int32(int32(om.Base)).Int32(int32(om.XW[profile.XE][profile.Move])).Int32(int32(om.XW[profile.XE][profile.Loop])).Int32(int32(om.DDBound))
	if p != nil {
		a.Int32(int32(p.tbmmin)).Int32(int32(p.lim))
	}
	a.Buffer(bm).Buffer(bo)
	d, err := ln.Run(func(st *cuda.Stream) error {
		return f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: gpudb.PersistentGrid(g.ctx, s.Block, s.sharedBytes())},
			Block: cuda.Dim3{X: s.Block}, SharedMem: s.sharedBytes(), Stream: st}, &a)
	}, bo, raw)
	if err != nil {
		return fmt.Errorf("viterbi filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	g.mu.Lock()
	g.KernelTime += d
	g.mu.Unlock()
	return nil
}

// wordArrays keeps the 4-bytes-a-target arrays of scores (moves in, raw
// results out; ~2 MB each at 485,000 targets) for the next call instead
// of fresh, cleared memory each query.
var wordArrays gpudb.Pool[byte]

// eachWanted calls fn on every target of a database of n: those of idx,
// or all n when idx is nil, on all cores.
func eachWanted(n int, idx []int, fn func(i int)) {
	if idx == nil {
		gpudb.ForChunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				fn(i)
			}
		})
		return
	}
	gpudb.ForEachOf(idx, fn)
}
