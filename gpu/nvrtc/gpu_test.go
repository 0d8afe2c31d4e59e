package nvrtc_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/internal/dl"
	"github.com/hmmgo/hmmgo/gpu/internal/mockgpu"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// TestNVRTC* need libnvrtc (not a GPU); TestGPU* need both. They skip
// without, and run here against the mock libraries through TestMock.

const vecaddSource = `
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}
`

const templateSource = `
template <int N> __global__ void add_n(int *x) { x[threadIdx.x] += N; }
`

func TestMock(t *testing.T) {
	mockgpu.RunTests(t, "^(TestNVRTC|TestGPU)")
}

func needNVRTC(t *testing.T) {
	t.Helper()
	if err := nvrtc.Load(); err != nil {
		t.Skipf("no NVRTC: %v", err)
	}
}

// compileCount reads the mock NVRTC's counter, or -1 with the real one.
func compileCount(t *testing.T) int {
	if !mockgpu.InChild() {
		return -1
	}
	l, err := dl.Open([]string{os.Getenv("HMMGO_LIBNVRTC")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Sym("mock_compile_count")
	if err != nil {
		t.Fatal(err)
	}
	return int(p.Call())
}

func TestNVRTCCompileAndCache(t *testing.T) {
	needNVRTC(t)
	major, minor, _ := nvrtc.Version()
	archs, _ := nvrtc.SupportedArchs()
	t.Logf("NVRTC %d.%d at %s: %s", major, minor, nvrtc.LibraryPath(), nvrtc.ArchList(archs))
	cache := &nvrtc.Cache{Dir: t.TempDir()}
	p := nvrtc.Program{Name: "vecadd.cu", Source: vecaddSource, Options: []string{"-DUNUSED=1"}}
	target := nvrtc.Target{Major: 9, Minor: 0}
	before := compileCount(t)
	img, err := nvrtc.Compile(p, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if img.FromCache || img.CacheNote != "" {
		t.Errorf("first compile: from cache %v, note %q", img.FromCache, img.CacheNote)
	}
	if img.Kind != "cubin" || img.Arch != "sm_90" || !bytes.HasPrefix(img.Data, []byte("\x7fELF")) {
		t.Errorf("compiled for sm_90: kind %s arch %s, starts % x", img.Kind, img.Arch, img.Data[:min(8, len(img.Data))])
	}
	again, err := nvrtc.Compile(p, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !again.FromCache || !bytes.Equal(again.Data, img.Data) || again.Key != img.Key {
		t.Errorf("second compile: from cache %v, same bytes %v", again.FromCache, bytes.Equal(again.Data, img.Data))
	}
	if before >= 0 && compileCount(t) != before+1 {
		t.Errorf("NVRTC ran %d times for one program compiled twice", compileCount(t)-before)
	}
	// A different option is a different kernel.
	p.Options = []string{"-DUNUSED=2"}
	other, err := nvrtc.Compile(p, target, cache)
	if err != nil {
		t.Fatal(err)
	}
	if other.FromCache || other.Key == img.Key {
		t.Error("a changed option hit the cache")
	}
	if n, _ := cache.Entries(); n != 2 {
		t.Errorf("cache holds %d entries, want 2", n)
	}
}

func TestNVRTCPTXForUnknownArchitecture(t *testing.T) {
	needNVRTC(t)
	// sm_99 exists in no NVRTC: it must fall back to PTX for sm_90 or so.
	img, err := nvrtc.Compile(nvrtc.Program{Name: "vecadd.cu", Source: vecaddSource}, nvrtc.Target{Major: 9, Minor: 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if img.Kind != "ptx" || !strings.HasPrefix(img.Arch, "compute_9") || img.Data[len(img.Data)-1] != 0 {
		t.Errorf("kind %s arch %s, NUL-terminated %v", img.Kind, img.Arch, img.Data[len(img.Data)-1] == 0)
	}
}

func TestNVRTCCompileError(t *testing.T) {
	needNVRTC(t)
	src := "extern \"C\" __global__ void k(int *x) {\n#error deliberate failure\n}\n"
	_, err := nvrtc.Compile(nvrtc.Program{Name: "broken.cu", Source: src}, nvrtc.Target{Major: 9, Minor: 0}, nil)
	var ce *nvrtc.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a CompileError", err)
	}
	t.Logf("%v", err)
	if ce.Status != "NVRTC_ERROR_COMPILATION" || !strings.Contains(ce.Log, "broken.cu(2)") || !strings.Contains(err.Error(), "error") {
		t.Errorf("compile error lacks the status or the log: %v", err)
	}
	_, err = nvrtc.Compile(nvrtc.Program{Name: "k.cu", Source: vecaddSource, Options: []string{"--bad-option-xyz"}}, nvrtc.Target{Major: 9, Minor: 0}, nil)
	if !errors.As(err, &ce) || ce.Status != "NVRTC_ERROR_INVALID_OPTION" {
		t.Errorf("bad option: %v", err)
	}
}

func TestNVRTCNameExpressions(t *testing.T) {
	needNVRTC(t)
	img, err := nvrtc.Compile(nvrtc.Program{Name: "tmpl.cu", Source: templateSource, NameExpressions: []string{"add_n<3>", "add_n<-1>"}},
		nvrtc.Target{Major: 9, Minor: 0}, &nvrtc.Cache{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"add_n<3>", "add_n<-1>"} {
		if l := img.Symbol(e); l == e || !strings.HasPrefix(l, "_Z") {
			t.Errorf("%s lowered to %q", e, l)
		}
	}
	if img.Symbol("plain") != "plain" {
		t.Error("a name without expression was renamed")
	}
}

func gpuContext(t *testing.T) *cuda.Context {
	t.Helper()
	needNVRTC(t)
	if err := cuda.Load(); err != nil {
		t.Skipf("no usable GPU: %v", err)
	}
	d, err := cuda.DeviceByOrdinal(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.Context()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func TestGPUBuildAndRun(t *testing.T) {
	ctx := gpuContext(t)
	t.Setenv("HMMGO_KERNEL_CACHE", t.TempDir())
	p := nvrtc.Program{Name: "vecadd.cu", Source: vecaddSource}
	k, err := nvrtc.Build(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Unload()
	t.Logf("built %s for %s (%d bytes)", k.Image.Kind, k.Image.Arch, len(k.Image.Data))
	k2, err := nvrtc.Build(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer k2.Unload()
	if !k2.Image.FromCache {
		t.Error("the second Build compiled again")
	}
	f, err := k2.Function("vecadd")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	n := 300_001
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = rng.Float32()*1e3-500, rng.Float32()*1e-3
	}
	bufs := make([]*cuda.Buffer, 3)
	for i := range bufs {
		if bufs[i], err = ctx.Alloc(4 * n); err != nil {
			t.Fatal(err)
		}
		defer bufs[i].Free()
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(bufs[0].CopyFromHost(0, cuda.Bytes(a)))
	must(bufs[1].CopyFromHost(0, cuda.Bytes(b)))
	must(bufs[2].Memset32(0x7fc00001))
	var args cuda.Args
	must(f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 132 * 4}, Block: cuda.Dim3{X: 256}},
		args.Buffer(bufs[0]).Buffer(bufs[1]).Buffer(bufs[2]).Int32(int32(n))))
	c := make([]float32, n)
	must(bufs[2].CopyToHost(cuda.Bytes(c), 0))
	for i := range c {
		if c[i] != a[i]+b[i] {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
		}
	}
}

func TestGPUTemplateKernel(t *testing.T) {
	ctx := gpuContext(t)
	if mockgpu.InChild() {
		t.Skip("templated kernels are " + mockgpu.SkipMarker)
	}
	k, err := nvrtc.Build(ctx, nvrtc.Program{Name: "tmpl.cu", Source: templateSource, NameExpressions: []string{"add_n<3>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Unload()
	f, err := k.Function("add_n<3>")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := ctx.Alloc(4 * 32)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	x := make([]int32, 32)
	for i := range x {
		x[i] = int32(i * 10)
	}
	if err := buf.CopyFromHost(0, cuda.Bytes(x)); err != nil {
		t.Fatal(err)
	}
	var args cuda.Args
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 32}}, args.Buffer(buf)); err != nil {
		t.Fatal(err)
	}
	if err := buf.CopyToHost(cuda.Bytes(x), 0); err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		if v != int32(i*10+3) {
			t.Fatalf("x[%d] = %d, want %d", i, v, i*10+3)
		}
	}
}

// A prefetched program is compiled once, in the background, and the next
// Compile of it collects that image instead of running NVRTC again, even
// without a disk cache.
func TestNVRTCPrefetch(t *testing.T) {
	needNVRTC(t)
	before := compileCount(t)
	if before < 0 {
		t.Skip("counts compilations only with the mock NVRTC")
	}
	p := nvrtc.Program{Name: "prefetch.cu", Source: vecaddSource, Options: []string{"-DPREFETCH=1"}}
	target := nvrtc.Target{Major: 9, Minor: 0}
	nvrtc.Prefetch(p, target, nil)
	for deadline := time.Now().Add(10 * time.Second); compileCount(t) == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the prefetch never compiled")
		}
	}
	img, err := nvrtc.Compile(p, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := compileCount(t) - before; n != 1 || img.Kind != "cubin" {
		t.Errorf("NVRTC ran %d times (want 1), image %s", n, img.Kind)
	}
	nvrtc.Prefetch(p, target, nil) // already compiled: nothing to do
	time.Sleep(50 * time.Millisecond)
	if n := compileCount(t) - before; n != 1 {
		t.Errorf("a second prefetch of one program compiled it again (%d runs)", n)
	}
}
