package cuda

import (
	"errors"
	"fmt"
)

// Result is a CUDA driver status code (CUresult). The named values are the
// ones callers may want to test for with errors.Is.
type Result int32

// Driver status codes, numbered as in cuda.h.
const (
	Success                Result = 0
	ErrorInvalidValue      Result = 1
	ErrorOutOfMemory       Result = 2
	ErrorNotInitialized    Result = 3
	ErrorStubLibrary       Result = 34
	ErrorNoDevice          Result = 100
	ErrorInvalidDevice     Result = 101
	ErrorInvalidImage      Result = 200
	ErrorInvalidContext    Result = 201
	ErrorNoBinaryForGPU    Result = 209
	ErrorInvalidPTX        Result = 218
	ErrorUnsupportedPTX    Result = 222
	ErrorNotFound          Result = 500
	ErrorNotReady          Result = 600
	ErrorIllegalAddress    Result = 700
	ErrorLaunchOutOfRes    Result = 701
	ErrorLaunchFailed      Result = 719
	ErrorSystemDriverMatch Result = 803
	ErrorCompatNotSupport  Result = 804
	ErrorUnknown           Result = 999
)

// fallbackNames names the codes above when the driver cannot (it is not
// loaded, or cuGetErrorName failed).
var fallbackNames = map[Result]string{
	Success: "CUDA_SUCCESS", ErrorInvalidValue: "CUDA_ERROR_INVALID_VALUE",
	ErrorOutOfMemory: "CUDA_ERROR_OUT_OF_MEMORY", ErrorNotInitialized: "CUDA_ERROR_NOT_INITIALIZED",
	ErrorStubLibrary: "CUDA_ERROR_STUB_LIBRARY", ErrorNoDevice: "CUDA_ERROR_NO_DEVICE",
	ErrorInvalidDevice: "CUDA_ERROR_INVALID_DEVICE", ErrorInvalidImage: "CUDA_ERROR_INVALID_IMAGE",
	ErrorInvalidContext: "CUDA_ERROR_INVALID_CONTEXT", ErrorNoBinaryForGPU: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	ErrorInvalidPTX: "CUDA_ERROR_INVALID_PTX", ErrorUnsupportedPTX: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	ErrorNotFound: "CUDA_ERROR_NOT_FOUND", ErrorNotReady: "CUDA_ERROR_NOT_READY",
	ErrorIllegalAddress: "CUDA_ERROR_ILLEGAL_ADDRESS", ErrorLaunchOutOfRes: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	ErrorLaunchFailed: "CUDA_ERROR_LAUNCH_FAILED", ErrorSystemDriverMatch: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	ErrorCompatNotSupport: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", ErrorUnknown: "CUDA_ERROR_UNKNOWN",
}

// Error makes a bare Result usable as an errors.Is target.
func (r Result) Error() string {
	if n, ok := fallbackNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult %d", int32(r))
}

// Error is a failed driver call: which call, with what, and the driver's
// own name and description of the code.
type Error struct {
	Call    string // the call and its salient arguments, e.g. "cuMemAlloc(1073741824 bytes)"
	Code    Result
	Name    string // CUDA_ERROR_OUT_OF_MEMORY
	Message string // "out of memory"
	Hint    string // what the user can do, when we know
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cuda: %s failed: %s (%s)", e.Call, e.Message, e.Name)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Is lets errors.Is(err, cuda.ErrorOutOfMemory) match.
func (e *Error) Is(target error) bool {
	r, ok := target.(Result)
	return ok && r == e.Code
}

// Load failure classes, for errors.Is. Every error from Load wraps one.
var (
	// ErrNoDriver: libcuda is not installed (the normal case on a CPU-only
	// machine); commands fall back to the CPU without comment.
	ErrNoDriver = errors.New("no NVIDIA driver")
	// ErrNoDevice: the driver is installed but sees no GPU.
	ErrNoDevice = errors.New("no CUDA devices")
	// ErrDriverTooOld: the driver lacks functions or a version hmmgo needs.
	ErrDriverTooOld = errors.New("NVIDIA driver too old")
	// ErrDriverBroken: the driver is present but failed to start.
	ErrDriverBroken = errors.New("NVIDIA driver unusable")
)

// loadError carries a full sentence while matching its class.
type loadError struct {
	class error
	msg   string
}

func (e *loadError) Error() string { return e.msg }
func (e *loadError) Unwrap() error { return e.class }

// result turns a driver status into nil or an *Error naming the call.
func result(r int32, call string, args ...any) error {
	if r == 0 {
		return nil
	}
	if len(args) > 0 {
		call = fmt.Sprintf(call, args...)
	}
	code := Result(r)
	name, msg := describe(code)
	return &Error{Call: call, Code: code, Name: name, Message: msg, Hint: hintFor(code)}
}

// IsFault reports whether err is a kernel's fault (an illegal address or
// instruction, a failed launch). The driver then fails every later call
// of the process, on every device, and cannot make a new context:
// measured on H200s with a trapping kernel (docs/BENCHMARKS.md).
func IsFault(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case ErrorIllegalAddress, ErrorLaunchFailed, 702, 714, 715, 716, 717, 718:
		// 702 launch timeout; 714 hardware stack error, 715 illegal
		// instruction, 716 misaligned address, 717 invalid address
		// space, 718 invalid program counter.
		return true
	}
	return false
}

// hintFor suggests a remedy for codes whose cause is usually outside hmmgo.
func hintFor(code Result) string {
	switch code {
	case ErrorOutOfMemory:
		return "the GPU has too little free memory for this request (other processes may hold it; see nvidia-smi)"
	case ErrorUnsupportedPTX:
		return "the kernel was compiled by an NVRTC newer than this driver supports; update the driver or use a matching CUDA toolkit"
	case ErrorNoBinaryForGPU:
		return "the kernel image holds no code for this GPU's architecture"
	case ErrorIllegalAddress, ErrorLaunchFailed:
		return "a kernel faulted; the context is now unusable and the process must exit"
	}
	return ""
}
