package cuda_test

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/internal/mockgpu"
)

// Tests named TestGPU* need a GPU: they skip without one, run on the GPU
// host through bench/gpu/smoke.sh, and run here against the mock driver
// through TestMockDriver.

//go:embed testdata/kernels.ptx
var kernelsPTX []byte

func context(t *testing.T, ordinal int) *cuda.Context {
	t.Helper()
	if err := cuda.Load(); err != nil {
		t.Skipf("no usable GPU: %v", err)
	}
	d, err := cuda.DeviceByOrdinal(ordinal)
	if err != nil {
		t.Skipf("%v", err)
	}
	ctx, err := d.Context()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func module(t *testing.T, ctx *cuda.Context) *cuda.Module {
	t.Helper()
	m, err := ctx.LoadModule(kernelsPTX)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unload() })
	return m
}

func function(t *testing.T, m *cuda.Module, name string) *cuda.Function {
	t.Helper()
	f, err := m.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func alloc(t *testing.T, ctx *cuda.Context, n int) *cuda.Buffer {
	t.Helper()
	b, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free() })
	return b
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func randomFloats(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * 100)
	}
	return v
}

func TestMockDriver(t *testing.T) {
	out := mockgpu.RunTests(t, "^TestGPU")
	if !strings.Contains(out, "Mock GPU sm_90") {
		t.Errorf("the child did not see the mock devices:\n%s", out)
	}
}

// Load through the public entry point must explain each failure; the mock
// driver fakes the failures a real machine can have.
func TestMockLoadFailures(t *testing.T) {
	cases := []struct{ env, want string }{
		{"HMMGO_LIBCUDA=/nonexistent/libcuda.so.1", "/nonexistent/libcuda.so.1 not found: no NVIDIA driver on this machine"},
		{"MOCKCUDA_NO_DEVICE=1", "no CUDA devices: cuInit: "},
		{"MOCKCUDA_VERSION=10020", "NVIDIA driver too old: it supports CUDA 10.2, hmmgo needs 11.0 or newer"},
	}
	for _, c := range cases {
		t.Run(strings.SplitN(c.env, "=", 2)[0], func(t *testing.T) {
			out := mockgpu.RunTests(t, "^TestChildLoadError$", c.env, "HMMGO_EXPECT_LOAD="+c.want)
			if !strings.Contains(out, c.want) {
				t.Errorf("child output lacks %q:\n%s", c.want, out)
			}
		})
	}
}

// TestChildLoadError runs only as TestMockLoadFailures' child.
func TestChildLoadError(t *testing.T) {
	want := getenv("HMMGO_EXPECT_LOAD")
	if !mockgpu.InChild() || want == "" {
		t.Skip("helper of TestMockLoadFailures")
	}
	// The library is absent in the first case only: DriverPresent tells
	// that case from the ones where it loads and the driver then fails.
	if present := cuda.DriverPresent(); present == strings.Contains(want, "not found") {
		t.Errorf("DriverPresent() = %v where Load says %q", present, want)
	}
	err := cuda.Load()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Load() = %v, want an error containing %q", err, want)
	}
	t.Logf("Load: %v", err)
}

func TestGPUDevices(t *testing.T) {
	context(t, 0)
	ds, err := cuda.Devices()
	check(t, err)
	v, err := cuda.DriverVersion()
	check(t, err)
	t.Logf("driver %s from %s", v, cuda.LibraryPath())
	for i, d := range ds {
		t.Logf("%v: L2 %d KiB, shared %d/%d KiB per block, %d KiB per SM, warp %d, %d copy engines, PCI %s",
			d, d.L2CacheBytes>>10, d.SharedMemPerBlock>>10, d.SharedMemPerBlockOptin>>10, d.SharedMemPerSM>>10,
			d.WarpSize, d.AsyncEngines, d.PCIBusID)
		if d.Ordinal != i || d.Name == "" || d.Major < 5 || d.Multiprocessors <= 0 || d.TotalMemory < 1<<30 ||
			d.WarpSize != 32 || d.SharedMemPerBlock < 48<<10 || d.SharedMemPerBlockOptin < d.SharedMemPerBlock ||
			d.MaxThreadsPerBlock < 1024 || d.L2CacheBytes <= 0 {
			t.Errorf("implausible device %+v", d)
		}
		ctx, err := d.Context()
		check(t, err)
		free, total, err := ctx.MemInfo()
		check(t, err)
		if total != d.TotalMemory || free > total || free == 0 {
			t.Errorf("GPU %d: MemInfo free %d total %d, device total %d", i, free, total, d.TotalMemory)
		}
	}
	if _, err := cuda.DeviceByOrdinal(len(ds)); err == nil {
		t.Error("DeviceByOrdinal accepted an ordinal past the last device")
	}
}

func TestGPUMemory(t *testing.T) {
	ctx := context(t, 0)
	rng := rand.New(rand.NewPCG(1, uint64(t.Name()[0])))
	n := 1<<20 + 3
	a, b := alloc(t, ctx, n), alloc(t, ctx, n)

	check(t, a.Memset8(0xab))
	got := make([]byte, n)
	check(t, a.CopyToHost(got, 0))
	for i, v := range got {
		if v != 0xab {
			t.Fatalf("byte %d after Memset8 = %#x", i, v)
		}
	}
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	check(t, a.CopyFromHost(0, src))
	check(t, b.CopyFrom(0, a.Ptr(), n))
	clear(got)
	check(t, b.CopyToHost(got, 0))
	if string(got) != string(src) {
		t.Fatal("host -> device -> device -> host round trip changed the data")
	}
	// Partial copies at offsets.
	part := make([]byte, 100)
	check(t, b.CopyToHost(part, 1000))
	if string(part) != string(src[1000:1100]) {
		t.Error("CopyToHost at an offset read the wrong bytes")
	}
	if err := b.CopyFromHost(n-10, src[:11]); err == nil {
		t.Error("a copy past the end of the buffer was accepted")
	}

	w := alloc(t, ctx, 4096)
	check(t, w.Memset32(0xdeadbeef))
	words := make([]uint32, 1024)
	check(t, w.CopyToHost(cuda.Bytes(words), 0))
	for i, v := range words {
		if v != 0xdeadbeef {
			t.Fatalf("word %d after Memset32 = %#x", i, v)
		}
	}
	check(t, w.Free())
	check(t, w.Free()) // twice is harmless
	if err := w.CopyToHost(part, 0); err == nil {
		t.Error("copy from a freed buffer was accepted")
	}
}

func TestGPUVectorAdd(t *testing.T) {
	ctx := context(t, 0)
	f := function(t, module(t, ctx), "vecadd")
	rng := rand.New(rand.NewPCG(2, 3))
	n := 1<<20 + 17
	a, b := randomFloats(rng, n), randomFloats(rng, n)
	da, db, dc := alloc(t, ctx, 4*n), alloc(t, ctx, 4*n), alloc(t, ctx, 4*n)
	check(t, da.CopyFromHost(0, cuda.Bytes(a)))
	check(t, db.CopyFromHost(0, cuda.Bytes(b)))
	check(t, dc.Memset32(0x7fc00001)) // poison: a NaN no addition produces
	var args cuda.Args
	args.Buffer(da).Buffer(db).Buffer(dc).Int32(int32(n))
	check(t, f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1000}, Block: cuda.Dim3{X: 256}}, &args))
	check(t, ctx.Synchronize())
	c := make([]float32, n)
	check(t, dc.CopyToHost(cuda.Bytes(c), 0))
	for i := range c {
		if c[i] != a[i]+b[i] {
			t.Fatalf("c[%d] = %v, want %v + %v", i, c[i], a[i], b[i])
		}
	}
	regs, err := f.Attribute(cuda.FuncNumRegs)
	check(t, err)
	t.Logf("vecadd: %d registers per thread", regs)
}

func TestGPUKernelArguments(t *testing.T) {
	ctx := context(t, 0)
	f := function(t, module(t, ctx), "echo_args")
	out := alloc(t, ctx, 8*7)
	check(t, out.Memset8(0xee))
	var args cuda.Args
	args.Buffer(out).Int32(-123456).Uint32(0xdeadbeef).Int64(-1 << 40).Float32(3.25).Float64(-1e300).
		Uint64(0xfedcba9876543210).Ptr(out.Ptr().Add(8))
	check(t, f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 32}}, &args))
	check(t, ctx.Synchronize())
	got := make([]uint64, 7)
	check(t, out.CopyToHost(cuda.Bytes(got), 0))
	neg := int64(-123456)
	want := []uint64{uint64(neg), 0xdeadbeef, uint64(0xffffff0000000000), uint64(math.Float32bits(3.25)),
		math.Float64bits(-1e300), 0xfedcba9876543210, uint64(out.Ptr().Add(8))}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("argument %d arrived as %#x, want %#x", i, got[i], want[i])
		}
	}
}

func TestGPUModuleErrors(t *testing.T) {
	ctx := context(t, 0)
	_, err := ctx.LoadModule([]byte(".version 6.3\n.target sm_75\n.address_size 64\nBAD_PTX here;\n"))
	if err == nil {
		t.Fatal("malformed PTX loaded")
	}
	t.Logf("bad PTX: %v", err)
	if !strings.Contains(err.Error(), "cuModuleLoadData(") || !errors.Is(err, cuda.ErrorInvalidPTX) {
		t.Errorf("bad PTX error %q", err)
	}
	if !strings.Contains(err.Error(), "BAD_PTX") && !strings.Contains(err.Error(), "line") {
		t.Errorf("bad PTX error %q carries no JIT log", err)
	}
	m := module(t, ctx)
	if _, err := m.Function("no_such_kernel"); !errors.Is(err, cuda.ErrorNotFound) || !strings.Contains(err.Error(), `"no_such_kernel"`) {
		t.Errorf("missing kernel: %v", err)
	}
	p, size, err := m.Global("counter")
	check(t, err)
	v := make([]int32, 1)
	check(t, ctx.Do(func() error { return nil }))
	buf := make([]byte, 4)
	s, err := ctx.NewStream()
	check(t, err)
	defer s.Destroy()
	check(t, s.CopyDtoH(buf, p))
	check(t, s.Synchronize())
	copy(cuda.Bytes(v), buf)
	if size != 4 || v[0] != 7 {
		t.Errorf("global counter: size %d value %d, want 4 and 7", size, v[0])
	}
	f := function(t, m, "vecadd")
	var args cuda.Args
	err = f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 4096}}, args.Ptr(0).Ptr(0).Ptr(0).Int32(0))
	if !errors.Is(err, cuda.ErrorInvalidValue) || !strings.Contains(err.Error(), "cuLaunchKernel(vecadd, grid 1x1x1, block 4096x1x1") {
		t.Errorf("oversized block: %v", err)
	}
}

func TestGPUDynamicSharedMemory(t *testing.T) {
	ctx := context(t, 0)
	dev := ctx.Device()
	if dev.SharedMemPerBlockOptin <= 48<<10 {
		t.Skipf("%s allows no more than 48 KiB of shared memory per block", dev.Name)
	}
	f := function(t, module(t, ctx), "smem_reverse")
	shared := dev.SharedMemPerBlockOptin
	words, blocks := shared/4, 3
	out := alloc(t, ctx, 4*words*blocks)
	check(t, out.Memset8(0xff))
	var args cuda.Args
	args.Buffer(out).Int32(int32(words))
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: blocks}, Block: cuda.Dim3{X: 256}, SharedMem: shared}
	if err := f.Launch(cfg, &args); !errors.Is(err, cuda.ErrorInvalidValue) {
		t.Fatalf("launch with %d bytes of shared memory before opting in: %v", shared, err)
	}
	check(t, f.SetMaxDynamicSharedMemory(shared))
	check(t, f.Launch(cfg, &args))
	check(t, ctx.Synchronize())
	got := make([]uint32, words*blocks)
	check(t, out.CopyToHost(cuda.Bytes(got), 0))
	for b := 0; b < blocks; b++ {
		for i := 0; i < words; i++ {
			if want := uint32(words-1-i) ^ uint32(b<<20); got[b*words+i] != want {
				t.Fatalf("block %d word %d = %#x, want %#x", b, i, got[b*words+i], want)
			}
		}
	}
	max, err := f.Attribute(cuda.FuncMaxDynamicSharedBytes)
	check(t, err)
	if max != shared {
		t.Errorf("max dynamic shared memory reads %d, set %d", max, shared)
	}
	t.Logf("%d KiB of dynamic shared memory per block", shared>>10)
}

// Two streams each copy pinned input in, run a slow kernel and copy out;
// the second also waits on an event of the first before reading its output.
func TestGPUStreamsEventsPinned(t *testing.T) {
	ctx := context(t, 0)
	f := function(t, module(t, ctx), "slow_increment")
	const n = 1 << 18
	rng := rand.New(rand.NewPCG(4, 5))
	type lane struct {
		s              *cuda.Stream
		in, out        *cuda.HostBuffer
		dev            *cuda.Buffer
		start, done    *cuda.Event
		want           []float32
		inputs, output []float32
	}
	lanes := make([]*lane, 2)
	for i := range lanes {
		l := &lane{}
		var err error
		l.s, err = ctx.NewStream()
		check(t, err)
		defer l.s.Destroy()
		l.in, err = ctx.AllocHost(4 * n)
		check(t, err)
		defer l.in.Free()
		l.out, err = ctx.AllocHost(4 * n)
		check(t, err)
		defer l.out.Free()
		if len(l.in.Bytes()) != 4*n {
			t.Fatalf("pinned buffer of %d bytes", len(l.in.Bytes()))
		}
		l.dev = alloc(t, ctx, 4*n)
		l.start, err = ctx.NewEvent(true)
		check(t, err)
		defer l.start.Destroy()
		l.done, err = ctx.NewEvent(true)
		check(t, err)
		defer l.done.Destroy()
		l.inputs, l.output = cuda.View[float32](l.in.Bytes()), cuda.View[float32](l.out.Bytes())
		copy(l.inputs, randomFloats(rng, n))
		for j := range l.output {
			l.output[j] = float32(math.NaN())
		}
		lanes[i] = l
	}
	var args cuda.Args
	for _, l := range lanes {
		check(t, l.start.Record(l.s))
		check(t, l.s.CopyHtoD(l.dev.Ptr(), l.in.Bytes()))
		args.Reset()
		args.Buffer(l.dev).Int32(n).Int64(2_000_000)
		check(t, f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 64}, Block: cuda.Dim3{X: 256}, Stream: l.s}, &args))
		check(t, l.done.Record(l.s))
	}
	// Lane 1 adds lane 0's result to its own: it must see lane 0 finished.
	second := alloc(t, ctx, 4*n)
	check(t, lanes[1].s.WaitEvent(lanes[0].done))
	check(t, lanes[1].s.CopyDtoD(second.Ptr(), lanes[0].dev.Ptr(), 4*n))
	args.Reset()
	vecadd := function(t, module(t, ctx), "vecadd")
	args.Buffer(lanes[1].dev).Ptr(second.Ptr()).Buffer(lanes[1].dev).Int32(n)
	check(t, vecadd.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 256}, Block: cuda.Dim3{X: 256}, Stream: lanes[1].s}, &args))
	for _, l := range lanes {
		check(t, l.s.CopyDtoH(l.out.Bytes(), l.dev.Ptr()))
	}
	for i, l := range lanes {
		check(t, l.s.Synchronize())
		done, err := l.s.Done()
		check(t, err)
		ev, err := l.done.Done()
		check(t, err)
		if !done || !ev {
			t.Errorf("lane %d: stream done %v, event done %v after Synchronize", i, done, ev)
		}
		d, err := cuda.Elapsed(l.start, l.done)
		check(t, err)
		t.Logf("lane %d: copy in + slow kernel took %v", i, d)
	}
	for j := 0; j < n; j++ {
		w0 := lanes[0].inputs[j] + 1
		w1 := (lanes[1].inputs[j] + 1) + w0
		if lanes[0].output[j] != w0 || lanes[1].output[j] != w1 {
			t.Fatalf("element %d: lane 0 %v want %v, lane 1 %v want %v", j, lanes[0].output[j], w0, lanes[1].output[j], w1)
		}
	}
}

// Stream.Alloc's buffers take copies and kernels on their stream and on
// others, and Free releases them in the stream's order: a buffer freed
// while its stream still has work queued must not disturb that work, and
// the memory can be had again at once.
func TestGPUStreamAlloc(t *testing.T) {
	ctx := context(t, 0)
	f := function(t, module(t, ctx), "slow_increment")
	s, err := ctx.NewStream()
	check(t, err)
	defer s.Destroy()
	const n = 1 << 16
	rng := rand.New(rand.NewPCG(6, 7))
	for round := range 3 {
		in := randomFloats(rng, n)
		a, err := s.Alloc(4 * n)
		check(t, err)
		b, err := s.Alloc(4 * n)
		check(t, err)
		check(t, a.CopyFromHost(0, cuda.Bytes(in))) // the default stream's copy sees the memory
		check(t, s.CopyDtoD(b.Ptr(), a.Ptr(), 4*n))
		var args cuda.Args
		args.Buffer(b).Int32(n).Int64(1 << 20)
		check(t, f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: n / 256}, Block: cuda.Dim3{X: 256}, Stream: s}, &args))
		check(t, a.Free()) // queued behind the copy that reads it
		out := make([]float32, n)
		check(t, s.CopyDtoH(cuda.Bytes(out), b.Ptr()))
		check(t, s.Synchronize())
		check(t, b.Free())
		for j := range out {
			if out[j] != in[j]+1 {
				t.Fatalf("round %d element %d: %v, want %v", round, j, out[j], in[j]+1)
			}
		}
	}
	check(t, ctx.Synchronize())
}

// Many goroutines share contexts (of every device) without arranging
// threads; each context method must make its context current itself.
func TestGPUConcurrentGoroutines(t *testing.T) {
	context(t, 0)
	ds, err := cuda.Devices()
	check(t, err)
	mods := make([]*cuda.Module, len(ds))
	for i, d := range ds {
		ctx, err := d.Context()
		check(t, err)
		mods[i] = module(t, ctx)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- addOnDevice(ds[g%len(ds)], mods[g%len(ds)], g)
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func addOnDevice(d *cuda.Device, m *cuda.Module, seed int) error {
	ctx, err := d.Context()
	if err != nil {
		return err
	}
	f, err := m.Function("vecadd")
	if err != nil {
		return err
	}
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()
	n := 10000 + seed
	rng := rand.New(rand.NewPCG(uint64(seed), 9))
	a, b := randomFloats(rng, n), randomFloats(rng, n)
	bufs := make([]*cuda.Buffer, 3)
	for i := range bufs {
		if bufs[i], err = ctx.Alloc(4 * n); err != nil {
			return err
		}
		defer bufs[i].Free()
	}
	for round := 0; round < 20; round++ {
		if err := s.CopyHtoD(bufs[0].Ptr(), cuda.Bytes(a)); err != nil {
			return err
		}
		if err := s.CopyHtoD(bufs[1].Ptr(), cuda.Bytes(b)); err != nil {
			return err
		}
		var args cuda.Args
		args.Buffer(bufs[0]).Buffer(bufs[1]).Buffer(bufs[2]).Int32(int32(n))
		if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 40}, Block: cuda.Dim3{X: 128}, Stream: s}, &args); err != nil {
			return err
		}
		c := make([]float32, n)
		if err := s.CopyDtoH(cuda.Bytes(c), bufs[2].Ptr()); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		for i := range c {
			if c[i] != a[i]+b[i] {
				return fmt.Errorf("goroutine %d on GPU %d round %d: c[%d] = %v, want %v", seed, d.Ordinal, round, i, c[i], a[i]+b[i])
			}
		}
	}
	return nil
}

// TestGPUContextRelease: each Context call takes a reference to the
// shared primary context; Release gives one back, and the last tears the
// context down, after which Context retains a new one that works. The
// test gives back every reference the package's tests took, so the next
// test starts from a fresh context.
func TestGPUContextRelease(t *testing.T) {
	ctx := context(t, 0)
	d := ctx.Device()
	again, err := d.Context()
	check(t, err)
	if again != ctx {
		t.Fatal("two references to the primary context are two contexts")
	}
	n := cuda.ContextRefs(d)
	if n < 2 {
		t.Fatalf("%d references after two Context calls", n)
	}
	check(t, again.Release())
	if got := cuda.ContextRefs(d); got != n-1 {
		t.Fatalf("%d references after giving one of %d back", got, n)
	}
	b, err := ctx.Alloc(1 << 20) // still usable
	check(t, err)
	check(t, b.Memset8(1))
	check(t, b.Free())
	for i := 1; i < n; i++ {
		check(t, ctx.Release())
	}
	if got := cuda.ContextRefs(d); got != 0 {
		t.Fatalf("%d references after giving all back", got)
	}
	check(t, ctx.Release()) // torn down already: nothing to do
	fresh, err := d.Context()
	check(t, err)
	if fresh == ctx {
		t.Fatal("a context torn down was handed out again")
	}
	b2 := alloc(t, fresh, 1<<20)
	check(t, b2.Memset8(7))
	got := make([]byte, 1<<20)
	check(t, b2.CopyToHost(got, 0))
	if got[0] != 7 || got[len(got)-1] != 7 {
		t.Fatalf("the new context's memory holds %d..%d after Memset8(7)", got[0], got[len(got)-1])
	}
}

// TestGPUFunctionLookedUpOnce: a module looks each kernel up in the driver
// once and hands the same function back after that; a missing kernel is
// not remembered, and an unloaded module's functions are gone.
func TestGPUFunctionLookedUpOnce(t *testing.T) {
	ctx := context(t, 0)
	m := module(t, ctx)
	a, b := function(t, m, "vecadd"), function(t, m, "vecadd")
	if a != b {
		t.Error("vecadd looked up twice: two functions")
	}
	for range 2 {
		if _, err := m.Function("no_such_kernel"); !errors.Is(err, cuda.ErrorNotFound) {
			t.Errorf("missing kernel: %v", err)
		}
	}
	check(t, m.Unload())
	if _, err := m.Function("vecadd"); err == nil {
		t.Error("a function of an unloaded module")
	}
}
