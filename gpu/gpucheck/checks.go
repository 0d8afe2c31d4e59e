package gpucheck

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// Kernels compiles (or finds in the cache) the check kernels for ctx.
func Kernels(ctx *cuda.Context) (*nvrtc.Kernels, error) {
	return nvrtc.Build(ctx, nvrtc.Program{Name: "gpucheck.cu", Source: source})
}

// device holds a few buffers and frees them together.
type device struct {
	ctx  *cuda.Context
	bufs []*cuda.Buffer
}

func (d *device) alloc(n int) (*cuda.Buffer, error) {
	b, err := d.ctx.Alloc(n)
	if err == nil {
		d.bufs = append(d.bufs, b)
	}
	return b, err
}

func (d *device) free() {
	for _, b := range d.bufs {
		b.Free()
	}
}

// VectorAdd adds two random vectors of n floats on the GPU and compares
// with the CPU, exactly (one float addition rounds the same everywhere).
func VectorAdd(ctx *cuda.Context, k *nvrtc.Kernels, n int) error {
	f, err := k.Function("vecadd")
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(rng.NormFloat64()*1e3), float32(rng.NormFloat64())
	}
	d := &device{ctx: ctx}
	defer d.free()
	var bufs [3]*cuda.Buffer
	for i := range bufs {
		if bufs[i], err = d.alloc(4 * n); err != nil {
			return err
		}
	}
	if err := bufs[0].CopyFromHost(0, cuda.Bytes(a)); err != nil {
		return err
	}
	if err := bufs[1].CopyFromHost(0, cuda.Bytes(b)); err != nil {
		return err
	}
	if err := bufs[2].Memset32(0x7fc00001); err != nil { // NaN poison: unwritten elements fail
		return err
	}
	var args cuda.Args
	args.Buffer(bufs[0]).Buffer(bufs[1]).Buffer(bufs[2]).Int32(int32(n))
	blocks := min((n+255)/256, 4*ctx.Device().Multiprocessors)
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: blocks}, Block: cuda.Dim3{X: 256}}, &args); err != nil {
		return err
	}
	c := make([]float32, n)
	if err := bufs[2].CopyToHost(cuda.Bytes(c), 0); err != nil {
		return err
	}
	for i := range c {
		if c[i] != a[i]+b[i] {
			return fmt.Errorf("vecadd: c[%d] = %v, want %v", i, c[i], a[i]+b[i])
		}
	}
	return nil
}

// DPXResult reports the DPX check.
type DPXResult struct {
	Native    bool // the device executes DPX in hardware (sm_90 and later)
	Checked   int  // inputs checked per intrinsic
	Functions []string
}

func (r DPXResult) String() string {
	how := "emulated (pre-sm_90)"
	if r.Native {
		how = "native"
	}
	return fmt.Sprintf("%d intrinsics x %d inputs match the CPU, %s", len(r.Functions), r.Checked, how)
}

// dpxInputs draws random words whose 16-bit halves often sit at the
// overflow edges, where wrapping and signedness show.
func dpxInputs(rng *rand.Rand, n int) []uint32 {
	edges := []uint16{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x7ffe, 0xc000}
	half := func() uint32 {
		if rng.IntN(3) == 0 {
			return uint32(edges[rng.IntN(len(edges))])
		}
		return uint32(rng.Uint32() & 0xffff)
	}
	v := make([]uint32, n)
	for i := range v {
		v[i] = half()<<16 | half()
	}
	return v
}

// DPX runs every intrinsic in dpxFunctions on n random inputs and
// compares with dpxReference.
func DPX(ctx *cuda.Context, k *nvrtc.Kernels, n int) (DPXResult, error) {
	res := DPXResult{Native: ctx.Device().Major >= 9, Checked: n, Functions: dpxFunctions}
	f, err := k.Function("dpx_check")
	if err != nil {
		return res, err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	in := [3][]uint32{dpxInputs(rng, n), dpxInputs(rng, n), dpxInputs(rng, n)}
	d := &device{ctx: ctx}
	defer d.free()
	var args cuda.Args
	for _, v := range in {
		b, err := d.alloc(4 * n)
		if err != nil {
			return res, err
		}
		if err := b.CopyFromHost(0, cuda.Bytes(v)); err != nil {
			return res, err
		}
		args.Buffer(b)
	}
	rows := len(dpxFunctions)
	out, err := d.alloc(4 * n * rows)
	if err != nil {
		return res, err
	}
	if err := out.Memset32(0xa5a5a5a5); err != nil {
		return res, err
	}
	args.Buffer(out).Int32(int32(n))
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: (n + 255) / 256}, Block: cuda.Dim3{X: 256}}, &args); err != nil {
		return res, err
	}
	got := make([]uint32, n*rows)
	if err := out.CopyToHost(cuda.Bytes(got), 0); err != nil {
		return res, err
	}
	for i := 0; i < n; i++ {
		want := dpxReference(in[0][i], in[1][i], in[2][i])
		for r := 0; r < rows; r++ {
			if g := got[r*n+i]; g != want[r] {
				return res, fmt.Errorf("%s(%#08x, %#08x, %#08x) = %#08x on the GPU, %#08x on the CPU",
					dpxFunctions[r], in[0][i], in[1][i], in[2][i], g, want[r])
			}
		}
	}
	return res, nil
}

// Bandwidth is a device-to-device copy measurement. Rates count bytes
// read plus bytes written, as memory bandwidth is usually quoted.
type Bandwidth struct {
	Bytes        int           // size of one copy
	Reps         int           // timed repetitions (after one warm-up)
	Memcpy       time.Duration // median time of cuMemcpyDtoDAsync
	Kernel       time.Duration // median time of the copy_u4 kernel
	MemcpyGBps   float64
	KernelGBps   float64
	PeakGBps     float64 // from the memory clock and bus width; 0 if unknown
	CheckedBytes int     // bytes of the copy compared with the source
}

func (b Bandwidth) String() string {
	s := fmt.Sprintf("device-to-device copy of %d MiB (median of %d): cuMemcpy %.0f GB/s (%v), 16-byte kernel %.0f GB/s (%v)",
		b.Bytes>>20, b.Reps, b.MemcpyGBps, b.Memcpy, b.KernelGBps, b.Kernel)
	if b.PeakGBps > 0 {
		s += fmt.Sprintf("; nominal peak %.0f GB/s", b.PeakGBps)
	}
	return s
}

// CopyBandwidth times copies of bytes between two device buffers, with
// events on one stream, and checks that the copies are right.
func CopyBandwidth(ctx *cuda.Context, k *nvrtc.Kernels, bytes, reps int) (Bandwidth, error) {
	bytes &^= 15
	res := Bandwidth{Bytes: bytes, Reps: reps, PeakGBps: ctx.Device().PeakMemoryBandwidth() / 1e9}
	f, err := k.Function("copy_u4")
	if err != nil {
		return res, err
	}
	d := &device{ctx: ctx}
	defer d.free()
	src, err := d.alloc(bytes)
	if err != nil {
		return res, err
	}
	dst, err := d.alloc(bytes)
	if err != nil {
		return res, err
	}
	s, err := ctx.NewStream()
	if err != nil {
		return res, err
	}
	defer s.Destroy()
	// A non-zero pattern, so that a copy that did nothing cannot pass.
	// Memsets go on s: it does not wait for the default stream.
	if err := s.Memset32(src.Ptr(), 0x9e3779b9, bytes/4); err != nil {
		return res, err
	}
	start, err := ctx.NewEvent(true)
	if err != nil {
		return res, err
	}
	defer start.Destroy()
	end, err := ctx.NewEvent(true)
	if err != nil {
		return res, err
	}
	defer end.Destroy()

	var args cuda.Args
	args.Buffer(dst).Buffer(src).Int64(int64(bytes / 16))
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: 8 * ctx.Device().Multiprocessors}, Block: cuda.Dim3{X: 256}, Stream: s}
	byMemcpy := func() error { return s.CopyDtoD(dst.Ptr(), src.Ptr(), bytes) }
	byKernel := func() error { return f.Launch(cfg, &args) }
	time1 := func(op func() error) (time.Duration, error) {
		if err := start.Record(s); err != nil {
			return 0, err
		}
		if err := op(); err != nil {
			return 0, err
		}
		if err := end.Record(s); err != nil {
			return 0, err
		}
		if err := end.Synchronize(); err != nil {
			return 0, err
		}
		return cuda.Elapsed(start, end)
	}
	median := func(op func() error) (time.Duration, error) {
		if _, err := time1(op); err != nil { // warm-up
			return 0, err
		}
		ts := make([]time.Duration, 0, reps)
		for i := 0; i < reps; i++ {
			t, err := time1(op)
			if err != nil {
				return 0, err
			}
			ts = append(ts, t)
		}
		slices.Sort(ts)
		return ts[len(ts)/2], nil
	}
	if res.Memcpy, err = median(byMemcpy); err != nil {
		return res, err
	}
	if err := s.Memset8(dst.Ptr(), 0, bytes); err != nil {
		return res, err
	}
	if res.Kernel, err = median(byKernel); err != nil {
		return res, err
	}
	rate := func(t time.Duration) float64 {
		if t <= 0 {
			return 0
		}
		return 2 * float64(bytes) / t.Seconds() / 1e9
	}
	res.MemcpyGBps, res.KernelGBps = rate(res.Memcpy), rate(res.Kernel)
	if err := s.Synchronize(); err != nil {
		return res, err
	}
	// Check the kernel's copy at both ends and the middle.
	chunk := min(bytes, 1<<20) &^ 3
	got := make([]byte, chunk)
	for _, off := range []int{0, (bytes/2 - chunk/2) &^ 15, bytes - chunk} {
		if err := dst.CopyToHost(got, off); err != nil {
			return res, err
		}
		for i, w := range cuda.View[uint32](got) {
			if w != 0x9e3779b9 {
				return res, fmt.Errorf("copy_u4: word at byte %d is %#x, want 0x9e3779b9", off+4*i, w)
			}
		}
		res.CheckedBytes += chunk
	}
	return res, nil
}
