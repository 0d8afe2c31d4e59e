//go:build linux

package dl

import "github.com/ebitengine/purego"

// Supported reports whether this platform can load the CUDA libraries.
const Supported = true

func dlopen(path string) (uintptr, error) {
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
