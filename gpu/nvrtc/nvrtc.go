// Package nvrtc compiles CUDA C++ kernels at run time through NVIDIA's
// NVRTC library (libnvrtc.so), loaded without cgo like package cuda, and
// caches the results on disk so each kernel variant is compiled once per
// machine.
//
// Kernels are compiled to CUBIN for the device's own architecture when
// this NVRTC knows it (no JIT at load time, no dependence on the driver's
// PTX version), else to PTX for the newest architecture it knows, which
// the driver compiles when loading.
package nvrtc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/gpu/internal/dl"
)

// ErrNotFound: no NVRTC library is installed (the CUDA toolkit or its
// runtime-compiler package is missing).
var ErrNotFound = errors.New("NVRTC not found")

type api struct {
	lib          *dl.Lib
	major, minor int
	archs        []int // 10*major+minor, ascending

	nvrtcVersion, nvrtcGetErrorString, nvrtcCreateProgram, nvrtcDestroyProgram dl.Proc
	nvrtcCompileProgram, nvrtcGetPTXSize, nvrtcGetPTX                          dl.Proc
	nvrtcGetProgramLogSize, nvrtcGetProgramLog                                 dl.Proc
	nvrtcAddNameExpression, nvrtcGetLoweredName                                dl.Proc
	// Optional: absent before CUDA 11.1/11.2.
	nvrtcGetCUBINSize, nvrtcGetCUBIN, nvrtcGetNumSupportedArchs, nvrtcGetSupportedArchs dl.Proc
}

var (
	loadOnce sync.Once
	loadErr  error
	lib      *api
)

// Load opens NVRTC (once). HMMGO_LIBNVRTC, when set, names the one file to
// try; otherwise $CUDA_HOME (or $CUDA_PATH), /usr/local/cuda and the
// loader's usual path are searched for libnvrtc.so.13, .so.12 and .so.
func Load() error {
	loadOnce.Do(func() { lib, loadErr = open(candidates()) })
	return loadErr
}

// candidates lists the library files to try, most specific first.
func candidates() []string {
	if p := os.Getenv("HMMGO_LIBNVRTC"); p != "" {
		return []string{p}
	}
	names := []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}
	target := "x86_64-linux"
	if runtime.GOARCH == "arm64" {
		target = "sbsa-linux"
	}
	var dirs []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if h := os.Getenv(env); h != "" {
			dirs = append(dirs, filepath.Join(h, "lib64"), filepath.Join(h, "targets", target, "lib"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/lib64", "/usr/local/cuda/targets/"+target+"/lib")
	var out []string
	for _, d := range dirs {
		for _, n := range names {
			out = append(out, filepath.Join(d, n))
		}
	}
	return append(out, names...) // LD_LIBRARY_PATH and ld.so.cache
}

func open(cands []string) (*api, error) {
	l, err := dl.Open(cands)
	if err != nil {
		if errors.Is(err, dl.ErrNotFound) {
			what := cands[0] + " does not exist"
			if len(cands) > 1 {
				what = "no libnvrtc.so.13, .so.12 or .so in $CUDA_HOME, /usr/local/cuda or the loader's path"
			}
			return nil, fmt.Errorf("%w: %s; install the CUDA toolkit's NVRTC or set CUDA_HOME", ErrNotFound, what)
		}
		return nil, fmt.Errorf("NVRTC would not load: %v", err)
	}
	a := &api{lib: l}
	required := []struct {
		slot *dl.Proc
		name string
	}{
		{&a.nvrtcVersion, "nvrtcVersion"}, {&a.nvrtcGetErrorString, "nvrtcGetErrorString"},
		{&a.nvrtcCreateProgram, "nvrtcCreateProgram"}, {&a.nvrtcDestroyProgram, "nvrtcDestroyProgram"},
		{&a.nvrtcCompileProgram, "nvrtcCompileProgram"}, {&a.nvrtcGetPTXSize, "nvrtcGetPTXSize"},
		{&a.nvrtcGetPTX, "nvrtcGetPTX"}, {&a.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"},
		{&a.nvrtcGetProgramLog, "nvrtcGetProgramLog"}, {&a.nvrtcAddNameExpression, "nvrtcAddNameExpression"},
		{&a.nvrtcGetLoweredName, "nvrtcGetLoweredName"},
	}
	for _, r := range required {
		p, err := l.Sym(r.name)
		if err != nil {
			return nil, fmt.Errorf("NVRTC at %s is unusable: %v", l.File(), err)
		}
		*r.slot = p
	}
	a.nvrtcGetCUBINSize, _ = l.Sym("nvrtcGetCUBINSize")
	a.nvrtcGetCUBIN, _ = l.Sym("nvrtcGetCUBIN")
	a.nvrtcGetNumSupportedArchs, _ = l.Sym("nvrtcGetNumSupportedArchs")
	a.nvrtcGetSupportedArchs, _ = l.Sym("nvrtcGetSupportedArchs")

	var major, minor int32
	if err := a.check(a.nvrtcVersion.Call(uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor))), "nvrtcVersion"); err != nil {
		return nil, err
	}
	a.major, a.minor = int(major), int(minor)
	if a.nvrtcGetSupportedArchs.Found() && a.nvrtcGetNumSupportedArchs.Found() {
		var n int32
		if err := a.check(a.nvrtcGetNumSupportedArchs.Call(uintptr(unsafe.Pointer(&n))), "nvrtcGetNumSupportedArchs"); err != nil {
			return nil, err
		}
		if n > 0 {
			archs := make([]int32, n)
			if err := a.check(a.nvrtcGetSupportedArchs.Call(uintptr(unsafe.Pointer(&archs[0]))), "nvrtcGetSupportedArchs"); err != nil {
				return nil, err
			}
			for _, v := range archs {
				a.archs = append(a.archs, int(v))
			}
			sort.Ints(a.archs)
		}
	}
	return a, nil
}

// check turns an nvrtcResult into nil or an error naming the call.
func (a *api) check(r int32, call string) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("nvrtc: %s failed: %s", call, a.nvrtcGetErrorString.CallString(uintptr(r)))
}

// Version returns NVRTC's version, e.g. 13, 0.
func Version() (major, minor int, err error) {
	if err := Load(); err != nil {
		return 0, 0, err
	}
	return lib.major, lib.minor, nil
}

// SupportedArchs lists the real architectures NVRTC can build CUBIN for,
// as 10*major+minor (75, 80, ..., 90, ...). Before CUDA 11.2 NVRTC cannot
// say, and the list is empty.
func SupportedArchs() ([]int, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	return append([]int(nil), lib.archs...), nil
}

// LibraryPath returns the NVRTC file that Load opened.
func LibraryPath() string {
	if Load() != nil {
		return ""
	}
	return lib.lib.File()
}

// ArchList formats architectures as "sm_75 sm_80 ...".
func ArchList(archs []int) string {
	var b strings.Builder
	for i, a := range archs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "sm_%d", a)
	}
	return b.String()
}
