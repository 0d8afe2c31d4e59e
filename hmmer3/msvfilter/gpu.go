package msvfilter

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

//go:embed msv.cu
var cudaSource string

// GPU runs the SSV/MSV filter on one device, with the same result per
// target as Score. SSV runs for every target; the few that SSV leaves
// undecided (or cannot handle at their length) go through the full MSV
// program, also on the GPU.
type GPU struct {
	ctx *cuda.Context
	// lanes hold the streams and buffers of launches in flight (several
	// queries' launches overlap, each on its own stream); kmu guards the
	// kernel table, mu KernelTime. Host work around a launch runs
	// unlocked, so several queries can prepare and finish at once.
	mu, kmu sync.Mutex
	kernels map[gpuShape]*nvrtc.Kernels
	lanes   *gpudb.Lanes
	// side lanes run the MSV pass's long targets beside a lane's launch
	// (split.go); one is taken only while holding a lane.
	side *gpudb.Lanes
	// KernelTime accumulates the time the kernels ran (CUDA events), for
	// benchmarks that separate device time from host work.
	KernelTime time.Duration
	// SSVKernelTime is the SSV kernel's share of KernelTime; the rest is
	// the MSV program over the targets SSV leaves undecided, a second
	// launch that lasts as long as the longest of them takes (MSV runs
	// on whole targets).
	SSVKernelTime time.Duration
	// Stats counts launches and the host time around them.
	Stats gpudb.LaunchStats
	// ForceMSV sends every target through the full MSV program, to
	// measure it; the results are then DPScore's, not Score's.
	ForceMSV bool
	// WindowStep sets the SSV pass's windows (window.go): 0 picks them
	// from the database and the device, < 0 keeps targets whole, > 0 cuts
	// every target longer than WindowStep plus the overlap. WindowScale
	// (0: 1) scales the picked step, for benchmarks.
	WindowStep  int
	WindowScale float64
	// SSVCopies sets the copies of SSV's profile in shared memory: 0
	// picks, 1 one table, any other value one per target of a warp.
	SSVCopies int
	// MinNodes (0: nodesFor's choice) is the fewest nodes a thread holds;
	// MSVMinNodes, if set, in the MSV pass only (for benchmarks).
	MinNodes, MSVMinNodes int
	// SSVRows sets the rows ssv_kernel takes a step (msv.cu): 0 picks,
	// 1 or 2.
	SSVRows int
	// Prefetch (0: msv.cu picks) sets the residue words msv_kernel
	// fetches ahead, for benchmarks.
	Prefetch int
	// MSVRows (0: msvRowsFor's choice, 1 or 2) sets the rows msv_kernel
	// takes a step; MSVApart (0: msv.cu's choice, 1 on, 2 off) its
	// MSV_XB_APART; for benchmarks.
	MSVRows, MSVApart int
	// MSVSpec (0: msv.cu's choice, 1 on, 2 off) sets msv_kernel's
	// MSV_SPEC (rows run with xB guessed, then checked), for benchmarks.
	MSVSpec int
	// LongRows splits the MSV pass (split.go): undecided targets longer
	// than it run on a shape of at least LongNodes nodes a thread (0:
	// longNodesFor) beside the others; 0 picks the length (longRowsFor),
	// < 0 keeps one launch.
	LongRows, LongNodes int
	// SegRows segments the MSV pass's long targets (segment.go): undecided
	// targets longer than it run a warp each, cut into 32 segments; 0
	// picks (segRowsFor: the SegTargets longest, 0: segTargetsFor), < 0
	// none.
	SegRows, SegTargets int
	// Pass is the size of the last MSV pass Scores ran (the targets SSV
	// left undecided), for benchmarks: the host knows it before the
	// launch.
	Pass PassSize
	// Repeat > 1 runs each SSV kernel that many times back to back (for
	// benchmarks: the device's steady rate, its clocks up) and counts
	// their mean time in KernelTime.
	Repeat int
}

// PassSize is an MSV pass's work: targets, their residues, the longest;
// Segmented, how many of the targets ran segmented (segment.go).
type PassSize struct{ Targets, Residues, Longest, Segmented int }

// passSize measures the pass over the targets idx.
func passSize(dsqs [][]byte, idx []int) PassSize {
	p := PassSize{Targets: len(idx)}
	for _, i := range idx {
		p.Residues += len(dsqs[i])
		p.Longest = max(p.Longest, len(dsqs[i]))
	}
	return p
}

// gpuShape is one kernel specialisation: T threads per target, C nodes per
// thread, KP residue codes (+1 padding), BLOCK threads per CUDA block,
// Copies of SSV's profile in shared memory (1 or 32/T), Rows rows a step
// in ssv_kernel (1 or 2: two profile tables), PF residue words fetched
// ahead by msv_kernel (0: msv.cu's choice, MSV_PF), MRows rows a step
// in msv_kernel (1 or 2), Apart msv_kernel's MSV_XB_APART and Spec its
// MSV_SPEC (0: msv.cu's choice, 1 on, 2 off).
type gpuShape struct{ T, C, KP, Block, Copies, Rows, PF, MRows, Apart, Spec int }

// NewGPU prepares the filter on a device context.
func NewGPU(ctx *cuda.Context) *GPU {
	return &GPU{ctx: ctx, kernels: map[gpuShape]*nvrtc.Kernels{}, lanes: gpudb.NewLanes(ctx, gpudb.LanesPerKernel),
		side: gpudb.NewLanes(ctx, gpudb.LanesPerKernel)}
}

// stride is the number of profile words between threads: odd, so that
// the 32 threads of a warp read 32 different shared-memory banks; with
// two rows a step (either kernel), room for the shifted table's extra
// word.
func (s gpuShape) stride() int {
	if s.Rows == 2 || s.MRows == 2 {
		return (s.C/2 + 1) | 1
	}
	return s.C/2 | 1
}

// tables is the number of SSV profile tables (msv.cu: SSV_ROWS).
func (s gpuShape) tables() int { return max(1, s.Rows) }

func (s gpuShape) sharedBytes() int { return s.KP * s.T * s.stride() * 4 }

// msvSharedBytes is msv_kernel's shared memory: the profile (two tables
// with two rows a step), then one word per residue code
// (msvProfileWords).
func (s gpuShape) msvSharedBytes() int { return max(1, s.MRows)*s.sharedBytes() + 4*s.KP }

// ssvSharedBytes is ssv_kernel's shared memory: with one copy per
// target of a warp, rows padded to 32 words and each copy 32 words
// longer (msv.cu: SSV_ROWW, SSV_COPYW).
func (s gpuShape) ssvSharedBytes() int {
	if s.Copies <= 1 {
		return s.tables() * s.sharedBytes()
	}
	roww := (s.T*s.stride() + 31) &^ 31
	return s.Copies * (s.tables()*s.KP*roww + 32) * 4
}

// nodesFor is the fewest nodes shapeFor gives a thread (below 32
// threads a target) for a model of M nodes: 12, and 24 from M = 192 on,
// where that halves the threads a target (T = 8 instead of 16 up to
// M = 383, 16 instead of 32 up to 767). Measured on an H100
// (docs/BENCHMARKS.md): 24 nodes ran M = 200 and 400 faster; below 192
// they would leave T <= 4 with rows too wide for the profile copies
// (msv.cu) in 64 KiB, and M = 150 ran slower. Also 24 for M = 24..47:
// one thread a target (T = 1), which takes two rows a step (rowsFor)
// and needs no profile copies; at M = 25 the SSV kernel ran 11.2 TCUPS
// instead of 7.0 on T = 2. (Below 24, T = 1 with 12, whose windows
// overlap less: windowOverlap.)
func nodesFor(M int) int {
	if M >= 192 || (M >= 24 && M < 48) {
		return 24
	}
	return 12
}

// rowsFor is the rows a step ssv_kernel takes on T threads a target: two
// for T = 1 (measured with ncu on an H100 at M = 10: 115 us instead of
// 136 on 100M residues, 17% fewer instructions); one otherwise, where
// the second table would not fit the profile copies in 64 KiB, and
// without them bank conflicts cost more than it saved (M = 25 and 50:
// 8-21% slower).
func rowsFor(T int) int {
	if T == 1 {
		return 2
	}
	return 1
}

// msvShapeFor is the MSV pass's shape: threads per target such that each
// holds at least msvNodesFor(M) nodes (the per-row shuffle and residue
// fetch are amortised over them), as CUDAMPF++ picks its S-lane kernels
// by model length.
func msvShapeFor(M, Kp int) gpuShape { return shapeForNodes(M, Kp, msvNodesFor(M)) }

// msvNodesFor is nodesFor for the MSV pass, except M = 48..95, whose
// threads take 6 nodes (T = 8 instead of 4): the pass walks whole targets
// row by row, and shorter rows a thread shorten its chain. Measured on an
// H100 (docs/BENCHMARKS.md, "The MSV pass on eight threads a target" and
// "Shapes for M = 64..150"): the pass 0.43-0.45 ms instead of 0.52-0.57
// at M = 50 and 63, 0.34-0.48 instead of 0.50-0.59 at M = 64..90, where
// T = 16 was no shorter. From M = 96 on nodesFor gives T = 8 already:
// T = 16 was 0.09 ms longer at 96, 0.02-0.03 shorter at 100 and 110
// (the noise: the same shape ran 0.48-0.54 ms at 96), 0.02-0.07 longer
// at 128 and 150, and T = 32 0.19-0.26 longer there.
// Also M = 25..32 on T = 4 (6 nodes, 4 words a thread) instead of T = 1,
// with msv.cu's MSV_SPEC: measured on an H100 (docs/BENCHMARKS.md, "The
// MSV pass with xB guessed"), the filter's total 0.476-0.539 ms instead of
// 0.540-0.587 at M = 25, 28 and 32; at 16 (T = 2) the same, at 40 and 47
// 0.68 against 0.59-0.63 (there T = 1 with the long targets apart wins).
// (When the pass segments its long targets, the default, M = 25..32 run
// on T = 1 instead: GPU.msvNodes, segPassNodes.)
func msvNodesFor(M int) int {
	if (M >= 25 && M <= 32) || (M >= 48 && M < 96) {
		return 6
	}
	return nodesFor(M)
}

// ssvNodesFor is nodesFor for the SSV pass, which runs M = 48..150 on one
// thread a target (T = 1 takes two rows a step and needs no profile
// copies): 48 nodes for M = 48..63, 64 for 64..127, 128 for 128..150
// (threads of up to 75 words). Measured on an H100 (docs/BENCHMARKS.md,
// "Shapes for M = 64..150"): the SSV kernel 12.0-15.2 TCUPS at
// M = 64..110 instead of 8.0-9.9 (T = 4 and 8), 15.6 and 14.9 at 128 and
// 150 instead of 9.5 and 9.4 (T = 8); T = 2, one row a step or two, ran
// 7.8-8.7. Within T = 1 the node count only sets the windows' overlap
// (2n - 2): 128 nodes below 128 measured 16% slower at M = 64 and 4% at
// 90, 2-3% faster at 72, 80 and 96..110. Beyond 150 (wider threads) T = 1
// was not measured.
// The MSV pass keeps its own shape (msvNodesFor): on T = 1 with 25 words
// a thread its row chain (the row max) took 0.88 ms instead of 0.49.
func ssvNodesFor(M int) int {
	switch {
	case M >= 48 && M < 64:
		return 48
	case M >= 64 && M < 128:
		return 64
	case M >= 128 && M <= 150:
		return 128
	}
	return nodesFor(M)
}

// ssvShapeFor is the SSV pass's shape for a model of M nodes.
func ssvShapeFor(M, Kp int) gpuShape { return shapeForNodes(M, Kp, ssvNodesFor(M)) }

// shapeForNodes is shapeFor with at least n nodes a thread.
func shapeForNodes(M, Kp, n int) gpuShape {
	T := 32
	for T > 1 && M/T < n {
		T /= 2
	}
	C := (M + T - 1) / T
	C += C & 1
	return gpuShape{T: T, C: C, KP: Kp + 1, MRows: msvRowsFor(T)}.withRows(rowsFor(T))
}

// msvRowsFor is the rows a step msv_kernel takes on T threads a target:
// two for T = 1, where the SSV program's stride has room for the
// shifted table already (rowsFor) and no byte permute is then needed;
// one otherwise.
func msvRowsFor(T int) int {
	if T == 1 {
		return 2
	}
	return 1
}

// withRows is s with r rows a step in ssv_kernel (1 or 2), and the
// profile copies and block size that go with its shared memory.
func (s gpuShape) withRows(r int) gpuShape {
	s.Rows, s.Copies, s.Block = r, 1, 256
	if T := s.T; T >= 2 && T <= 8 {
		// A profile copy per target of the warp: no bank conflicts
		// between its 32/T targets' rows (msv.cu). Measured on an H100
		// (docs/BENCHMARKS.md): 3-17% faster SSV for T = 2, 4, 8; none
		// for T = 16; T = 1 has no conflicts (odd rows of one word a
		// lane), and its 32 copies cost 26% (occupancy). Past 64 KiB
		// (threads of more than 24 nodes) they would cost occupancy too.
		s.Copies = 32 / T
		if s.ssvSharedBytes() > 64<<10 {
			s.Copies = 1
		}
	}
	if s.sharedBytes() > 96*1024 {
		s.Block = 512 // one CUDA block per SM: give it more warps
	}
	return s
}

// program is the SSV/MSV source specialised on the shape.
func (s gpuShape) program() nvrtc.Program {
	return nvrtc.Program{
		Name:    "msv.cu",
		Source:  s.defines() + cudaSource,
		Options: []string{"-std=c++17"},
	}
}

// defines are the kernels' compile-time parameters.
func (s gpuShape) defines() string {
	d := fmt.Sprintf("#define T %d\n#define C %d\n#define KP %d\n#define BLOCK %d\n#define SSV_COPIES %d\n#define SSV_ROWS %d\n", s.T, s.C, s.KP, s.Block, s.Copies, s.tables())
	d += fmt.Sprintf("#define MSV_ROWS %d\n", max(1, s.MRows))
	if s.PF > 0 {
		d += fmt.Sprintf("#define MSV_PF %d\n", s.PF)
	}
	if s.Apart > 0 {
		d += fmt.Sprintf("#define MSV_XB_APART %d\n", s.Apart%2)
	}
	if s.Spec > 0 {
		d += fmt.Sprintf("#define MSV_SPEC %d\n", s.Spec%2)
	}
	if s.T == 1 {
		d += fmt.Sprintf("#define MSV_SEG_WARM %d\n", s.segWarm())
	}
	return d
}

// Precompile starts compiling, in the background, the kernels that Scores
// will need for a model of length M on devices of compute capability t.
func Precompile(M, Kp int, t nvrtc.Target) {
	nvrtc.Prefetch(ssvShapeFor(M, Kp).program(), t, nvrtc.DefaultCache())
	ms := msvShapeFor(M, Kp)
	if M >= 25 && M <= segDefaultMaxM {
		ms = shapeForNodes(M, Kp, segPassNodes) // the pass segments (GPU.msvNodes)
	}
	if ms.T != ssvShapeFor(M, Kp).T {
		nvrtc.Prefetch(ms.program(), t, nvrtc.DefaultCache())
	}
	// The long undecided targets' shape (split.go), where the pass splits.
	if ls := shapeForNodes(M, Kp, longNodesFor(M)); M > segDefaultMaxM && ms.T == 1 && ls.T != 1 {
		nvrtc.Prefetch(ls.program(), t, nvrtc.DefaultCache())
	}
}

func (g *GPU) kernel(s gpuShape) (*nvrtc.Kernels, error) {
	g.kmu.Lock()
	defer g.kmu.Unlock()
	if k := g.kernels[s]; k != nil {
		return k, nil
	}
	k, err := nvrtc.Build(g.ctx, s.program())
	if err != nil {
		return nil, err
	}
	shared := map[string]int{"ssv_kernel": s.ssvSharedBytes(), "msv_kernel": s.msvSharedBytes()}
	if s.T == 1 {
		shared["msv_seg_kernel"] = s.msvSharedBytes()
	}
	for name, shared := range shared {
		f, err := k.Function(name)
		if err != nil {
			return nil, err
		}
		if err := f.SetMaxDynamicSharedMemory(shared); err != nil {
			return nil, err
		}
	}
	g.kernels[s] = k
	return k, nil
}

// profileWords packs a per-node int16 value into the kernels' layout:
// residue x, thread t, word j holds nodes t*C+2j+1 and t*C+2j+2; the
// last code is the padding row.
func profileWords(s gpuShape, Kp int, cell func(x, k int) int16, pad int16) []byte {
	return profileWordsFrom(s, Kp, cell, pad, 1)
}

// profileWordsFrom is profileWords with word j of thread t holding nodes
// t*C+2j+first and the next, for words while the first node is at most
// t*C+C; nodes below 1 are pad. first = 0 is ssv_kernel's shifted table
// (two rows a step): NW+1 words a thread.
func profileWordsFrom(s gpuShape, Kp int, cell func(x, k int) int16, pad int16, first int) []byte {
	st := s.stride()
	out := make([]byte, s.sharedBytes())
	node := func(x, k int) int16 {
		if x >= Kp || k < 1 {
			return pad
		}
		return cell(x, k)
	}
	for x := 0; x < s.KP; x++ {
		for t := 0; t < s.T; t++ {
			for j := 0; 2*j+first <= s.C; j++ {
				k := t*s.C + 2*j + first
				a, b := node(x, k), node(x, k+1)
				off := ((x*s.T+t)*st + j) * 4
				binary.LittleEndian.PutUint16(out[off:], uint16(a))
				binary.LittleEndian.PutUint16(out[off+2:], uint16(b))
			}
		}
	}
	return out
}

// ssvProfileWords is ssv_kernel's profile: bias - cost (cost 255 past
// the model's end), padding -32767; with two rows a step, then the same
// shifted by one node (profileWordsFrom).
func ssvProfileWords(s gpuShape, Kp int, om *oprofile.MSVProfile) []byte {
	bias := int16(om.Bias)
	cell := func(x, node int) int16 {
		if node > om.M {
			return bias - 255
		}
		return bias - int16(om.RBV[x][node])
	}
	out := profileWords(s, Kp, cell, -32767)
	if s.Rows == 2 {
		out = append(out, profileWordsFrom(s, Kp, cell, -32767, 0)...)
	}
	return out
}

// msvProfileWords is msv_kernel's profile: profileWords of bias - cost
// (cost 255 past the model's end and for padding), with two rows a step
// then the same shifted by one node (profileWordsFrom), then for each
// residue code the largest bias - cost of its row over the nodes the
// kernel holds, T*C of them (the padding code's row: bias - 255), as an
// int32. With it the kernel adds the begin state's share to a row's max
// in one step (msv.cu).
func msvProfileWords(s gpuShape, Kp int, bias uint8, cost func(x, node int) int16) []byte {
	b := int16(bias)
	cell := func(x, node int) int16 { return b - cost(x, node) }
	out := profileWords(s, Kp, cell, b-255)
	if s.MRows == 2 {
		out = append(out, profileWordsFrom(s, Kp, cell, b-255, 0)...)
	}
	for x := 0; x < s.KP; x++ {
		best := b - 255
		if x < Kp {
			for k := 1; k <= s.T*s.C; k++ {
				best = max(best, cell(x, k))
			}
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(int32(best)))
	}
	return out
}

// nodes is the fewest nodes a thread holds in the SSV pass for a model
// of M nodes; msvNodes, in the MSV pass.
func (g *GPU) nodes(M int) int {
	if g.MinNodes > 0 {
		return g.MinNodes
	}
	return ssvNodesFor(M)
}

// msvNodes is for a pass of size ps (msvNodesForPass; a zero ps: the
// shape msvShapeFor precompiles).
func (g *GPU) msvNodes(M int, ps PassSize) int {
	if g.MSVMinNodes > 0 {
		return g.MSVMinNodes
	}
	if g.MinNodes > 0 {
		return g.MinNodes
	}
	if g.SegRows == 0 && M >= 25 && M <= segDefaultMaxM {
		return segPassNodes
	}
	return msvNodesForPass(M, ps, g.ctx.Device().Multiprocessors)
}

// maxSharedBytes is the most shared memory a CUDA block may have on the
// devices this runs on (compute capability 9.0: 227 KiB).
const maxSharedBytes = 227 << 10

// rows is the rows a step ssv_kernel takes for shape s (GPU.SSVRows).
func (g *GPU) rows(s gpuShape) int {
	if g.SSVRows == 1 || g.SSVRows == 2 {
		return g.SSVRows
	}
	return s.Rows
}

// msvOptions is s with msv_kernel's rows a step and MSV_XB_APART as g
// asks (benchmarks).
func (g *GPU) msvOptions(s gpuShape) gpuShape {
	if g.MSVRows == 1 || g.MSVRows == 2 {
		s.MRows = g.MSVRows
	}
	if g.MSVApart == 1 || g.MSVApart == 2 {
		s.Apart = g.MSVApart
	}
	if g.MSVSpec == 1 || g.MSVSpec == 2 {
		s.Spec = g.MSVSpec
	}
	return s
}

// Scores sets out[i] to the MSV filter score of db.Dsqs[i] (Score's value).
func (g *GPU) Scores(om *oprofile.MSVProfile, Kp int, db *gpudb.DB, out []float32) error {
	_, err := g.scores(om, Kp, db, out, nil)
	return err
}

// ScoresAbove is Scores, and lists in order the targets whose score is
// at least least(L) for their length L, found as each score is made:
// the staged search tests those alone (pipeline.MSVCandidates). Empty
// targets are not listed.
func (g *GPU) ScoresAbove(om *oprofile.MSVProfile, Kp int, db *gpudb.DB, out []float32, least func(L int) float32) ([]int, error) {
	return g.scores(om, Kp, db, out, least)
}

// scores is Scores, and with least ScoresAbove's list.
func (g *GPU) scores(om *oprofile.MSVProfile, Kp int, db *gpudb.DB, out []float32, least func(L int) float32) ([]int, error) {
	dsqs := db.Dsqs
	s := shapeForNodes(om.M, Kp, g.nodes(om.M))
	if r := g.rows(s); r != s.Rows {
		s = s.withRows(r)
	}
	s.PF = g.Prefetch
	s = g.msvOptions(s)
	switch {
	case g.SSVCopies == 1:
		s.Copies = 1
	case g.SSVCopies != 0:
		s.Copies = 32 / s.T
		if s.ssvSharedBytes() > maxSharedBytes {
			s.Copies = 1 // T = 1 with two tables: 244 KiB
		}
	}
	k, err := g.kernel(s)
	if err != nil {
		return nil, err
	}
	n := len(dsqs)
	var rest, above []int
	if g.ForceMSV {
		rest = make([]int, n)
		for i := range rest {
			rest[i] = i
		}
	} else {
		step, overlap := g.ssvWindows(s, om.M, db)
		layout, err := db.WindowLayout(s.T, step, overlap)
		if err != nil {
			return nil, err
		}
		prof := ssvProfileWords(s, Kp, om)
		maxw := hostArrays.Get(4 * n)
		err = g.launch(k, s, "ssv_kernel", prof, layout, nil, n, nil, maxw)
		if err == nil {
			rest, above = ssvScores(om, db.Lengths(), maxw, out, least)
		}
		hostArrays.Put(maxw)
		if err != nil {
			return nil, err
		}
	}
	ps := passSize(dsqs, rest)
	g.mu.Lock()
	g.Pass = ps
	g.mu.Unlock()
	if len(rest) == 0 {
		return above, nil
	}
	// The MSV pass's shape: the SSV pass's (one program) unless it has
	// other threads a target (M = 25..32 and 48..150: ssvNodesFor,
	// msvNodesFor; at M = 25..32 by the pass's size, msvNodesForPass).
	ms := shapeForNodes(om.M, Kp, g.msvNodes(om.M, ps))
	if ms.T == s.T {
		ms = s
	} else {
		ms.PF = g.Prefetch
		ms = g.msvOptions(ms)
		if k, err = g.kernel(ms); err != nil {
			return nil, err
		}
	}
	if err := g.msvPass(k, ms, om, Kp, db, rest, out); err != nil {
		return nil, err
	}
	if least == nil {
		return nil, nil
	}
	return mergeAbove(above, listAbove(rest, db.Lengths(), out, least)), nil
}

// listAbove is the targets of idx (in order) whose score in out is at
// least least(L) for their length L > 0.
func listAbove(idx []int, lens []int32, out []float32, least func(L int) float32) []int {
	var above []int
	for _, i := range idx {
		if L := int(lens[i]); L > 0 && out[i] >= least(L) {
			above = append(above, i)
		}
	}
	return above
}

// mergeAbove merges two increasing lists of targets, the SSV pass's and
// the MSV pass's (disjoint).
func mergeAbove(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// hostArrays keeps the wrapper's per-target host arrays (SSV maxima
// copied back, the MSV pass's length words and results) between queries:
// ~2 MB each at 485,000 targets, allocated and cleared per launch before.
var hostArrays gpudb.Pool[byte]

// msvScores turns the MSV pass's 16-bit results (xJ, or 0xffff for
// overflow; raw, 2 bytes a target in database numbering) of the targets
// idx into their scores in out, on all cores; the other entries of raw
// are not read.
func msvScores(om *oprofile.MSVProfile, dsqs [][]byte, idx []int, raw []byte, out []float32) {
	table := tjbTable(om)
	gpudb.ForChunks(len(idx), func(lo, hi int) {
		p := *om
		for _, i := range idx[lo:hi] {
			xj := binary.LittleEndian.Uint16(raw[2*i:])
			if xj == 0xffff {
				out[i] = float32(math.Inf(1))
				continue
			}
			p.TJB = tjbOf(table, om, len(dsqs[i]))
			out[i] = finalScore(int(xj), &p)
		}
	})
}

// ssvScores turns the SSV kernel's best diagonal of each target into its
// score where SSV decides it (lens: the targets' lengths; maxw: the
// kernel's 32-bit results as copied back, 4 bytes a target), and returns
// the others, in the database's order on the device, for the full MSV
// program. It runs on all cores, with the length costs from tjbTable and
// each length cost's decisions in a table (ssvDecisions): at 485,000
// targets per query this pass is host time every query pays. With least
// it also lists, in order, the decided targets whose score is at least
// least(L) (ScoresAbove).
func ssvScores(om *oprofile.MSVProfile, lens []int32, maxw []byte, out []float32, least func(L int) float32) (rest, above []int) {
	table := tjbTable(om)
	type chunk struct {
		lo          int
		rest, above []int
	}
	var mu sync.Mutex
	var chunks []chunk
	gpudb.ForChunks(len(lens), func(lo, hi int) {
		var c chunk
		var d ssvDecisions
		lastL, leastL := -1, float32(0)
		for i := lo; i < hi; i++ {
			L := int(lens[i])
			if L > 0 {
				// A device holds its targets longest first, so the
				// length cost and the least score change rarely from
				// one target to the next.
				if tjb := tjbOf(table, om, L); !d.filled || d.tjb != tjb {
					d.fill(om, tjb)
				}
				if d.applies {
					w := binary.LittleEndian.Uint32(maxw[4*i:])
					cell := uint8(255)
					if int(w) < 127-int(om.Bias) {
						cell = uint8(w) + 128
					}
					if d.ok[cell] {
						out[i] = d.score[cell]
						if least != nil {
							if L != lastL {
								lastL, leastL = L, least(L)
							}
							if out[i] >= leastL {
								c.above = append(c.above, i)
							}
						}
						continue
					}
				}
			}
			c.rest = append(c.rest, i)
		}
		c.lo = lo
		mu.Lock()
		chunks = append(chunks, c)
		mu.Unlock()
	})
	sort.Slice(chunks, func(a, b int) bool { return chunks[a].lo < chunks[b].lo })
	for _, c := range chunks {
		rest = append(rest, c.rest...)
		above = append(above, c.above...)
	}
	if least != nil && above == nil {
		above = []int{} // a list, empty
	}
	return rest, above
}

// ssvDecisions is ssvDecide of every largest cell at one length cost
// (TJB): per target, a table lookup instead of the score's arithmetic.
type ssvDecisions struct {
	filled  bool
	tjb     uint8
	applies bool // ssvApplies at this cost
	ok      [256]bool
	score   [256]float32
}

// fill makes d the decisions at length cost tjb.
func (d *ssvDecisions) fill(om *oprofile.MSVProfile, tjb uint8) {
	p := *om
	p.TJB = tjb
	d.filled, d.tjb, d.applies = true, tjb, ssvApplies(&p)
	if !d.applies {
		return
	}
	for c := range d.score {
		d.score[c], d.ok[c] = ssvDecide(uint8(c), &p)
	}
}

// launch runs one kernel over a resident layout (or subset, laid out on
// the launch's lane) and copies its result per target (n targets,
// database numbering) into raw: ssv_kernel's 32-bit maxima (into a zeroed
// buffer: windows of one target meet there), msv_kernel's 16-bit scores
// (only the layout's targets' entries are written). raw has the result
// width times n bytes; it is read after the lane is given back.
func (g *GPU) launch(k *nvrtc.Kernels, s gpuShape, name string, prof []byte, layout *gpudb.Device, subset *gpudb.Subset, n int, tjbm, raw []byte, scalars ...int32) error {
	ln, err := g.lanes.Take()
	if err != nil {
		return err
	}
	defer g.lanes.Give(ln)
	defer g.Stats.Held(time.Now())
	q, err := g.prepare(ln, k, s, name, prof, layout, subset, n, tjbm, scalars...)
	if err != nil {
		return err
	}
	reps := 1
	if name == "ssv_kernel" && g.Repeat > 1 {
		reps = g.Repeat
	}
	if reps > 1 {
		// As many untimed launches first, so that the timed ones find
		// the device busy, its clocks up, and none waits for the host.
		if err := q.launches(ln.Stream, reps); err != nil {
			return err
		}
		if err := ln.Stream.Memset32(q.next.Ptr(), 0, 1); err != nil {
			return err
		}
	}
	d, err := ln.Run(func(st *cuda.Stream) error { return q.launches(st, reps) }, q.out, raw[:q.width*n])
	d /= time.Duration(reps)
	if err != nil {
		return fmt.Errorf("msv filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	g.addTime(d, name == "ssv_kernel")
	return nil
}

// addTime counts a launch's device time (KernelTime; SSVKernelTime for
// the SSV kernel's).
func (g *GPU) addTime(d time.Duration, ssv bool) {
	g.mu.Lock()
	g.KernelTime += d
	if ssv {
		g.SSVKernelTime += d
	}
	g.mu.Unlock()
}

// queued is one kernel launch with its inputs on a lane: function,
// shape, arguments and the buffers of its work counter and results.
type queued struct {
	f         *cuda.Function
	cfg       cuda.LaunchConfig
	args      cuda.Args
	next, out *cuda.Buffer
	width     int // bytes of a target's result
}

// prepare lays out the subset (if any), uploads the profile and the
// per-target words and clears the counter (and ssv_kernel's maxima) on
// the lane, in stream order, and returns the launch to queue.
func (g *GPU) prepare(ln *gpudb.Lane, k *nvrtc.Kernels, s gpuShape, name string, prof []byte, layout *gpudb.Device, subset *gpudb.Subset, n int, tjbm []byte, scalars ...int32) (*queued, error) {
	var err error
	if subset != nil {
		if layout, err = ln.Layout(subset); err != nil {
			return nil, err
		}
	}
	bp, err := ln.Upload("prof", prof)
	if err != nil {
		return nil, err
	}
	q := &queued{width: 2}
	if q.next, err = ln.Zero("next", 4); err != nil {
		return nil, err
	}
	shared := s.msvSharedBytes()
	if name == "ssv_kernel" {
		q.width, shared = 4, s.ssvSharedBytes()
		q.out, err = ln.Zero("ssv.out", 4*n)
	} else {
		q.out, err = ln.Bufs.Get("out", 2*n)
	}
	if err != nil {
		return nil, err
	}
	a := &q.args
	a.Buffer(bp).Buffer(layout.Res).Buffer(layout.Table).Int32(int32(layout.NBlocks)).Buffer(q.next)
	if name != "ssv_kernel" { // msv_kernel, msv_seg_kernel
		bj, err := ln.Upload("tjbm", tjbm)
		if err != nil {
			return nil, err
		}
		a.Int32(scalars[0]).Int32(scalars[1]).Int32(scalars[2]).Buffer(bj)
	}
	a.Buffer(q.out)
	if q.f, err = k.Function(name); err != nil {
		return nil, err
	}
	q.cfg = cuda.LaunchConfig{Grid: cuda.Dim3{X: gpudb.PersistentGrid(g.ctx, s.Block, shared)}, Block: cuda.Dim3{X: s.Block}, SharedMem: shared}
	return q, nil
}

// launches queues the launch n times on st; after the first, the work
// counter starts from 0 again (the results are the same each time).
func (q *queued) launches(st *cuda.Stream, n int) error {
	for r := range n {
		if r > 0 {
			if err := st.Memset32(q.next.Ptr(), 0, 1); err != nil {
				return err
			}
		}
		cfg := q.cfg
		cfg.Stream = st
		if err := q.f.Launch(cfg, &q.args); err != nil {
			return err
		}
	}
	return nil
}
