//go:build linux

package dl

import (
	"runtime"

	"github.com/ebitengine/purego"
)

// Supported reports whether this platform can load the CUDA libraries.
const Supported = true

func dlopen(path string) (uintptr, error) {
	// dlerror's message is per OS thread: without the lock the goroutine
	// can move between dlopen and dlerror and the reason comes back empty.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// RTLD_GLOBAL: libnvrtc loads its builtins library, which expects to
	// resolve symbols from libnvrtc itself.
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }

//go:uintptrescapes
func callC(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
