package pairhmm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// fakeRuntime stands in for a CUDA device. Buffers are host memory;
// streams queue their work and run it only at Synchronize, so a host side
// that read results too early or overwrote staged inputs too soon would
// produce wrong numbers; kernels run through the Go transcription of their
// schedule (simulateGroupKernel) with probabilities derived from the
// tables that were uploaded, as the CUDA code derives them.
type fakeRuntime struct {
	mu       sync.Mutex
	launches int
	allocs   int
	live     int // buffers not freed
	// exec, when set, runs a launch instead of the Go transcription (the
	// C++ emulation of pairhmm.cu).
	exec func(f fakeFunc, grid, block int, args []any) error
}

type fakeBuf struct {
	rt   *fakeRuntime
	data []byte
}

func (b *fakeBuf) Free() error {
	if b.data == nil {
		return fmt.Errorf("fake: double free")
	}
	b.rt.mu.Lock()
	b.rt.live--
	b.rt.mu.Unlock()
	b.data = nil
	return nil
}
func (b *fakeBuf) Bytes() []byte { return b.data }

func (f *fakeRuntime) Name() string { return "fake GPU" }

func (f *fakeRuntime) alloc(n int) *fakeBuf {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.allocs++
	f.live++
	// Fresh memory is garbage, as on a device.
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xA5
	}
	return &fakeBuf{rt: f, data: b}
}

func (f *fakeRuntime) Alloc(n int) (gpuBuffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("fake: Alloc(%d)", n)
	}
	return f.alloc(n), nil
}

func (f *fakeRuntime) AllocHost(n int) (hostMemory, error) {
	if n <= 0 {
		return nil, fmt.Errorf("fake: AllocHost(%d)", n)
	}
	return f.alloc(n), nil
}

type fakeModule struct {
	cfg            gpuConfig
	variant        gpuVariant
	warpsF, warpsD int // warps per block the kernels are compiled for
}

// allGPUConfigs is every configuration some variant's bin table has.
func allGPUConfigs() []gpuConfig {
	var all []gpuConfig
	seen := map[gpuConfig]bool{}
	for _, v := range gpuVariants {
		for _, c := range v.binTable() {
			if !seen[c] {
				seen[c] = true
				all = append(all, c)
			}
		}
	}
	return all
}

type fakeFunc struct {
	cfg     gpuConfig
	variant gpuVariant
	double  bool
	block   int // threads per block the kernel was compiled for
}

func (f *fakeRuntime) Build(name, src string, opts []string) (gpuModule, error) {
	var m fakeModule
	vec := -1
	for _, o := range opts {
		fmt.Sscanf(o, "-DPH_GROUP=%d", &m.cfg.group)
		fmt.Sscanf(o, "-DPH_ROWS=%d", &m.cfg.rows)
		fmt.Sscanf(o, "-DPH_VEC=%d", &vec)
		fmt.Sscanf(o, "-DPH_UNROLL=%d", &m.variant.unroll)
		fmt.Sscanf(o, "-DPH_WARPS_F=%d", &m.warpsF)
		fmt.Sscanf(o, "-DPH_WARPS_D=%d", &m.warpsD)
		if o == "-DPH_FUSED=1" {
			m.variant.fused = true
		}
	}
	m.variant.vec = vec == 1
	switch u := m.variant.unroll; {
	case vec != 0 && vec != 1, u != 1 && u != 2 && u != 4 && u != 8:
		return nil, fmt.Errorf("fake: PH_VEC=%d PH_UNROLL=%d", vec, u)
	}
	m.variant.name = fmt.Sprintf("vec%d-unroll%d", vec, m.variant.unroll)
	if !strings.Contains(src, "pairhmm_float") || m.cfg.group == 0 || m.cfg.rows == 0 || m.warpsF == 0 || m.warpsD == 0 {
		return nil, fmt.Errorf("fake: bad compile request %v", opts)
	}
	if bad := unsafeKernelOption(opts); bad != "" {
		return nil, fmt.Errorf("fake: unsafe option %s", bad)
	}
	return m, nil
}

func (m fakeModule) Function(name string) (gpuFunction, error) {
	switch name {
	case "pairhmm_float":
		return fakeFunc{m.cfg, m.variant, false, 32 * m.warpsF}, nil
	case "pairhmm_double":
		return fakeFunc{m.cfg, m.variant, true, 32 * m.warpsD}, nil
	}
	return nil, fmt.Errorf("fake: no kernel %q", name)
}

type fakeEvent struct{ t time.Time }

func (e *fakeEvent) Destroy() error { return nil }

func (f *fakeRuntime) NewEvent() (gpuEvent, error) { return &fakeEvent{}, nil }

func (f *fakeRuntime) Elapsed(a, b gpuEvent) (time.Duration, error) {
	s, e := a.(*fakeEvent).t, b.(*fakeEvent).t
	if s.IsZero() || e.IsZero() || e.Before(s) {
		return 0, fmt.Errorf("fake: events not recorded in order")
	}
	return e.Sub(s), nil
}

type fakeStream struct {
	rt    *fakeRuntime
	queue []func() error
}

func (f *fakeRuntime) NewStream() (gpuStream, error) { return &fakeStream{rt: f}, nil }

func (s *fakeStream) CopyHtoD(dst gpuBuffer, off int, src []byte) error {
	d := dst.(*fakeBuf)
	if off+len(src) > len(d.data) {
		return fmt.Errorf("fake: CopyHtoD of %d bytes at %d overruns %d", len(src), off, len(d.data))
	}
	s.queue = append(s.queue, func() error { copy(d.data[off:], src); return nil })
	return nil
}

func (s *fakeStream) CopyDtoH(dst []byte, src gpuBuffer, off int) error {
	b := src.(*fakeBuf)
	if off+len(dst) > len(b.data) {
		return fmt.Errorf("fake: CopyDtoH of %d bytes at %d overruns %d", len(dst), off, len(b.data))
	}
	s.queue = append(s.queue, func() error { copy(dst, b.data[off:]); return nil })
	return nil
}

func (s *fakeStream) Record(e gpuEvent) error {
	s.queue = append(s.queue, func() error { e.(*fakeEvent).t = time.Now(); return nil })
	return nil
}

func (s *fakeStream) WaitEvent(e gpuEvent) error {
	ev := e.(*fakeEvent)
	s.queue = append(s.queue, func() error {
		if ev.t.IsZero() {
			return fmt.Errorf("fake: waiting for an event that was never recorded")
		}
		return nil
	})
	return nil
}

func (s *fakeStream) Launch(fn gpuFunction, grid, block int, args ...any) error {
	f := fn.(fakeFunc)
	if block != f.block {
		return fmt.Errorf("fake: %s launched with %d threads per block, compiled for %d", f.cfg, block, f.block)
	}
	if len(args) != nArrays+5 {
		return fmt.Errorf("fake: %d kernel arguments", len(args))
	}
	s.rt.mu.Lock()
	s.rt.launches++
	s.rt.mu.Unlock()
	s.queue = append(s.queue, func() error {
		if s.rt.exec != nil {
			return s.rt.exec(f, grid, block, args)
		}
		return fakeKernel(f, grid, block, args)
	})
	return nil
}

func (s *fakeStream) Synchronize() error {
	q := s.queue
	s.queue = nil
	for _, op := range q {
		if err := op(); err != nil {
			return err
		}
	}
	return nil
}

func (s *fakeStream) Destroy() error { return nil }

// fakeKernel executes one launch of pairhmm_float or pairhmm_double,
// reading its arguments in the kernel's parameter order.
func fakeKernel(f fakeFunc, grid, block int, args []any) error {
	mem := func(i int) []byte {
		p := args[i].(devPtr)
		return p.buf.(*fakeBuf).data[p.off:]
	}
	i32 := func(i, k int) int { return int(int32(binary.LittleEndian.Uint32(mem(i)[4*k:]))) }
	ntasks := int(args[aTaskHap+1].(int32))
	if grid*(block/f.cfg.group) < ntasks {
		return fmt.Errorf("fake: grid %d x %d groups does not cover %d tasks", grid, block/f.cfg.group, ntasks)
	}
	for t := 0; t < ntasks; t++ {
		ri, hi := i32(aTaskRead, t), i32(aTaskHap, t)
		off, n := i32(aReadOff, ri), i32(aReadLen, ri)
		if n > f.cfg.maxLen() {
			return fmt.Errorf("fake: read of %d bases sent to the %s kernel", n, f.cfg)
		}
		ho, hn := i32(aHapOff, hi), i32(aHapLen, hi)
		q := [5][]byte{mem(aBase)[off : off+n], mem(aQual)[off : off+n], mem(aIns)[off : off+n], mem(aDel)[off : off+n], mem(aGCP)[off : off+n]}
		padded := mem(aHap)[ho-hapPad : ho+hn+hapPad]
		if f.double {
			ph2pr, mm := fakeTable[float64](mem(aTaskHap+2)), fakeTable[float64](mem(aTaskHap+3))
			v := simulateGroupKernel(fakeRows(q, ph2pr, mm), padded, hapPad, hn, args[aTaskHap+4].(float64), f.cfg.group, f.cfg.rows, f.variant.fused)
			binary.LittleEndian.PutUint64(mem(aTaskHap + 5)[8*t:], math.Float64bits(v))
			continue
		}
		ph2pr, mm := fakeTable[float32](mem(aTaskHap+2)), fakeTable[float32](mem(aTaskHap+3))
		v := simulateGroupKernel(fakeRows(q, ph2pr, mm), padded, hapPad, hn, args[aTaskHap+4].(float32), f.cfg.group, f.cfg.rows, f.variant.fused)
		binary.LittleEndian.PutUint32(mem(aTaskHap + 5)[4*t:], math.Float32bits(v))
	}
	return nil
}

func fakeTable[T float32 | float64](b []byte) func(int) T {
	return func(i int) T {
		var z T
		if _, ok := any(z).(float32); ok {
			return T(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return T(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
	}
}

// fakeRows derives a read's rows from the uploaded tables as the kernel
// does: codes, then base, insertion, deletion and gap qualities in q.
func fakeRows[T float32 | float64](q [5][]byte, ph2pr, mmTab func(int) T) []row[T] {
	rows := make([]row[T], len(q[0]))
	for i := range rows {
		p := &rows[i]
		qi, qd, qc := int(q[2][i]), int(q[3][i]), int(q[4][i])
		lo, hi := min(qi, qd), max(qi, qd)
		p.mm = mmTab(hi*(hi+1)/2 + lo)
		p.gcp = ph2pr(qc)
		p.gapm = 1 - p.gcp
		p.mx, p.my = ph2pr(qi), ph2pr(qd)
		e := ph2pr(int(q[1][i]))
		match, mismatch := 1-e, e/3
		rb := q[0][i]
		for c := uint8(0); c < 5; c++ {
			if c == rb || rb == codeN || c == codeN {
				p.emis[c] = match
			} else {
				p.emis[c] = mismatch
			}
		}
	}
	return rows
}

// hostSideGroups is 10s plus groups that exercise every path of the host
// side: reads longer than the kernels take (CPU), reads at bin
// boundaries, unrelated pairs (double pass) and an unrelated long pair far
// below the double range (rescaled pass), a group with more haplotypes
// than a chunk takes, and long haplotypes.
func hostSideGroups(t testing.TB, withShared bool) []Group {
	var groups []Group
	if withShared {
		groups = loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	haps := [][]byte{synthHap(rng, 700), synthHap(rng, 900), synthHap(rng, 1500)}
	var reads []Read
	for _, n := range []int{1100, 1025, 1024, 600, 513, 512, 511, 300, 152, 153, 104, 105, 100, 64, 17, 16, 1} {
		reads = append(reads, synthRead(rng, haps[0], n, 20, 50, n != 511 && n != 100 && n != 16))
	}
	groups = append(groups, Group{Reads: reads, Haplotypes: haps})
	// unrelated long reads: log10 far below -615
	groups = append(groups, Group{
		Reads:      []Read{synthRead(rng, haps[1], 500, 40, 60, false), synthRead(rng, haps[1], 450, 40, 60, false)},
		Haplotypes: [][]byte{synthHap(rng, 800)},
	})
	// low qualities
	lowHaps := [][]byte{synthHap(rng, 200), synthHap(rng, 207)}
	var low []Read
	for i := 0; i < 20; i++ {
		low = append(low, synthRead(rng, lowHaps[i%2], 30+7*i, 0, 12, true))
	}
	groups = append(groups, Group{Reads: low, Haplotypes: lowHaps})
	// many haplotypes, short reads
	var many [][]byte
	for i := 0; i < 300; i++ {
		many = append(many, synthHap(rng, 40+rng.IntN(60)))
	}
	groups = append(groups, Group{Reads: []Read{synthRead(rng, many[0], 30, 10, 40, true), synthRead(rng, many[1], 12, 10, 40, true)}, Haplotypes: many})
	return groups
}

func sameBits(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	bad := 0
	for g := range want {
		for i := range want[g] {
			if math.Float64bits(got[g][i]) != math.Float64bits(want[g][i]) {
				if bad++; bad <= 10 {
					t.Errorf("%s: group %d pair %d: %v, CPU %v", what, g, i, got[g][i], want[g][i])
				}
			}
		}
	}
	if bad > 10 {
		t.Errorf("%s: %d pairs differ in all", what, bad)
	}
}

// TestGPUBackendWithFakeDevice runs the host side of the CUDA backend on
// two fake devices with chunks small enough that groups are split by reads
// and by haplotypes, both streams alternate, and buffers grow.
func TestGPUBackendWithFakeDevice(t *testing.T) {
	small := hostSideGroups(t, false)
	all := hostSideGroups(t, true)
	for _, chunkPairs := range []int{97, 1000, 1 << 20} {
		groups := small
		if chunkPairs == 1<<20 {
			groups = all
		}
		want, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{})})
		if err != nil {
			t.Fatal(err)
		}
		rts := []*fakeRuntime{{}, {}}
		gpu, err := newGPU([]gpuRuntime{rts[0], rts[1]}, GPUOptions{ChunkPairs: chunkPairs, ChunkBytes: 20000})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ComputeGroups(groups, Options{Backend: gpu})
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("chunks of %d pairs", chunkPairs), got, want)
		st := gpu.Stats()
		t.Logf("%d pairs per chunk: %d launches, %+v", chunkPairs, rts[0].launches+rts[1].launches, st)
		if st.DoublePairs == 0 || st.ScaledPairs == 0 || st.CPUPairs == 0 || st.Chunks < 2 {
			t.Errorf("the test set missed a path: %+v", st)
		}
		var total int64
		for _, g := range groups {
			total += int64(g.Pairs())
		}
		if st.Pairs+st.CPUPairs != total {
			t.Errorf("GPU %d + CPU %d pairs, want %d", st.Pairs, st.CPUPairs, total)
		}
		if err := gpu.Close(); err != nil {
			t.Fatal(err)
		}
		for i, rt := range rts {
			if rt.live != 0 {
				t.Errorf("device %d: %d buffers not freed", i, rt.live)
			}
		}
	}
}

// TestGPUBackendReuse: one backend for several calls (as the command uses
// it), including a call with nothing for the GPU.
func TestGPUBackendReuse(t *testing.T) {
	groups := hostSideGroups(t, false)
	gpu, err := newGPU([]gpuRuntime{&fakeRuntime{}}, GPUOptions{ChunkPairs: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Close()
	for i := range groups {
		want, err := ComputeGroups(groups[i:i+1], Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ComputeGroups(groups[i:i+1], Options{Backend: gpu})
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("call %d", i), got, want)
	}
	if _, err := ComputeGroups(nil, Options{Backend: gpu}); err != nil {
		t.Fatal(err)
	}
}

func TestKernelOptionsAreExact(t *testing.T) {
	for _, c := range allGPUConfigs() {
		for _, v := range gpuVariants {
			checkKernelOptions(t, c, v)
		}
	}
	if v, err := lookupVariant("", ArithGKL); err != nil || v.name != defaultVariant {
		t.Errorf("default variant: %v, %v", v, err)
	}
	if _, err := lookupVariant("fast", ArithGKL); err == nil {
		t.Error("unknown variant accepted")
	}
	if unsafeKernelOption([]string{"-DX=1", "--use_fast_math"}) != "--use_fast_math" {
		t.Error("--use_fast_math not refused")
	}
	// Bins are sorted by capacity and every length up to the largest has one.
	for n := 1; n <= gpuConfigs[len(gpuConfigs)-1].maxLen(); n++ {
		b := gpuBin(gpuConfigs, n)
		if b < 0 || gpuConfigs[b].maxLen() < n || (b > 0 && gpuConfigs[b-1].maxLen() >= n) {
			t.Fatalf("length %d: bin %d", n, b)
		}
	}
	if gpuBin(gpuConfigs, 1025) != -1 {
		t.Error("a 1025-base read has a bin")
	}
}

func checkKernelOptions(t *testing.T, c gpuConfig, v gpuVariant) {
	t.Helper()
	{
		opts := kernelOptions(c, v)
		if bad := unsafeKernelOption(opts); bad != "" {
			t.Errorf("%s: option %s", c, bad)
		}
		joined := " " + strings.Join(opts, " ") + " "
		for _, o := range []string{"fast_math", "ftz=false", "fmad=true"} {
			if strings.Contains(joined, o) {
				t.Errorf("%s: options %v contain %s", c, opts, o)
			}
		}
		for _, o := range []string{" --fmad=false ", " --ftz=true ", " --prec-div=true "} {
			if !strings.Contains(joined, o) {
				t.Errorf("%s: options %v lack %s", c, opts, o)
			}
		}
		// The static shared memory of both kernels fits without opting
		// in, and 16-byte loads have whole 16-byte rows to read.
		for _, size := range []int{4, 8} {
			rows := c.tableRows(size, v)
			if w := c.warps(size, v); w*5*rows*32*size > staticSharedLimit {
				t.Errorf("%s %s: %d warps of %d-byte tables exceed 48 KiB", c, v.name, w, size)
			}
			if rows < c.rows || (v.forConfig(c).vec && rows*size%16 != 0) {
				t.Errorf("%s %s: %d table rows of %d bytes", c, v.name, rows, size)
			}
		}
	}
}

// sameCompile checks that variant v compiles bin c exactly as variant
// want does: the same options and warps per block.
func sameCompile(t *testing.T, c gpuConfig, v, want gpuVariant) {
	t.Helper()
	if got, exp := kernelOptions(c, v), kernelOptions(c, want); strings.Join(got, " ") != strings.Join(exp, " ") {
		t.Errorf("%s: %s compiles with %v, want %v (%s)", c, v.name, got, exp, want.name)
	}
	if c.warps(4, v) != c.warps(4, want) || c.warps(8, v) != c.warps(8, want) {
		t.Errorf("%s: %s's warps per block differ from %s's", c, v.name, want.name)
	}
}

// TestTunedVariantBins: the tuned variant compiles its rows bins as the
// rows variant and every other bin as vec2, block sizes included.
func TestTunedVariantBins(t *testing.T) {
	tuned, err := lookupVariant("tuned", ArithGKL)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := lookupVariant("rows", ArithGKL)
	vec2, _ := lookupVariant("vec2", ArithGKL)
	for _, c := range gpuConfigs {
		want := vec2
		if c == (gpuConfig{8, 19}) {
			want = rows
		}
		sameCompile(t, c, tuned, want)
	}
}

// TestVariantBinTables: tuned2's and tuned4's bin tables are gpuConfigs
// with 4x25 before 8x13, and they compile every bin exactly as a variant
// measured and tested on the H100 did: tuned2 4x25 as the 20:45Z run's
// "b25" (tuned plus a 4x25 bin, vec2), 8x19 as rows, every other bin as
// "vec4u" (vec, unrolled four times); tuned4 (the fused default) and
// tuned4g (GKL's) each bin as the 22:03Z run's tuned3w (vec4u, 4x20, 8x19,
// 32x19 and 32x20 in blocks of 2 warps), or tuned3u8 (unrolled eight
// times, 8x19 in blocks of 2) on its vec8Bins.
func TestVariantBinTables(t *testing.T) {
	for arith, want := range map[Arith]string{ArithGKL: "tuned4g", ArithFused: "tuned4"} {
		if v, err := lookupVariant("", arith); err != nil || v.name != want {
			t.Fatalf("default (arith %v): %v, %v; want %s", arith, v.name, err, want)
		}
	}
	b25 := gpuVariant{name: "b25", vec: true, unroll: 2, rowsBins: "8x19", extraBins: "4x25"}
	vec4u := gpuVariant{name: "vec4u", vec: true, unroll: 4, rowsBins: "8x19"}
	tuned3w := gpuVariant{name: "tuned3w", vec: true, unroll: 4, extraBins: "4x25", maxWarps: 2, warpsBins: "4x20,8x19,32x19,32x20"}
	tuned3u8 := gpuVariant{name: "tuned3u8", vec: true, unroll: 8, extraBins: "4x25", maxWarps: 2, warpsBins: "8x19"}
	unrolled8 := map[string][]gpuConfig{"tuned4": {{4, 25}, {8, 19}, {16, 16}}, "tuned4g": {{16, 16}}}
	for _, c := range []gpuConfig{{4, 20}, {8, 19}, {32, 19}, {32, 20}} {
		if w := c.warps(4, gpuVariant{vec: true, unroll: 4}); w != 3 || c.warps(4, tuned3w) != 2 || c.warps(8, tuned3w) != 1 {
			t.Errorf("%s: float blocks of %d warps as vec4u, %d in tuned3w", c, w, c.warps(4, tuned3w))
		}
	}
	for _, name := range []string{"tuned2", "tuned4", "tuned4g"} {
		v, err := lookupVariant(name, ArithGKL)
		if err != nil {
			t.Fatal(err)
		}
		table := v.binTable()
		if len(table) != len(gpuConfigs)+1 {
			t.Fatalf("%s has %d bins, want %d", name, len(table), len(gpuConfigs)+1)
		}
		for i := 1; i < len(table); i++ {
			if table[i-1].maxLen() > table[i].maxLen() {
				t.Errorf("%s: bins out of order: %s before %s", name, table[i-1], table[i])
			}
		}
		for n, want := range map[int]gpuConfig{100: {4, 25}, 97: {4, 25}, 101: {8, 13}, 104: {8, 13}, 96: {4, 25}, 80: {4, 20}, 150: {8, 19}, 250: {16, 16}, 600: {32, 19}} {
			if got := table[gpuBin(table, n)]; got != want {
				t.Errorf("%s: a read of %d bases goes to %s, want %s", name, n, got, want)
			}
		}
		for _, fused := range []bool{false, true} {
			v.fused, b25.fused, vec4u.fused, tuned3w.fused, tuned3u8.fused = fused, fused, fused, fused, fused
			for _, c := range table {
				want := tuned3w
				switch {
				case name == "tuned2" && c == (gpuConfig{4, 25}):
					want = b25
				case name == "tuned2":
					want = vec4u
				case slices.Contains(unrolled8[name], c):
					want = tuned3u8
				}
				sameCompile(t, c, v, want)
			}
		}
	}
}
