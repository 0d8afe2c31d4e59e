package pairhmm

import "time"

// The CUDA backend talks to a device through the small interface below.
// cudaRuntime (gpu_cuda.go) implements it over gpu/cuda and gpu/nvrtc; the
// tests implement it with host memory and an emulated kernel, so that the
// whole host side (packing, length bins, chunks, the two streams, the
// double pass, the CPU fallback) is checked on machines without a GPU.

type gpuRuntime interface {
	// Name describes the device, e.g. "GPU 0: NVIDIA H100 (sm_90, ...)".
	Name() string
	// Build compiles CUDA C++ source with NVRTC options (through the
	// kernel cache) and loads it.
	Build(name, src string, options []string) (gpuModule, error)
	// Alloc returns device memory.
	Alloc(bytes int) (gpuBuffer, error)
	// AllocHost returns page-locked host memory, which asynchronous copies
	// need to overlap with kernels.
	AllocHost(bytes int) (hostMemory, error)
	NewStream() (gpuStream, error)
	NewEvent() (gpuEvent, error)
	// Elapsed is the device time between two completed events.
	Elapsed(start, end gpuEvent) (time.Duration, error)
}

type gpuModule interface {
	Function(name string) (gpuFunction, error)
}

// gpuFunction is a kernel entry point, opaque to the backend.
type gpuFunction any

type gpuBuffer interface{ Free() error }

type hostMemory interface {
	Bytes() []byte
	Free() error
}

type gpuEvent interface{ Destroy() error }

// devPtr is a kernel pointer argument: a byte offset into a buffer.
type devPtr struct {
	buf gpuBuffer
	off int
}

// gpuStream queues work that runs in order. Host memory passed to the
// copies must stay untouched until Synchronize returns.
type gpuStream interface {
	CopyHtoD(dst gpuBuffer, off int, src []byte) error
	CopyDtoH(dst []byte, src gpuBuffer, off int) error
	// Launch runs f on grid blocks of block threads; args are devPtr,
	// int32, float32 or float64, in the kernel's parameter order.
	Launch(f gpuFunction, grid, block int, args ...any) error
	Record(e gpuEvent) error
	// WaitEvent makes later work on the stream wait for e (recorded on
	// another stream) without blocking the host.
	WaitEvent(e gpuEvent) error
	Synchronize() error
	Destroy() error
}
