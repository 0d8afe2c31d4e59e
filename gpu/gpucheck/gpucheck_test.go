package gpucheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/internal/mockgpu"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// Worked by hand from the CUDA math API's definitions: lanes wrap on
// overflow and compare signed.
func TestDPXReference(t *testing.T) {
	got := dpxReference(0x7fff0001, 0x00010001, 0x80000000)
	want := [6]uint32{
		0x80000002, // hi: 0x7fff+1 wraps to -32768 = c; lo: max(2, 0)
		0x00000002, // relu clamps the hi lane's -32768 to 0
		0x7fff0001, // max3 per lane
		0x80000002, // 32-bit: 0x7fff0001+0x00010001 wraps to 0x80000002 > INT_MIN
		0x7fff0001, // 32-bit max3
		0x80000000, // min(a+b, c) per lane
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s = %#08x, want %#08x", dpxFunctions[i], got[i], want[i])
		}
	}
	if r := dpxReference(0xffff0005, 0xffff0003, 0x00000009); r[0] != 0x00000009 || r[5] != 0xfffe0008 {
		t.Errorf("addmax %#08x, addmin %#08x", r[0], r[5])
	}
}

func TestMock(t *testing.T) {
	mockgpu.RunTests(t, "^TestGPU")
}

func setup(t testing.TB) (*cuda.Context, *nvrtc.Kernels) {
	t.Helper()
	if err := nvrtc.Load(); err != nil {
		t.Skipf("no NVRTC: %v", err)
	}
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
	k, err := Kernels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Unload() })
	t.Logf("%v; kernels: %s for %s, from cache %v", d, k.Image.Kind, k.Image.Arch, k.Image.FromCache)
	return ctx, k
}

func TestGPUChecks(t *testing.T) {
	ctx, k := setup(t)
	if err := VectorAdd(ctx, k, 1<<20+5); err != nil {
		t.Error(err)
	}
	r, err := DPX(ctx, k, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("DPX: %v", r)
	bw, err := CopyBandwidth(ctx, k, 16<<20+48, 3)
	if err != nil {
		t.Fatal(err)
	}
	if bw.CheckedBytes == 0 || bw.Bytes != 16<<20+48 {
		t.Errorf("bandwidth run checked %d of %d bytes", bw.CheckedBytes, bw.Bytes)
	}
	t.Logf("small copy: %v", bw)
}

// BenchmarkCopyBandwidth measures device memory bandwidth with 1 GiB
// copies (HMMGO_BENCH_BYTES overrides); run with -benchtime=1x.
func BenchmarkCopyBandwidth(b *testing.B) {
	ctx, k := setup(b)
	size := 1 << 30
	if s := os.Getenv("HMMGO_BENCH_BYTES"); s != "" {
		if _, err := fmt.Sscan(s, &size); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < b.N; i++ {
		bw, err := CopyBandwidth(ctx, k, size, 20)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(bw.MemcpyGBps, "memcpy-GB/s")
		b.ReportMetric(bw.KernelGBps, "kernel-GB/s")
		b.Logf("%v", bw)
	}
}
