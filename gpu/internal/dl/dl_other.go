//go:build !linux

package dl

import (
	"errors"
	"runtime"
)

// Supported reports whether this platform can load the CUDA libraries.
const Supported = false

var errPlatform = errors.New("CUDA libraries are loaded on Linux only; this is " + runtime.GOOS + " (No such file or directory)")

func dlopen(path string) (uintptr, error)           { return 0, errPlatform }
func dlsym(h uintptr, name string) (uintptr, error) { return 0, errPlatform }
func callC(fn uintptr, args ...uintptr) uintptr     { panic("dl: no C calls on " + runtime.GOOS) }
