// Package dl opens the NVIDIA shared libraries (libcuda, libnvrtc) at run
// time and calls their C functions without cgo, so that hmmgo builds with
// CGO_ENABLED=0 and still uses a GPU where the driver is installed.
//
// Only Linux is supported: elsewhere Open reports that CUDA is unavailable.
package dl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"
)

// ErrNotFound marks an Open failure where no candidate file existed: the
// library is simply not installed, as opposed to present but broken.
var ErrNotFound = errors.New("library not found")

// Lib is an opened shared library.
type Lib struct {
	Path   string // the candidate that opened
	handle uintptr
}

// Attempt records why one candidate did not open, for error messages.
type Attempt struct {
	Path    string
	Missing bool // the file does not exist (or is not on the loader's path)
	Err     string
}

// OpenError lists every candidate tried.
type OpenError struct {
	Attempts []Attempt
}

func (e *OpenError) Error() string {
	var parts []string
	for _, a := range e.Attempts {
		parts = append(parts, a.Err)
	}
	return strings.Join(parts, "; ")
}

// Unwrap reports ErrNotFound when every candidate was missing.
func (e *OpenError) Unwrap() error {
	for _, a := range e.Attempts {
		if !a.Missing {
			return nil
		}
	}
	return ErrNotFound
}

// Open tries each candidate (a bare soname searched on the loader's usual
// path, or an absolute file) and returns the first that loads.
func Open(candidates []string) (*Lib, error) {
	oe := &OpenError{}
	for _, c := range candidates {
		t0 := time.Now()
		h, err := dlopen(c)
		if timing.Load() {
			statFor("dlopen " + filepath.Base(c)).add(time.Since(t0))
		}
		if err == nil {
			return &Lib{Path: c, handle: h}, nil
		}
		msg := err.Error()
		if msg == "" {
			msg = c + ": the loader gave no reason"
		}
		oe.Attempts = append(oe.Attempts, Attempt{
			Path:    c,
			Missing: missingFile(c, msg),
			Err:     msg,
		})
	}
	if len(oe.Attempts) == 0 {
		oe.Attempts = append(oe.Attempts, Attempt{Missing: true, Err: "no candidate paths"})
	}
	return nil, oe
}

// missingFile tells "not installed" from "installed but broken": glibc's
// wording for an absent file, or, for a path, the file system's answer.
func missingFile(path, msg string) bool {
	if strings.Contains(msg, "No such file or directory") {
		return true
	}
	if filepath.IsAbs(path) {
		_, err := os.Stat(path)
		return errors.Is(err, os.ErrNotExist)
	}
	return false
}

// Proc is one C function of a library.
type Proc struct {
	Name string
	Addr uintptr
	stat *callStat // where Call adds its time (EnableTimes)
}

// Found reports whether the symbol resolved.
func (p *Proc) Found() bool { return p.Addr != 0 }

// Sym resolves the first of names that the library exports.
func (l *Lib) Sym(names ...string) (Proc, error) {
	for _, n := range names {
		if a, err := dlsym(l.handle, n); err == nil && a != 0 {
			return Proc{Name: n, Addr: a, stat: statFor(n)}, nil
		}
	}
	return Proc{Name: names[0]}, fmt.Errorf("%s lacks %s", l.Path, strings.Join(names, " and "))
}

// Call invokes the function with integer or pointer arguments and returns
// its integer result (CUresult and nvrtcResult are C ints).
//
// Pointer arguments must be written as uintptr(unsafe.Pointer(p)) in the
// call itself: the directive below then keeps the pointed-to object alive
// and on the heap until the C function returns, as for syscall.Syscall.
//
//go:uintptrescapes
func (p *Proc) Call(args ...uintptr) int32 {
	if p.Addr == 0 {
		panic("dl: call of unresolved symbol " + p.Name)
	}
	if timing.Load() && p.stat != nil {
		t0 := time.Now()
		r := callC(p.Addr, args...)
		p.stat.add(time.Since(t0))
		return int32(r)
	}
	return int32(callC(p.Addr, args...))
}

// CallString invokes a function that returns a C string (const char *)
// and copies the string.
//
//go:uintptrescapes
func (p *Proc) CallString(args ...uintptr) string {
	if p.Addr == 0 {
		panic("dl: call of unresolved symbol " + p.Name)
	}
	r := callC(p.Addr, args...)
	// Reinterpret the returned address as a pointer; it points into the
	// library's static data, not the Go heap.
	return GoString(*(**byte)(unsafe.Pointer(&r)))
}

// CString returns a NUL-terminated copy of s for C.
func CString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// GoString copies a NUL-terminated C string.
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// TrimNUL returns the C string that a C function wrote into the Go buffer b.
func TrimNUL(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// File returns the file the library was actually loaded from, read from
// the process's memory map, so that reports show the real path rather
// than the soname that was asked for. It falls back to Path.
func (l *Lib) File() string {
	base := filepath.Base(l.Path)
	if i := strings.Index(base, ".so"); i >= 0 {
		base = base[:i+3] // "libcuda.so.1" matches "libcuda.so.580.95.05"
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return l.Path
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		if p := f[len(f)-1]; strings.HasPrefix(filepath.Base(p), base) {
			return p
		}
	}
	return l.Path
}
