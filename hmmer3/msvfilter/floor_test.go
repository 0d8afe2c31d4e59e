package msvfilter

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestSSVLaunchFloor looks for the fixed cost of one ssv_kernel launch
// (issue 4: about 0.27 ms on a 1M-residue database where a warp has a few
// microseconds of rows). It is a probe, not a check: with
// HMMGO_SSV_FLOOR=residues[,residues] (synthetic databases as
// TestGPUThroughput's) and HMMGO_SSV_FLOOR_M=M[,M] it times, by CUDA
// events, the kernel in several launch forms (grids, block sizes, no
// memset between launches, an empty kernel of the same shape), and runs a
// copy of the kernel that stamps each warp's entry, start of work and exit
// with %globaltimer, to see where in the launch the time goes.
// HMMGO_SSV_FLOOR_NCU=1 only launches a few kernels, for ncu;
// HMMGO_SSV_ROWS=1 or 2 sets GPU.SSVRows.
func TestSSVLaunchFloor(t *testing.T) {
	env := os.Getenv("HMMGO_SSV_FLOOR")
	if env == "" {
		t.Skip("set HMMGO_SSV_FLOOR=<residues> to probe the SSV kernel's launch floor")
	}
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	Ms := intList(t, os.Getenv("HMMGO_SSV_FLOOR_M"), []int{10, 100, 800})
	ncu := os.Getenv("HMMGO_SSV_FLOOR_NCU") != ""
	g.SSVRows, _ = strconv.Atoi(os.Getenv("HMMGO_SSV_ROWS")) // 0: as Scores picks
	p := newFloorProbe(t, g)
	defer p.free()
	for _, n := range intList(t, env, nil) {
		db := syntheticDB(ctx, n)
		longest := db.MaxLen()
		fmt.Printf("## database: %d targets, %d residues, longest %d\n", len(db.Dsqs), db.Residues(), longest)
		rng := rand.New(rand.NewSource(3))
		for _, M := range Ms {
			h := testmodels.RandomHMM(rng, amino, M)
			o := profileOf(h)
			p.model(t, &o.MSV, amino.Kp, db, ncu)
		}
		db.Free()
	}
}

func intList(t *testing.T, v string, def []int) []int {
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// syntheticDB is TestGPUThroughput's database of about n residues.
func syntheticDB(ctx *cuda.Context, n int) *gpudb.DB {
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, _ := testmodels.RandomDatabase(rng, amino, n)
	return gpudb.New(ctx, dsqs)
}

type floorProbe struct {
	g              *GPU
	ctx            *cuda.Context
	st             *cuda.Stream
	e0, e1         *cuda.Event
	empty          *cuda.Function
	prof, out, nxt *cuda.Buffer
	trace          *cuda.Buffer
}

const floorReps = 64

func newFloorProbe(t *testing.T, g *GPU) *floorProbe {
	p := &floorProbe{g: g, ctx: g.ctx}
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	p.st, err = p.ctx.NewStream()
	must(err)
	p.e0, err = p.ctx.NewEvent(true)
	must(err)
	p.e1, err = p.ctx.NewEvent(true)
	must(err)
	k, err := nvrtc.Build(p.ctx, nvrtc.Program{Name: "empty.cu", Source: `
extern "C" __global__ void empty_kernel(unsigned int* p) {
    extern __shared__ unsigned int s[];
    if (threadIdx.x == 0 && blockIdx.x == 0x7fffffff) p[0] = s[0];
}`})
	must(err)
	p.empty, err = k.Function("empty_kernel")
	must(err)
	must(p.empty.SetMaxDynamicSharedMemory(200 << 10))
	p.nxt, err = p.ctx.Alloc(4 * 2 * floorReps)
	must(err)
	p.trace, err = p.ctx.Alloc(64 * 132 * 64 * 4)
	must(err)
	return p
}

func (p *floorProbe) free() {
	for _, b := range []*cuda.Buffer{p.prof, p.out, p.nxt, p.trace} {
		b.Free()
	}
}

// launchForm is one way to launch a kernel for the probe.
type launchForm struct {
	name    string
	f       *cuda.Function
	grid    int
	block   int
	shared  int
	nblocks int // warp blocks the kernel is told of
	layout  *gpudb.Device
	trace   bool // pass the trace buffer (the stamped copy)
	empty   bool
	memset  bool // reset one counter between launches (as gpu.go does), else a fresh counter each
	carve   int  // preferred shared carve-out in percent (0: leave)
	outSize int
}

func (p *floorProbe) launch(lf launchForm, r int) error {
	var a cuda.Args
	if lf.empty {
		a.Buffer(p.out)
	} else {
		next := p.nxt.Ptr()
		if !lf.memset {
			next = next.Add(4 * r)
		}
		a.Buffer(p.prof).Buffer(lf.layout.Res).Buffer(lf.layout.Table).Int32(int32(lf.nblocks)).Ptr(next).Buffer(p.out)
		if lf.trace {
			a.Buffer(p.trace)
		}
	}
	return lf.f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: lf.grid}, Block: cuda.Dim3{X: lf.block}, SharedMem: lf.shared, Stream: p.st}, &a)
}

// steady is the mean event time of floorReps launches queued behind as
// many untimed ones; single the best and median of five launches each
// on an idle device.
func (p *floorProbe) time(lf launchForm) (steady, best, median time.Duration, err error) {
	reset := func(r int) error {
		if lf.memset {
			return p.st.Memset32(p.nxt.Ptr(), 0, 1)
		}
		if r == 0 {
			return p.st.Memset32(p.nxt.Ptr(), 0, 2*floorReps)
		}
		return nil
	}
	batch := func(timed bool) error {
		if err := reset(0); err != nil {
			return err
		}
		if timed {
			if err := p.e0.Record(p.st); err != nil {
				return err
			}
		}
		for r := range floorReps {
			if r > 0 {
				if err := reset(r); err != nil {
					return err
				}
			}
			if err := p.launch(lf, r); err != nil {
				return err
			}
		}
		if timed {
			return p.e1.Record(p.st)
		}
		return nil
	}
	if err = batch(false); err != nil {
		return
	}
	if err = batch(true); err != nil {
		return
	}
	if err = p.st.Synchronize(); err != nil {
		return
	}
	d, err := cuda.Elapsed(p.e0, p.e1)
	if err != nil {
		return
	}
	steady = d / floorReps
	var ones []time.Duration
	for range 5 {
		if err = reset(0); err != nil {
			return
		}
		if err = p.st.Synchronize(); err != nil {
			return
		}
		time.Sleep(2 * time.Millisecond)
		if err = p.e0.Record(p.st); err != nil {
			return
		}
		if err = p.launch(lf, 0); err != nil {
			return
		}
		if err = p.e1.Record(p.st); err != nil {
			return
		}
		if err = p.st.Synchronize(); err != nil {
			return
		}
		d, err = cuda.Elapsed(p.e0, p.e1)
		if err != nil {
			return
		}
		ones = append(ones, d)
	}
	slices.Sort(ones)
	return steady, ones[0], ones[2], nil
}

// residentBlocks is how many blocks of f fit on one SM at once.
func residentBlocks(dev *cuda.Device, regs, block, shared int) int {
	warps := block / 32
	regsPerWarp := (regs*32 + 255) &^ 255
	byRegs := dev.RegistersPerSM / regsPerWarp / warps
	byThreads := dev.MaxThreadsPerSM / block
	n := min(byRegs, byThreads, 32)
	if shared > 0 {
		n = min(n, dev.SharedMemPerSM/(shared+1024))
	}
	return n
}

func (p *floorProbe) model(t *testing.T, om *oprofile.MSVProfile, Kp int, db *gpudb.DB, ncu bool) {
	g := p.g
	M := om.M
	s := ssvShapeFor(M, Kp)
	if r := g.rows(s); r != s.Rows {
		s = s.withRows(r)
	}
	k, err := g.kernel(s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := k.Function("ssv_kernel")
	if err != nil {
		t.Fatal(err)
	}
	step, overlap := g.ssvWindows(s, M, db)
	layout, err := db.WindowLayout(s.T, step, overlap)
	if err != nil {
		t.Fatal(err)
	}
	words := ssvProfileWords(s, Kp, om)
	p.prof.Free()
	p.out.Free()
	if p.prof, err = p.ctx.Alloc(len(words)); err != nil {
		t.Fatal(err)
	}
	if err := p.prof.CopyFromHost(0, words); err != nil {
		t.Fatal(err)
	}
	if p.out, err = p.ctx.Alloc(4 * len(db.Dsqs)); err != nil {
		t.Fatal(err)
	}
	shared := s.ssvSharedBytes()
	regs, _ := f.Attribute(cuda.FuncNumRegs)
	local, _ := f.Attribute(cuda.FuncLocalSizeBytes)
	dev := p.ctx.Device()
	G0 := gpudb.PersistentGrid(p.ctx, s.Block, shared)
	res := dev.Multiprocessors * residentBlocks(dev, regs, s.Block, shared)
	need := min(G0, (layout.NBlocks*32+s.Block-1)/s.Block)
	rows := layoutRows(t, layout)
	fmt.Printf("# M=%d shape T=%d C=%d Block=%d copies=%d shared=%dB regs=%d local=%dB; windows step=%d overlap=%d; warp blocks %d (rows: max %d, sum %d); grid persistent %d, resident %d, needed %d\n",
		M, s.T, s.C, s.Block, s.Copies, shared, regs, local, step, overlap, layout.NBlocks, slices.Max(rows), sum(rows), G0, res, need)
	base := launchForm{f: f, block: s.Block, shared: shared, nblocks: layout.NBlocks, layout: layout, memset: true}
	forms := []launchForm{}
	add := func(name string, change func(*launchForm)) {
		lf := base
		lf.name = name
		lf.grid = G0
		change(&lf)
		forms = append(forms, lf)
	}
	add("persistent", func(*launchForm) {})
	if ncu {
		add("empty", func(lf *launchForm) { lf.empty, lf.f = true, p.empty })
		for _, lf := range forms {
			for r := range 3 {
				p.st.Memset32(p.nxt.Ptr(), 0, 1)
				if err := p.launch(lf, r); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := p.st.Synchronize(); err != nil {
			t.Fatal(err)
		}
		return
	}
	add("no-memset", func(lf *launchForm) { lf.memset = false })
	add("resident", func(lf *launchForm) { lf.grid = res })
	add("needed", func(lf *launchForm) { lf.grid = need })
	add("grid=SMs", func(lf *launchForm) { lf.grid = dev.Multiprocessors })
	add("no-work", func(lf *launchForm) { lf.nblocks = 0 })
	add("carve100", func(lf *launchForm) { lf.carve = 100 })
	add("empty", func(lf *launchForm) { lf.empty, lf.f = true, p.empty })
	add("empty-1", func(lf *launchForm) { lf.empty, lf.f, lf.grid = true, p.empty, 1 })
	for _, b := range []int{128, 512} {
		sb := s
		sb.Block = b
		kb, err := g.kernel(sb)
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := kb.Function("ssv_kernel")
		add(fmt.Sprintf("block%d", b), func(lf *launchForm) {
			lf.f, lf.block, lf.grid = fb, b, gpudb.PersistentGrid(p.ctx, b, shared)
		})
	}
	fmt.Printf("%-12s %8s %10s %10s %10s\n", "form", "grid", "steady_us", "single_us", "median_us")
	for _, lf := range forms {
		if lf.carve > 0 {
			if err := lf.f.SetAttribute(cuda.FuncPreferredCarveout, lf.carve); err != nil {
				t.Log(err)
			}
		}
		st, best, med, err := p.time(lf)
		if lf.carve > 0 {
			lf.f.SetAttribute(cuda.FuncPreferredCarveout, -1)
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%-12s %8d %10.1f %10.1f %10.1f\n", lf.name, lf.grid, us(st), us(best), us(med))
	}
	// memset alone and an empty event pair
	for _, name := range []string{"events", "memset"} {
		var ds []time.Duration
		for range 5 {
			p.st.Synchronize()
			p.e0.Record(p.st)
			if name == "memset" {
				p.st.Memset32(p.nxt.Ptr(), 0, 1)
			}
			p.e1.Record(p.st)
			p.st.Synchronize()
			d, _ := cuda.Elapsed(p.e0, p.e1)
			ds = append(ds, d)
		}
		slices.Sort(ds)
		fmt.Printf("%-12s %8s %10s %10.1f %10.1f\n", name, "-", "-", us(ds[0]), us(ds[2]))
	}
	p.traced(t, s, layout, G0)
}

func us(d time.Duration) float64 { return d.Seconds() * 1e6 }

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// layoutRows reads back each warp block's padded length.
func layoutRows(t *testing.T, l *gpudb.Device) []int {
	table := make([]byte, l.NBlocks*gpudb.BlockBytes)
	if err := l.Table.CopyToHost(table, 0); err != nil {
		t.Fatal(err)
	}
	rows := make([]int, l.NBlocks)
	for b := range rows {
		rows[b] = int(binary.LittleEndian.Uint32(table[b*gpudb.BlockBytes+256:]))
	}
	if len(rows) == 0 {
		rows = []int{0}
	}
	return rows
}

// tracedSource is msv.cu with ssv_kernel stamping, per warp, its entry,
// the end of the profile copy, its first warp block, its exit (all
// %globaltimer, ns), the blocks it ran, its SM, and the clock64 cycles to
// the end of the copy and to the exit.
func tracedSource(t *testing.T) string {
	src := cudaSource
	edits := []struct{ old, new string }{
		{"extern \"C\" __global__ void __launch_bounds__(BLOCK)\nssv_kernel(", `
__device__ __forceinline__ unsigned long long tr_now() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned tr_smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
#define TR_END do { if ((threadIdx.x & 31) == 0) { unsigned long long* p_ = trace + 8ull * (blockIdx.x * (BLOCK / 32) + threadIdx.x / 32); \
    p_[0] = tr_entry; p_[1] = tr_sync; p_[2] = tr_first; p_[3] = tr_now(); p_[4] = tr_n; p_[5] = tr_smid(); p_[6] = tr_c1 - tr_c0; p_[7] = clock64() - tr_c0; } } while (0)
extern "C" __global__ void __launch_bounds__(BLOCK)
ssv_kernel(`},
		{"unsigned int* __restrict__ out)\n{\n    u32* sprof = (u32*)SHARED_BASE;", "unsigned int* __restrict__ out, unsigned long long* trace)\n{\n    unsigned long long tr_entry = tr_now(), tr_c0 = clock64(), tr_sync = 0, tr_first = 0, tr_c1 = 0; int tr_n = 0;\n    u32* sprof = (u32*)SHARED_BASE;"},
		{"    __syncthreads();\n\n    const int lane = threadIdx.x & 31;\n    const int g = lane / T, t = lane % T;\n    const int copy", "    __syncthreads();\n    tr_sync = tr_now(); tr_c1 = clock64();\n\n    const int lane = threadIdx.x & 31;\n    const int g = lane / T, t = lane % T;\n    const int copy"},
		{"if (b >= nblocks) return;", "if (b >= nblocks) { TR_END; return; }"},
		{"const Block* blk = &blocks[b];", "const Block* blk = &blocks[b]; if (tr_n++ == 0) tr_first = tr_now();"},
	}
	for _, e := range edits {
		if !strings.Contains(src, e.old) {
			t.Fatalf("tracedSource: msv.cu no longer has %q", e.old)
		}
		src = strings.Replace(src, e.old, e.new, 1)
	}
	return src
}

func (p *floorProbe) traced(t *testing.T, s gpuShape, layout *gpudb.Device, grid int) {
	k, err := nvrtc.Build(p.ctx, nvrtc.Program{Name: "msv_trace.cu", Source: s.defines() + tracedSource(t), Options: []string{"-std=c++17"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := k.Function("ssv_kernel")
	if err != nil {
		t.Fatal(err)
	}
	shared := s.ssvSharedBytes()
	if err := f.SetMaxDynamicSharedMemory(shared); err != nil {
		t.Fatal(err)
	}
	warps := grid * s.Block / 32
	lf := launchForm{f: f, grid: grid, block: s.Block, shared: shared, nblocks: layout.NBlocks, layout: layout, trace: true, memset: true}
	for _, mode := range []string{"single", "queued"} {
		if mode == "queued" {
			// behind a few launches, as in steady state
			for r := range 4 {
				p.st.Memset32(p.nxt.Ptr(), 0, 1)
				p.launch(lf, r)
			}
		}
		p.st.Memset32(p.trace.Ptr(), 0, warps*16)
		p.st.Memset32(p.nxt.Ptr(), 0, 1)
		if mode == "single" {
			p.st.Synchronize()
		}
		p.e0.Record(p.st)
		if err := p.launch(lf, 0); err != nil {
			t.Fatal(err)
		}
		p.e1.Record(p.st)
		if err := p.st.Synchronize(); err != nil {
			t.Fatal(err)
		}
		ev, _ := cuda.Elapsed(p.e0, p.e1)
		raw := make([]byte, warps*64)
		if err := p.trace.CopyToHost(raw, 0); err != nil {
			t.Fatal(err)
		}
		summarizeTrace(mode, ev, raw, warps)
	}
}

func summarizeTrace(mode string, ev time.Duration, raw []byte, warps int) {
	type rec struct{ entry, sync, first, exit, n, sm, cSync, cExit uint64 }
	recs := make([]rec, warps)
	t0 := uint64(math.MaxUint64)
	var tEnd uint64
	for w := range recs {
		v := func(i int) uint64 { return binary.LittleEndian.Uint64(raw[w*64+8*i:]) }
		recs[w] = rec{v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7)}
		if recs[w].entry != 0 {
			t0 = min(t0, recs[w].entry)
			tEnd = max(tEnd, recs[w].exit)
		}
	}
	rel := func(x uint64) float64 { return float64(x-t0) / 1e3 }
	var entry, syncD, exit, work, idleExit []float64
	var cSync, cExit []float64
	working, blocks, missing := 0, 0, 0
	sms := map[uint64]int{}
	for _, r := range recs {
		if r.entry == 0 {
			missing++
			continue
		}
		entry = append(entry, rel(r.entry))
		syncD = append(syncD, float64(r.sync-r.entry)/1e3)
		exit = append(exit, rel(r.exit))
		cSync = append(cSync, float64(r.cSync))
		cExit = append(cExit, float64(r.cExit))
		sms[r.sm]++
		if r.n > 0 {
			working++
			blocks += int(r.n)
			work = append(work, float64(r.exit-r.first)/1e3)
		} else {
			idleExit = append(idleExit, rel(r.exit))
		}
	}
	q := func(v []float64) string {
		if len(v) == 0 {
			return "-"
		}
		slices.Sort(v)
		return fmt.Sprintf("%.1f/%.1f/%.1f/%.1f", v[0], v[len(v)/2], v[len(v)*9/10], v[len(v)-1])
	}
	fmt.Printf("trace %s: event %.1f us, warps' span %.1f us (%d warps, %d never ran, %d SMs); quantiles min/p50/p90/max in us from the first entry:\n", mode, us(ev), float64(tEnd-t0)/1e3, warps, missing, len(sms))
	fmt.Printf("  entry %s | copy+sync %s | exit %s | idle warps' exit %s\n", q(entry), q(syncD), q(exit), q(idleExit))
	fmt.Printf("  working warps %d, warp blocks %d, work time %s | cycles to sync %s, to exit %s\n", working, blocks, q(work), q(cSync), q(cExit))
	// entries in 10-us bins: when blocks started
	hist := map[int]int{}
	for _, e := range entry {
		hist[int(e/10)]++
	}
	var keys []int
	for k := range hist {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %d:%d", k*10, hist[k])
	}
	fmt.Printf("  warps entering per 10-us bin:%s\n", b.String())
}

// The probe's stamped copy of ssv_kernel is made by editing msv.cu's
// text; this fails when an edit no longer applies.
func TestTracedSourceEdits(t *testing.T) { tracedSource(t) }
