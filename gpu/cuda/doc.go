// Package cuda calls the NVIDIA CUDA driver API (libcuda.so.1) without cgo,
// through github.com/ebitengine/purego, so hmmgo builds with
// CGO_ENABLED=0 and runs on machines with or without a GPU.
//
// Nothing is loaded until Load (or any function that needs the driver) is
// called. Load's error says why the GPU cannot be used; commands normally
// reach it through package gpu/devices, which applies the --gpu policy.
//
// The model follows the driver API closely:
//
//	Device   enumerated GPU and its limits (SMs, shared memory, L2...)
//	Context  the device's primary context; safe for concurrent goroutines
//	Buffer   device memory; HostBuffer pinned host memory as a []byte
//	Stream   ordered queue of copies and launches; Event marks and times it
//	Module   loaded CUBIN/PTX; Function a kernel, launched with Args
//
// Every failed driver call returns an *Error naming the call and the
// driver's own description of the code; errors.Is matches Result codes.
package cuda
