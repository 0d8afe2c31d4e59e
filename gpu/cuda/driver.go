package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/gpu/internal/dl"
)

// MinDriverVersion is the oldest driver API version hmmgo accepts
// (cuDriverGetVersion's 1000*major + 10*minor): CUDA 11.0, the first with
// every function below under the names used here.
const MinDriverVersion = 11000

// driverAPI holds the resolved driver functions. The names are the ABI
// symbols that cuda.h's macros select (the _v2 forms where they exist).
type driverAPI struct {
	lib     *dl.Lib
	version int

	cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString                      dl.Proc
	cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute              dl.Proc
	cuDeviceTotalMem, cuDeviceGetPCIBusId                                             dl.Proc
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent              dl.Proc
	cuDevicePrimaryCtxSetFlags                                                        dl.Proc
	cuCtxSynchronize, cuMemGetInfo                                                    dl.Proc
	cuModuleLoadDataEx, cuModuleUnload, cuModuleGetFunction, cuModuleGetGlobal        dl.Proc
	cuFuncSetAttribute, cuFuncGetAttribute, cuLaunchKernel                            dl.Proc
	cuMemAlloc, cuMemFree, cuMemsetD8, cuMemsetD32, cuMemsetD8Async, cuMemsetD32Async dl.Proc
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD                                          dl.Proc
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync                           dl.Proc
	cuMemHostAlloc, cuMemFreeHost                                                     dl.Proc
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize, cuStreamQuery               dl.Proc
	cuStreamWaitEvent                                                                 dl.Proc
	cuEventCreate, cuEventDestroy, cuEventRecord, cuEventSynchronize, cuEventQuery    dl.Proc
	cuEventElapsedTime                                                                dl.Proc
	// Optional (CUDA 11.2): stream-ordered allocation; without them
	// Stream.Alloc falls back to cuMemAlloc.
	cuMemAllocAsync, cuMemFreeAsync dl.Proc
}

// symbols maps each slot to the exported names to try, newest first.
func (d *driverAPI) symbols() []struct {
	slot  *dl.Proc
	names []string
} {
	type s = struct {
		slot  *dl.Proc
		names []string
	}
	one := func(p *dl.Proc, names ...string) s { return s{p, names} }
	return []s{
		one(&d.cuInit, "cuInit"),
		one(&d.cuDriverGetVersion, "cuDriverGetVersion"),
		one(&d.cuGetErrorName, "cuGetErrorName"),
		one(&d.cuGetErrorString, "cuGetErrorString"),
		one(&d.cuDeviceGetCount, "cuDeviceGetCount"),
		one(&d.cuDeviceGet, "cuDeviceGet"),
		one(&d.cuDeviceGetName, "cuDeviceGetName"),
		one(&d.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
		one(&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
		one(&d.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
		one(&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
		one(&d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
		one(&d.cuDevicePrimaryCtxSetFlags, "cuDevicePrimaryCtxSetFlags_v2", "cuDevicePrimaryCtxSetFlags"),
		one(&d.cuCtxSetCurrent, "cuCtxSetCurrent"),
		one(&d.cuCtxSynchronize, "cuCtxSynchronize"),
		one(&d.cuMemGetInfo, "cuMemGetInfo_v2"),
		one(&d.cuModuleLoadDataEx, "cuModuleLoadDataEx"),
		one(&d.cuModuleUnload, "cuModuleUnload"),
		one(&d.cuModuleGetFunction, "cuModuleGetFunction"),
		one(&d.cuModuleGetGlobal, "cuModuleGetGlobal_v2"),
		one(&d.cuFuncSetAttribute, "cuFuncSetAttribute"),
		one(&d.cuFuncGetAttribute, "cuFuncGetAttribute"),
		one(&d.cuLaunchKernel, "cuLaunchKernel"),
		one(&d.cuMemAlloc, "cuMemAlloc_v2"),
		one(&d.cuMemFree, "cuMemFree_v2"),
		one(&d.cuMemsetD8, "cuMemsetD8_v2"),
		one(&d.cuMemsetD32, "cuMemsetD32_v2"),
		one(&d.cuMemsetD8Async, "cuMemsetD8Async"),
		one(&d.cuMemsetD32Async, "cuMemsetD32Async"),
		one(&d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
		one(&d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
		one(&d.cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
		one(&d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
		one(&d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
		one(&d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
		one(&d.cuMemHostAlloc, "cuMemHostAlloc"),
		one(&d.cuMemFreeHost, "cuMemFreeHost"),
		one(&d.cuStreamCreate, "cuStreamCreate"),
		one(&d.cuStreamDestroy, "cuStreamDestroy_v2"),
		one(&d.cuStreamSynchronize, "cuStreamSynchronize"),
		one(&d.cuStreamQuery, "cuStreamQuery"),
		one(&d.cuStreamWaitEvent, "cuStreamWaitEvent"),
		one(&d.cuEventCreate, "cuEventCreate"),
		one(&d.cuEventDestroy, "cuEventDestroy_v2"),
		one(&d.cuEventRecord, "cuEventRecord"),
		one(&d.cuEventSynchronize, "cuEventSynchronize"),
		one(&d.cuEventQuery, "cuEventQuery"),
		// CUDA 12.8 added a _v2 with the same signature; older drivers
		// export only the first form.
		one(&d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
	}
}

var (
	loadOnce sync.Once
	loadErr  error
	drv      *driverAPI
)

// Load opens the NVIDIA driver library and initialises it. It is cheap
// after the first call and safe from any goroutine. The error says in one
// sentence why the GPU cannot be used, and wraps ErrNoDriver, ErrNoDevice,
// ErrDriverTooOld or ErrDriverBroken.
//
// HMMGO_LIBCUDA, when set, names the one library file to try.
func Load() error {
	loadOnce.Do(func() { drv, loadErr = openDriver(driverCandidates()) })
	return loadErr
}

// DriverPresent reports whether the driver library loads, without
// starting the driver (cuInit is most of Load's time): a cheap hint that
// Load may succeed, for work worth starting only when a GPU may be used.
func DriverPresent() bool {
	_, err := dl.Open(driverCandidates())
	return err == nil
}

// driverCandidates lists where libcuda.so.1 may be: the loader's own search
// first (LD_LIBRARY_PATH, ld.so.cache), then the places drivers and
// container runtimes put it when the cache does not know it.
func driverCandidates() []string {
	if p := os.Getenv("HMMGO_LIBCUDA"); p != "" {
		return []string{p}
	}
	return []string{
		"libcuda.so.1",
		"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
		"/usr/lib/aarch64-linux-gnu/libcuda.so.1",
		"/usr/lib64/libcuda.so.1",
		"/usr/local/nvidia/lib64/libcuda.so.1",
		"/usr/lib/wsl/lib/libcuda.so.1",
	}
}

// openDriver loads the first candidate, resolves every function and
// starts the driver; each failure becomes one explanatory sentence.
func openDriver(candidates []string) (*driverAPI, error) {
	lib, err := dl.Open(candidates)
	if err != nil {
		if errors.Is(err, dl.ErrNotFound) {
			if len(candidates) == 1 {
				return nil, &loadError{ErrNoDriver, candidates[0] + " not found: no NVIDIA driver on this machine"}
			}
			return nil, &loadError{ErrNoDriver, "libcuda.so.1 not found: no NVIDIA driver on this machine (searched the loader's path and " +
				strings.Join(dirsOf(candidates), ", ") + ")"}
		}
		return nil, &loadError{ErrDriverBroken, fmt.Sprintf("the NVIDIA driver library would not load: %v", err)}
	}
	d := &driverAPI{lib: lib}
	var missing []string
	for _, s := range d.symbols() {
		p, err := lib.Sym(s.names...)
		if err != nil {
			missing = append(missing, s.names[len(s.names)-1])
			continue
		}
		*s.slot = p
	}
	d.cuMemAllocAsync, _ = lib.Sym("cuMemAllocAsync")
	d.cuMemFreeAsync, _ = lib.Sym("cuMemFreeAsync")
	if len(missing) > 0 {
		if !d.cuInit.Found() {
			return nil, &loadError{ErrNoDriver, fmt.Sprintf("%s is not an NVIDIA driver library: it lacks cuInit", lib.Path)}
		}
		return nil, &loadError{ErrDriverTooOld, fmt.Sprintf("NVIDIA driver too old: %s lacks %s (hmmgo needs CUDA %s or newer)",
			lib.Path, strings.Join(missing, ", "), versionString(MinDriverVersion))}
	}
	if err := d.start(); err != nil {
		return nil, err
	}
	return d, nil
}

// start runs cuInit and checks the version and the device count.
func (d *driverAPI) start() error {
	if r := Result(d.cuInit.Call(0)); r != Success {
		name, msg := d.describe(r)
		where := fmt.Sprintf("cuInit: %s (%s)", msg, name)
		switch r {
		case ErrorNoDevice:
			return &loadError{ErrNoDevice, "no CUDA devices: " + where + visibleDevicesNote()}
		case ErrorStubLibrary:
			return &loadError{ErrNoDriver, fmt.Sprintf("%s is the CUDA toolkit's stub, not a driver: no NVIDIA driver on this machine", d.lib.Path)}
		case ErrorSystemDriverMatch:
			return &loadError{ErrDriverBroken, "NVIDIA driver unusable: the user-space library and the kernel module are different versions (" + where + "); reboot or reinstall the driver"}
		case ErrorCompatNotSupport:
			return &loadError{ErrDriverTooOld, "NVIDIA driver too old for this GPU's forward-compatibility package (" + where + ")"}
		}
		return &loadError{ErrDriverBroken, "NVIDIA driver unusable: " + where}
	}
	var v int32
	if r := d.cuDriverGetVersion.Call(uintptr(unsafe.Pointer(&v))); r != 0 {
		return &loadError{ErrDriverBroken, fmt.Sprintf("NVIDIA driver unusable: cuDriverGetVersion returned %d", r)}
	}
	d.version = int(v)
	if d.version < MinDriverVersion {
		return &loadError{ErrDriverTooOld, fmt.Sprintf("NVIDIA driver too old: it supports CUDA %s, hmmgo needs %s or newer",
			versionString(d.version), versionString(MinDriverVersion))}
	}
	var n int32
	if r := d.cuDeviceGetCount.Call(uintptr(unsafe.Pointer(&n))); r != 0 {
		name, msg := d.describe(Result(r))
		return &loadError{ErrDriverBroken, fmt.Sprintf("NVIDIA driver unusable: cuDeviceGetCount: %s (%s)", msg, name)}
	}
	if n == 0 {
		return &loadError{ErrNoDevice, "no CUDA devices: the driver sees none" + visibleDevicesNote()}
	}
	return nil
}

// dirsOf lists the directories of the absolute candidates.
func dirsOf(candidates []string) []string {
	var dirs []string
	for _, c := range candidates {
		if filepath.IsAbs(c) {
			dirs = append(dirs, filepath.Dir(c))
		}
	}
	return dirs
}

func visibleDevicesNote() string {
	if v, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES"); ok {
		return fmt.Sprintf(" (CUDA_VISIBLE_DEVICES=%q may hide them)", v)
	}
	return ""
}

// describe asks the driver for a code's name and text, falling back to
// our own table when it cannot say.
func (d *driverAPI) describe(r Result) (name, msg string) {
	if d != nil && d.cuGetErrorName.Found() {
		var p *byte
		if d.cuGetErrorName.Call(uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
			name = dl.GoString(p)
		}
		var q *byte
		if d.cuGetErrorString.Found() && d.cuGetErrorString.Call(uintptr(r), uintptr(unsafe.Pointer(&q))) == 0 {
			msg = dl.GoString(q)
		}
	}
	if name == "" {
		name = r.Error()
	}
	if msg == "" {
		msg = "error " + fmt.Sprint(int32(r))
	}
	return name, msg
}

func describe(r Result) (string, string) { return drv.describe(r) }

// versionString formats a driver API version (12040 -> "12.4").
func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// DriverVersion returns the CUDA version the driver supports, e.g. "13.0".
func DriverVersion() (string, error) {
	if err := Load(); err != nil {
		return "", err
	}
	return versionString(drv.version), nil
}

// LibraryPath returns the file of the driver library that Load opened.
func LibraryPath() string {
	if Load() != nil {
		return ""
	}
	return drv.lib.File()
}
