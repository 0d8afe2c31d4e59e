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
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

//go:embed msv.cu
var cudaSource string

// GPU runs the SSV/MSV filter on one device for batches of targets, with
// the same result per target as Score. SSV runs for every target; the few
// that SSV leaves undecided (or that it cannot handle at their length) go
// through the full MSV program, also on the GPU.
type GPU struct {
	ctx     *cuda.Context
	mu      sync.Mutex
	kernels map[gpuShape]*nvrtc.Kernels
	bufs    map[string]*cuda.Buffer
	// KernelTime accumulates the time the kernels ran (CUDA events), for
	// benchmarks that separate device time from host packing.
	KernelTime time.Duration
}

// gpuShape is one kernel specialisation: T threads per target, C nodes per
// thread, KP residue codes (+1 padding), BLOCK threads per CUDA block.
type gpuShape struct{ T, C, KP, Block int }

// NewGPU prepares the filter on a device context.
func NewGPU(ctx *cuda.Context) *GPU {
	return &GPU{ctx: ctx, kernels: map[gpuShape]*nvrtc.Kernels{}, bufs: map[string]*cuda.Buffer{}}
}

// shapeFor picks threads per target so that each thread holds at least a
// dozen nodes (the per-row shuffle and residue fetch are amortised over
// them), as CUDAMPF++ picks its S-lane kernels by model length.
func shapeFor(M, Kp int) gpuShape {
	T := 32
	for T > 1 && M/T < 12 {
		T /= 2
	}
	C := (M + T - 1) / T
	C += C & 1
	block := 256
	if words := (Kp + 1) * T * C / 2; words*4 > 96*1024 {
		block = 512 // one CUDA block per SM: give it more warps
	}
	return gpuShape{T: T, C: C, KP: Kp + 1, Block: block}
}

func (g *GPU) kernel(s gpuShape) (*nvrtc.Kernels, error) {
	if k := g.kernels[s]; k != nil {
		return k, nil
	}
	k, err := nvrtc.Build(g.ctx, nvrtc.Program{
		Name:    "msv.cu",
		Source:  fmt.Sprintf("#define T %d\n#define C %d\n#define KP %d\n#define BLOCK %d\n", s.T, s.C, s.KP, s.Block) + cudaSource,
		Options: []string{"-std=c++17"},
	})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"ssv_kernel", "msv_kernel"} {
		f, err := k.Function(name)
		if err != nil {
			return nil, err
		}
		if err := f.SetMaxDynamicSharedMemory(s.KP * s.T * s.C / 2 * 4); err != nil {
			return nil, err
		}
	}
	g.kernels[s] = k
	return k, nil
}

// buffer returns a device buffer of at least n bytes, reused across calls.
func (g *GPU) buffer(name string, n int) (*cuda.Buffer, error) {
	if b := g.bufs[name]; b != nil && b.Size() >= n {
		return b, nil
	}
	if b := g.bufs[name]; b != nil {
		b.Free()
	}
	b, err := g.ctx.Alloc(max(n, 4096))
	if err != nil {
		return nil, err
	}
	g.bufs[name] = b
	return b, nil
}

// profileWords packs a per-node int16 value (nodes 1..T*C, then a padding
// residue row) into the kernel's pair layout: residue x, thread t, word j
// holds nodes t*C+2j+1 and t*C+2j+2.
func profileWords(s gpuShape, Kp int, cell func(x, k int) int16, pad int16) []byte {
	words := s.T * s.C / 2
	out := make([]byte, s.KP*words*4)
	for x := 0; x < s.KP; x++ {
		for k := 1; k <= s.T*s.C; k += 2 {
			var a, b int16 = pad, pad
			if x < Kp {
				a, b = cell(x, k), cell(x, k+1)
			}
			off := (x*words + (k-1)/2) * 4
			binary.LittleEndian.PutUint16(out[off:], uint16(a))
			binary.LittleEndian.PutUint16(out[off+2:], uint16(b))
		}
	}
	return out
}

// blockBytes is the size of the kernel's Block struct.
const blockBytes = 32*4 + 32*4 + 4 + 4 + 8

// packBlocks sorts targets by length and groups S = 32/T of similar length
// into warp blocks (CUDAMPF++'s balancing), laying residues out as the
// kernels read them. It returns the residue bytes and the block table.
func packBlocks(dsqs [][]byte, idx []int, T int) (res, table []byte, nblocks int) {
	S := 32 / T
	order := append([]int(nil), idx...)
	sort.SliceStable(order, func(a, b int) bool { return len(dsqs[order[a]]) > len(dsqs[order[b]]) })
	for start := 0; start < len(order); start += S {
		group := order[start:min(start+S, len(order))]
		maxLen := (len(dsqs[group[0]]) + 3) &^ 3
		blk := make([]byte, blockBytes)
		for g, i := range group {
			binary.LittleEndian.PutUint32(blk[4*g:], uint32(i))
			binary.LittleEndian.PutUint32(blk[128+4*g:], uint32(len(dsqs[i])))
		}
		binary.LittleEndian.PutUint32(blk[256:], uint32(maxLen))
		binary.LittleEndian.PutUint32(blk[260:], uint32(len(group)))
		binary.LittleEndian.PutUint64(blk[264:], uint64(len(res)))
		table = append(table, blk...)
		body := make([]byte, maxLen*S)
		for i := range body {
			body[i] = 0xff
		}
		for g, i := range group {
			for p, x := range dsqs[i] {
				body[(p/4)*S*4+g*4+p%4] = x
			}
		}
		res = append(res, body...)
		nblocks++
	}
	return res, table, nblocks
}

// Scores sets out[i] to the MSV filter score of dsqs[i] (Score's value).
func (g *GPU) Scores(om *oprofile.MSVProfile, Kp int, dsqs [][]byte, out []float32) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := shapeFor(om.M, Kp)
	k, err := g.kernel(s)
	if err != nil {
		return err
	}
	bias := int16(om.Bias)
	cost := func(x, node int) int16 {
		if node > om.M {
			return 255
		}
		return int16(om.RBV[x][node])
	}
	ssvProf := profileWords(s, Kp, func(x, node int) int16 { return bias - cost(x, node) }, -32767)
	msvProf := profileWords(s, Kp, func(x, node int) int16 { return -cost(x, node) }, -255)

	all := make([]int, len(dsqs))
	for i := range all {
		all[i] = i
	}
	maxw, err := g.run(k, s, "ssv_kernel", ssvProf, dsqs, all, nil)
	if err != nil {
		return err
	}
	var rest []int
	for i, dsq := range dsqs {
		p := *om
		p.TJB = om.TJBFor(len(dsq))
		if len(dsq) > 0 && ssvApplies(&p) {
			cell := uint8(255)
			if int(maxw[i]) < 127-int(p.Bias) {
				cell = uint8(maxw[i]) + 128
			}
			if sc, ok := ssvDecide(cell, &p); ok {
				out[i] = sc
				continue
			}
		}
		rest = append(rest, i)
	}
	if len(rest) == 0 {
		return nil
	}
	tjbm := make([]byte, 4*len(dsqs))
	for _, i := range rest {
		binary.LittleEndian.PutUint32(tjbm[4*i:], uint32(uint8(om.TJBFor(len(dsqs[i]))+om.TBM)))
	}
	xj, err := g.run(k, s, "msv_kernel", msvProf, dsqs, rest, tjbm, int32(om.Bias), int32(om.Base), int32(om.TEC))
	if err != nil {
		return err
	}
	for _, i := range rest {
		p := *om
		p.TJB = om.TJBFor(len(dsqs[i]))
		if xj[i] == 0xffff {
			out[i] = float32(math.Inf(1))
		} else {
			out[i] = finalScore(int(xj[i]), &p)
		}
	}
	return nil
}

// run uploads a profile and the targets idx, launches one kernel over
// them and returns its 16-bit result per target (indexed like dsqs).
func (g *GPU) run(k *nvrtc.Kernels, s gpuShape, name string, prof []byte, dsqs [][]byte, idx []int, tjbm []byte, scalars ...int32) ([]uint16, error) {
	res, table, nblocks := packBlocks(dsqs, idx, s.T)
	bp, err := g.buffer(name+".prof", len(prof))
	if err != nil {
		return nil, err
	}
	br, err := g.buffer("res", len(res)+16)
	if err != nil {
		return nil, err
	}
	bt, err := g.buffer("blocks", len(table))
	if err != nil {
		return nil, err
	}
	bn, err := g.buffer("next", 4)
	if err != nil {
		return nil, err
	}
	bo, err := g.buffer("out", 2*len(dsqs))
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		b   *cuda.Buffer
		src []byte
	}{{bp, prof}, {br, res}, {bt, table}} {
		if len(c.src) > 0 {
			if err := c.b.CopyFromHost(0, c.src); err != nil {
				return nil, err
			}
		}
	}
	if err := bn.Memset32(0); err != nil {
		return nil, err
	}
	var a cuda.Args
	a.Buffer(bp).Buffer(br).Buffer(bt).Int32(int32(nblocks)).Buffer(bn)
	if name == "msv_kernel" {
		bj, err := g.buffer("tjbm", len(tjbm))
		if err != nil {
			return nil, err
		}
		if err := bj.CopyFromHost(0, tjbm); err != nil {
			return nil, err
		}
		a.Int32(scalars[0]).Int32(scalars[1]).Int32(scalars[2]).Buffer(bj)
	}
	a.Buffer(bo)
	f, err := k.Function(name)
	if err != nil {
		return nil, err
	}
	grid := g.ctx.Device().Multiprocessors * max(1, 2048/s.Block)
	smem := s.KP * s.T * s.C / 2 * 4
	if smem > 96*1024 {
		grid = g.ctx.Device().Multiprocessors
	}
	e0, err := g.ctx.NewEvent(true)
	if err != nil {
		return nil, err
	}
	defer e0.Destroy()
	e1, err := g.ctx.NewEvent(true)
	if err != nil {
		return nil, err
	}
	defer e1.Destroy()
	e0.Record(nil)
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: s.Block}, SharedMem: smem}, &a); err != nil {
		return nil, err
	}
	e1.Record(nil)
	if err := g.ctx.Synchronize(); err != nil {
		return nil, fmt.Errorf("msv filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	if d, err := cuda.Elapsed(e0, e1); err == nil {
		g.KernelTime += d
	}
	raw := make([]byte, 2*len(dsqs))
	if err := bo.CopyToHost(raw, 0); err != nil {
		return nil, err
	}
	outv := make([]uint16, len(dsqs))
	for i := range outv {
		outv[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return outv, nil
}
