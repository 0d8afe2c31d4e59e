// Package gpu scores sequences with HMMER 2.3.2's integer Viterbi
// algorithm on NVIDIA GPUs: a viterbi.Scorer whose scores are identical
// to viterbi.ScoreOne (and so to hmm2search) for every sequence, int32
// wrap-around included. viterbi.cu says how the kernel is laid out and
// why its results are exact; Shape says how it is specialised per model.
//
// The design is ClawHMMER's (length-sorted batches streamed to the
// device, one score per sequence, tracebacks on the CPU for hits only),
// with a group of threads per sequence instead of one thread: each
// thread keeps a chunk of the model's nodes in registers.
package gpu

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/lenorder"
)

//go:embed viterbi.cu
var kernelSource string

// programs caches compiled kernels per context and shape: models of the
// same length share one.
var programs struct {
	sync.Mutex
	m map[programKey]*nvrtc.Kernels
}

type programKey struct {
	ctx   *cuda.Context
	shape Shape
}

func build(ctx *cuda.Context, s Shape) (*cuda.Function, error) {
	programs.Lock()
	defer programs.Unlock()
	if programs.m == nil {
		programs.m = map[programKey]*nvrtc.Kernels{}
	}
	k := programs.m[programKey{ctx, s}]
	if k == nil {
		var err error
		// (-default-device: the strip kernel's lambda, unannotated, is
		// device code; every function of viterbi.cu is annotated.)
		k, err = nvrtc.Build(ctx, nvrtc.Program{Name: "viterbi.cu", Source: s.Defines() + kernelSource, Options: []string{"-std=c++17", "-default-device"}})
		if err != nil {
			return nil, err
		}
		programs.m[programKey{ctx, s}] = k
	}
	f, err := k.Function("h2vit_kernel")
	if err != nil {
		return nil, err
	}
	if s.SharedBytes() > 48*1024 {
		if err := f.SetMaxDynamicSharedMemory(s.SharedBytes()); err != nil {
			return nil, err
		}
	}
	if s.Carveout > 0 {
		if err := f.SetAttribute(cuda.FuncPreferredCarveout, s.Carveout); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Kernel is one profile loaded on one device.
type Kernel struct {
	ctx   *cuda.Context
	p     *plan7.Profile
	Shape Shape
	fn    *cuda.Function
	grid  int
	a, b  *cuda.Buffer
	e     *cuda.Buffer
	emis  *cuda.Buffer
	xsc   *cuda.Buffer
	slots [2]*slot

	// With Shape.DScan: the build with the D chain by a scan, for the
	// targets of at most scanMax residues (ScanMaxLen); fn (the same
	// shape with D passes) scores the longer ones.
	fnScan  *cuda.Function
	scanMax int
	// With Shape.Wave: the same shape without the wavefront, which
	// scores again the targets fnScan lists (its speculated B failed).
	fnExact *cuda.Function
	// With Shape.Strip: the strip build's grid (the blocks its registers
	// let the device hold at once), whose every warp gets its own rows of
	// the scratch.
	stripGrid int

	// KernelTime is the device time of the launches (resident scoring
	// only), for benchmarks.
	KernelTime time.Duration
	flagged    int
}

// slot holds the device buffers of one batch in flight.
type slot struct {
	ctx                      *cuda.Context
	stream                   *cuda.Stream
	res, table, next, outDev *cuda.Buffer
	ftab                     *cuda.Buffer // blocks a Wave build lists
	scratch                  *cuda.Buffer // a Strip build's boundary records
	n                        int          // sequences of the batch in flight (0: none)
	idx                      []int        // their positions in the caller's out
	raw                      []byte
}

// grow makes *b hold at least n bytes (contents not kept).
func (s *slot) grow(b **cuda.Buffer, n int) error {
	if *b != nil && (*b).Size() >= n {
		return nil
	}
	if *b != nil {
		(*b).Free()
		*b = nil
	}
	buf, err := s.ctx.Alloc(max(n, 4096))
	if err != nil {
		return err
	}
	*b = buf
	return nil
}

func (s *slot) free() {
	for _, b := range []*cuda.Buffer{s.res, s.table, s.next, s.outDev, s.ftab, s.scratch} {
		if b != nil {
			b.Free()
		}
	}
	s.stream.Destroy()
}

// VariantEnv names the environment variable that selects a kernel
// variant (one of Variants) instead of DefaultVariant, for benchmarks.
const VariantEnv = "HMMGO_HMM2_KERNEL"

// NewKernel compiles (or finds) the kernel for p's shape on ctx and
// uploads p's score tables, in the variant $HMMGO_HMM2_KERNEL names
// (DefaultVariant if unset).
func NewKernel(ctx *cuda.Context, p *plan7.Profile) (*Kernel, error) {
	v := os.Getenv(VariantEnv)
	if v == "" {
		v = DefaultVariant
	}
	k, err := NewKernelVariant(ctx, p, v)
	if err != nil && os.Getenv(VariantEnv) != "" {
		err = fmt.Errorf("$%s: %w", VariantEnv, err)
	}
	return k, err
}

// NewKernelVariant is NewKernel with kernel variant v (see Variants).
func NewKernelVariant(ctx *cuda.Context, p *plan7.Profile, v string) (*Kernel, error) {
	d := ctx.Device()
	s, err := ShapeVariant(p.M, v)
	if err != nil {
		return nil, err
	}
	if s.SharedBytes() > d.SharedMemPerBlockOptin {
		s.TransShared, s.EmisShared = false, false
	}
	scanMax := 0
	if s.DScan {
		// The model's bounds decide: a model ScanMaxLen does not cover
		// runs the plain int32 kernel only, one ClampFreeMaxLen does not
		// the scan with its clamps.
		s, scanMax = scanBuild(p, s)
	}
	fn, err := build(ctx, s.int32())
	if err != nil {
		return nil, fmt.Errorf("hmm2 Viterbi kernel for GPU %d: %w", d.Ordinal, err)
	}
	k := &Kernel{ctx: ctx, p: p, Shape: s, fn: fn, scanMax: scanMax}
	if s.DScan {
		if k.fnScan, err = build(ctx, s); err != nil {
			return nil, fmt.Errorf("hmm2 Viterbi kernel (%s) for GPU %d: %w", s.tables(), d.Ordinal, err)
		}
	}
	if s.Wave {
		if k.fnExact, err = build(ctx, s.exact()); err != nil {
			return nil, fmt.Errorf("hmm2 Viterbi kernel (%s) for GPU %d: %w", s.exact().tables(), d.Ordinal, err)
		}
	}
	if s.Strip {
		regs, err := k.fnScan.Attribute(cuda.FuncNumRegs)
		if err != nil {
			return nil, err
		}
		k.stripGrid = d.Multiprocessors * stripBlocksPerSM(d, s, regs)
	}
	gs := s // (a Strip build has its own grid; k.grid is its exact build's)
	if s.Strip {
		gs = s.exact()
	}
	perSM := max(1, d.MaxThreadsPerSM/gs.Block)
	if sb := gs.SharedBytes(); sb > 0 && d.SharedMemPerSM > 0 {
		perSM = max(1, min(perSM, d.SharedMemPerSM/sb))
	}
	k.grid = d.Multiprocessors * perSM
	t := NewTables(p, s)
	for _, u := range []struct {
		dst  **cuda.Buffer
		data []byte
	}{{&k.a, t.A}, {&k.b, t.B}, {&k.e, t.E}, {&k.emis, t.Emis}, {&k.xsc, t.Xsc}} {
		buf, err := ctx.Alloc(len(u.data))
		if err == nil {
			err = buf.CopyFromHost(0, u.data)
		}
		if err != nil {
			k.Close()
			return nil, err
		}
		*u.dst = buf
	}
	return k, nil
}

// Close frees the kernel's device memory.
func (k *Kernel) Close() error {
	for _, b := range []*cuda.Buffer{k.a, k.b, k.e, k.emis, k.xsc} {
		if b != nil {
			b.Free()
		}
	}
	for _, s := range k.slots {
		if s != nil {
			s.free()
		}
	}
	return nil
}

// nextBytes is the size of a launch's work counters: the build with D
// passes', the scan's, the number of blocks a Wave build lists and the
// exact build's counter over that list.
const nextBytes = 16

// Flagged is the number of targets a Wave build listed for its exact
// build since the kernel was made (ScoreDB only), for benchmarks.
func (k *Kernel) Flagged() int { return k.flagged }

// launch queues the kernel over a packed layout of n sequences, with
// scores into out (n int32), on stream st (nil: the default stream).
// With the scan (Shape.DScan) the first long blocks (those holding a
// target longer than scanMax, longBlocks) go to the build with D passes
// and the rest to the scan's; next holds a zeroed counter for each.
// Each build gets its own shape's shared memory (a multi-warp scan build
// has more exchange slots than its build with D passes).
//
// With Shape.Wave the scan build lists the blocks it could not score in
// ftab (NBlocks entries), counting them in next's third word, and the
// exact build then scores that list (it reads the count on the device:
// no wait for the host).
func (k *Kernel) launch(st *cuda.Stream, layout *gpudb.Device, next, out, ftab *cuda.Buffer, long int, scratch *cuda.Buffer, rows int) error {
	var ftabPtr, nflag cuda.DevicePtr // (none: null pointers)
	run := func(fn *cuda.Function, s Shape, table cuda.DevicePtr, n int, counter cuda.DevicePtr) error {
		if n <= 0 {
			return nil
		}
		var a cuda.Args
		a.Buffer(k.a).Buffer(k.b).Buffer(k.e).Buffer(k.emis).Buffer(layout.Res).
			Ptr(table).Int32(int32(n)).Ptr(counter).Buffer(k.xsc).Buffer(out).Ptr(ftabPtr).Ptr(nflag)
		grid := max(1, min(k.grid, n))
		if s.Strip { // (every warp of this grid has rows records in scratch)
			a.Buffer(scratch).Int32(int32(rows))
			grid = max(1, min(k.stripGrid, n))
		}
		if err := fn.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: s.Block},
			SharedMem: s.SharedBytes(), Stream: st}, &a); err != nil {
			return fmt.Errorf("hmm2 Viterbi on GPU %d: %w", k.ctx.Device().Ordinal, err)
		}
		return nil
	}
	table := layout.Table.Ptr()
	if k.fnScan == nil {
		return run(k.fn, k.Shape, table, layout.NBlocks, next.Ptr())
	}
	long = min(long, layout.NBlocks)
	if err := run(k.fn, k.Shape.int32(), table, long, next.Ptr()); err != nil {
		return err
	}
	if k.fnExact != nil {
		ftabPtr, nflag = ftab.Ptr(), next.Ptr().Add(8)
	}
	if err := run(k.fnScan, k.Shape, table.Add(long*gpudb.BlockBytes), layout.NBlocks-long, next.Ptr().Add(4)); err != nil {
		return err
	}
	if k.fnExact == nil {
		return nil
	}
	// The listed blocks (at most the scan's): the exact build reads
	// their number from nflag and its blocks from ftab.
	return run(k.fnExact, k.Shape.exact(), ftabPtr, layout.NBlocks-long, next.Ptr().Add(12))
}

// stripMaxRows caps a Strip build's scratch rows a warp: longer targets
// are listed for the exact build, so that the scratch stays within
// warps x 8192 x 16 bytes (138 MB on an H100 at 8 warps a
// multiprocessor).
const stripMaxRows = 8192

// stripBlocksPerSM is the number of blocks of strip shape s that fit a
// multiprocessor with regs registers a thread (allocated per warp in
// multiples of 256 registers; at most 32 blocks, the device's threads
// and its shared memory).
func stripBlocksPerSM(d *cuda.Device, s Shape, regs int) int {
	warps := s.Block / 32
	blocks := min(32, d.MaxThreadsPerSM/s.Block)
	if perWarp := (regs*32 + 255) / 256 * 256; perWarp > 0 && d.RegistersPerSM > 0 {
		blocks = min(blocks, d.RegistersPerSM/perWarp/warps)
	}
	if sb := s.SharedBytes(); sb > 0 && d.SharedMemPerSM > 0 { // (1 KiB reserved a block)
		blocks = min(blocks, d.SharedMemPerSM/(sb+1024))
	}
	return max(1, blocks)
}

// stripScratch is the scratch a Strip build needs for targets of at
// most longest residues: the rows a warp gets (longest, capped at
// stripMaxRows) and the bytes for every warp of its grid.
func (k *Kernel) stripScratch(longest int) (rows, bytes int) {
	if !k.Shape.Strip {
		return 0, 0
	}
	rows = max(1, min(longest, stripMaxRows))
	if k.Shape.W == 1 { // (one strip stores no records)
		rows = 1
	}
	return rows, 16 * rows * k.stripGrid * (k.Shape.Block / 32) * k.Shape.ns()
}

// waveCount reads the number of blocks the Wave build listed (after the
// launches are done).
func (k *Kernel) waveCount(next *cuda.Buffer) (int, error) {
	if k.fnExact == nil {
		return 0, nil
	}
	var raw [nextBytes]byte
	if err := next.CopyToHost(raw[:], 0); err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(raw[8:])), nil
}

// longFor is the number of leading blocks of a layout of n targets
// (length(i), any order) that the build with D passes scores when there
// is a scan build: the blocks, longest first, that hold a target longer
// than scanMax.
func (k *Kernel) longFor(n int, length func(i int) int) int {
	if k.fnScan == nil {
		return 0
	}
	long := 0
	for i := 0; i < n; i++ {
		if length(i) > k.scanMax {
			long++
		}
	}
	return longBlocks(long, 32/k.Shape.PackT())
}

// scanLongest is the longest of n targets (length(i)) that the scan
// build gets (at most scanMax residues).
func (k *Kernel) scanLongest(n int, length func(i int) int) int {
	longest := 0
	for i := 0; i < n; i++ {
		if l := length(i); l <= k.scanMax {
			longest = max(longest, l)
		}
	}
	return longest
}

// ScoreDB scores every sequence of a database resident on the device
// (its layout for this shape is packed and uploaded once, then reused
// by every model of the same T). out has one score per db.Dsqs.
func (k *Kernel) ScoreDB(db *gpudb.DB, out []int32) error {
	layout, err := db.Layout(k.Shape.PackT())
	if err != nil {
		return err
	}
	n := len(db.Dsqs)
	next, err := k.ctx.Alloc(nextBytes)
	if err != nil {
		return err
	}
	defer next.Free()
	dev, err := k.ctx.Alloc(4 * max(1, n))
	if err != nil {
		return err
	}
	defer dev.Free()
	if err := next.Memset32(0); err != nil {
		return err
	}
	var ftab *cuda.Buffer // the Wave build's list (launch reads it only then)
	if k.fnExact != nil {
		if ftab, err = k.ctx.Alloc(max(1, layout.NBlocks) * gpudb.BlockBytes); err != nil {
			return err
		}
		defer ftab.Free()
	}
	long := k.longFor(n, func(i int) int { return len(db.Dsqs[i]) })
	var scratch *cuda.Buffer // the Strip build's records
	rows, sb := k.stripScratch(k.scanLongest(n, func(i int) int { return len(db.Dsqs[i]) }))
	if sb > 0 {
		if scratch, err = k.ctx.Alloc(sb); err != nil {
			return err
		}
		defer scratch.Free()
	}
	d, err := gpudb.Timed(k.ctx, func() error { return k.launch(nil, layout, next, dev, ftab, long, scratch, rows) })
	if err != nil {
		return err
	}
	k.KernelTime += d
	nf, err := k.waveCount(next)
	if err != nil {
		return err
	}
	k.flagged += nf
	raw := make([]byte, 4*n)
	if err := dev.CopyToHost(raw, 0); err != nil {
		return err
	}
	for i := range out[:n] {
		out[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return nil
}

// partResidues is the size of the parts a streamed batch is cut into:
// part i+1 is packed and uploaded while part i runs.
const partResidues = 4 << 20

// scoreStream scores seqs[idx] (non-empty, sorted by decreasing length)
// into out, streaming parts through two slots.
func (k *Kernel) scoreStream(seqs [][]byte, idx []int, out []int32) error {
	for i := range k.slots {
		if k.slots[i] == nil {
			st, err := k.ctx.NewStream()
			if err != nil {
				return err
			}
			k.slots[i] = &slot{ctx: k.ctx, stream: st}
		}
	}
	var firstErr error
	finish := func(s *slot) {
		if s.n == 0 {
			return
		}
		err := s.stream.Synchronize()
		if err == nil {
			err = s.outDev.CopyToHost(s.raw[:4*s.n], 0)
		}
		if err == nil {
			for j, i := range s.idx {
				out[i] = int32(binary.LittleEndian.Uint32(s.raw[4*j:]))
			}
		} else if firstErr == nil {
			firstErr = err
		}
		s.n = 0
	}
	turn := 0
	for start := 0; start < len(idx) && firstErr == nil; turn ^= 1 {
		end, res := start, 0
		for end < len(idx) && (res < partResidues || end == start) {
			res += len(seqs[idx[end]])
			end++
		}
		s := k.slots[turn]
		finish(s) // the batch this slot held two parts ago
		if firstErr != nil {
			break
		}
		part := idx[start:end]
		if err := k.queue(s, seqs, part); err != nil {
			return err
		}
		start = end
	}
	finish(k.slots[turn^1])
	finish(k.slots[turn])
	return firstErr
}

// queue packs one part, uploads it on the slot's stream and launches.
func (k *Kernel) queue(s *slot, seqs [][]byte, part []int) error {
	n := len(part)
	local := make([][]byte, n)
	all := make([]int, n)
	for j, i := range part {
		local[j] = seqs[i]
		all[j] = j
	}
	p := gpudb.Pack(local, all, k.Shape.PackT())
	type size struct {
		b **cuda.Buffer
		n int
	}
	bufs := []size{{&s.res, len(p.Res) + 16}, {&s.table, len(p.Table) + gpudb.BlockBytes}, {&s.next, nextBytes}, {&s.outDev, 4 * n}}
	if k.fnExact != nil { // the Wave build's list
		bufs = append(bufs, size{&s.ftab, max(1, p.NBlocks) * gpudb.BlockBytes})
	}
	rows, sb := k.stripScratch(k.scanLongest(n, func(j int) int { return len(local[j]) }))
	if sb > 0 { // the Strip build's records
		bufs = append(bufs, size{&s.scratch, sb})
	}
	for _, g := range bufs {
		if err := s.grow(g.b, g.n); err != nil {
			return err
		}
	}
	if err := s.stream.CopyHtoD(s.res.Ptr(), p.Res); err != nil {
		return err
	}
	if err := s.stream.CopyHtoD(s.table.Ptr(), p.Table); err != nil {
		return err
	}
	if err := s.stream.Memset32(s.next.Ptr(), 0, nextBytes/4); err != nil {
		return err
	}
	long := k.longFor(n, func(j int) int { return len(local[j]) })
	if err := k.launch(s.stream, &gpudb.Device{Res: s.res, Table: s.table, NBlocks: p.NBlocks}, s.next, s.outDev, s.ftab, long, s.scratch, rows); err != nil {
		return err
	}
	s.n, s.idx = n, part
	if cap(s.raw) < 4*n {
		s.raw = make([]byte, 4*n)
	}
	return nil
}

// Scorer is a viterbi.Scorer on one or more GPUs: each batch is sorted
// by length and dealt to the devices in turn, so that every device gets
// the same mix of lengths.
type Scorer struct {
	p       *plan7.Profile
	kernels []*Kernel
}

// NewScorer loads p on every context.
func NewScorer(ctxs []*cuda.Context, p *plan7.Profile) (*Scorer, error) {
	if len(ctxs) == 0 {
		return nil, fmt.Errorf("hmm2 Viterbi GPU scorer: no GPU")
	}
	s := &Scorer{p: p}
	for _, c := range ctxs {
		k, err := NewKernel(c, p)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.kernels = append(s.kernels, k)
	}
	return s, nil
}

// Kernels are the per-device kernels (for their shape and counters).
func (s *Scorer) Kernels() []*Kernel { return s.kernels }

// Score implements viterbi.Scorer. Empty sequences are scored on the
// host (ScoreOne's -INFTY + C->T); the others on the devices.
func (s *Scorer) Score(seqs [][]byte, out []int32) error {
	cmove := s.p.Xsc[plan7.XTC][plan7.Move]
	var idx []int
	for i, q := range seqs {
		if len(q) == 0 {
			out[i] = negInf + cmove
		} else {
			idx = append(idx, i)
		}
	}
	sorted := make([]int, len(idx))
	for k, j := range lenorder.LongestFirst(len(idx), func(k int) int { return len(seqs[idx[k]]) }) {
		sorted[k] = idx[j]
	}
	idx = sorted
	nd := len(s.kernels)
	if nd == 1 {
		return s.kernels[0].scoreStream(seqs, idx, out)
	}
	errs := make([]error, nd)
	var wg sync.WaitGroup
	for d, k := range s.kernels {
		var mine []int
		for j := d; j < len(idx); j += nd {
			mine = append(mine, idx[j])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[d] = k.scoreStream(seqs, mine, out)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Close releases every device's kernel.
func (s *Scorer) Close() error {
	for _, k := range s.kernels {
		k.Close()
	}
	s.kernels = nil
	return nil
}
