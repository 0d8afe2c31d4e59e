package pairhmm

import (
	"fmt"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// NewGPU returns the CUDA backend on the given devices (from
// gpu/devices.Select); it compiles the kernels (once per machine, through
// the kernel cache) and reserves the streams and tables of every device.
// Close releases them.
func NewGPU(devs []*cuda.Device, opt GPUOptions) (*GPU, error) {
	return newGPUOnDevices(devs, opt)
}

func newGPUOnDevices(devs []*cuda.Device, opt GPUOptions) (*GPU, error) {
	prepareGPUTables() // beside the contexts' creation
	rts := make([]gpuRuntime, 0, len(devs))
	t0 := time.Now()
	for _, d := range devs {
		ctx, err := d.Context()
		if err != nil {
			return nil, err
		}
		rts = append(rts, &cudaRuntime{dev: d, ctx: ctx})
	}
	ctxTime := time.Since(t0)
	g, err := newGPU(rts, opt)
	if err != nil {
		return nil, err
	}
	g.setup = append([]SetupStep{{"contexts (primary, retained)", ctxTime}}, g.setup...)
	return g, nil
}

// cudaRuntime is gpuRuntime over gpu/cuda and gpu/nvrtc.
type cudaRuntime struct {
	dev *cuda.Device
	ctx *cuda.Context
}

func (r *cudaRuntime) Name() string { return r.dev.String() }

func (r *cudaRuntime) Build(name, src string, options []string) (gpuModule, error) {
	k, err := nvrtc.Build(r.ctx, nvrtc.Program{Name: name, Source: src, Options: options})
	if err != nil {
		return nil, err
	}
	return cudaModule{k}, nil
}

type cudaModule struct{ k *nvrtc.Kernels }

func (m cudaModule) Function(name string) (gpuFunction, error) { return m.k.Function(name) }

func (r *cudaRuntime) Alloc(bytes int) (gpuBuffer, error) { return r.ctx.Alloc(bytes) }

func (r *cudaRuntime) AllocHost(bytes int) (hostMemory, error) { return r.ctx.AllocHost(bytes) }

func (r *cudaRuntime) NewStream() (gpuStream, error) {
	s, err := r.ctx.NewStream()
	if err != nil {
		return nil, err
	}
	return cudaStream{s}, nil
}

func (r *cudaRuntime) NewEvent() (gpuEvent, error) { return r.ctx.NewEvent(true) }

func (r *cudaRuntime) Elapsed(start, end gpuEvent) (time.Duration, error) {
	return cuda.Elapsed(start.(*cuda.Event), end.(*cuda.Event))
}

type cudaStream struct{ s *cuda.Stream }

func ptrOf(b gpuBuffer, off int) cuda.DevicePtr { return b.(*cuda.Buffer).Ptr().Add(off) }

func (s cudaStream) CopyHtoD(dst gpuBuffer, off int, src []byte) error {
	return s.s.CopyHtoD(ptrOf(dst, off), src)
}

func (s cudaStream) CopyDtoH(dst []byte, src gpuBuffer, off int) error {
	return s.s.CopyDtoH(dst, ptrOf(src, off))
}

func (s cudaStream) Launch(f gpuFunction, grid, block int, args ...any) error {
	var a cuda.Args
	for i, v := range args {
		switch v := v.(type) {
		case devPtr:
			a.Ptr(ptrOf(v.buf, v.off))
		case int32:
			a.Int32(v)
		case float32:
			a.Float32(v)
		case float64:
			a.Float64(v)
		default:
			return fmt.Errorf("pairhmm: kernel argument %d has type %T", i, v)
		}
	}
	return f.(*cuda.Function).Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: block}, Stream: s.s}, &a)
}

func (s cudaStream) Record(e gpuEvent) error    { return e.(*cuda.Event).Record(s.s) }
func (s cudaStream) WaitEvent(e gpuEvent) error { return s.s.WaitEvent(e.(*cuda.Event)) }
func (s cudaStream) Synchronize() error         { return s.s.Synchronize() }
func (s cudaStream) Destroy() error             { return s.s.Destroy() }
