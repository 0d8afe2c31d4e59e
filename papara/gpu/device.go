package gpu

import "time"

// The scorer talks to a GPU through the small interface below. cudaDevice
// (cuda.go) implements it over gpu/cuda and gpu/nvrtc; the tests implement
// it with host memory and the kernel source compiled as C++ (emulated
// launches), so that the whole host side — packing, bins, units, launches,
// keys, the CPU fallback, failures — is checked without a GPU.
type device interface {
	// Name describes the device, e.g. "GPU 0: NVIDIA H100 ... (sm_90)".
	Name() string
	// Kernel compiles (through the kernel cache) and loads the kernel of
	// one configuration. It may be called from several goroutines.
	Kernel(c config) (kernel, error)
	Alloc(bytes int) (buffer, error)
	// The calls below queue work on the device's stream, in order.
	// CopyIn copies src (Go memory, free to reuse once the call returns).
	CopyIn(dst buffer, src []byte) error
	Zero(dst buffer, bytes int) error
	// Launch runs k on a gridX x gridY grid of 128-thread blocks; args
	// are buffers and int32s in the kernel's parameter order.
	Launch(k kernel, gridX, gridY int, args ...any) error
	// Wait returns once the queued work is done, without keeping a CPU
	// core busy meanwhile (the CPU scorers need every core), and the
	// device time from its first launch since the last Wait to its end.
	Wait() (time.Duration, error)
	// CopyOut copies the start of src into dst; the queued work must be
	// done (Wait).
	CopyOut(dst []byte, src buffer) error
	Close() error
}

type buffer interface {
	Size() int
	Free() error
}

// kernel is a loaded kernel, opaque to the scorer.
type kernel any
