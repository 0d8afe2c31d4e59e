// Package cudacpu runs CUDA kernel sources on the CPU in tests: emu.h
// (threads as coroutines), dpx.h (DPX intrinsics, __byte_perm) and
// driver.h (a driver's input) stand in for the device, and each kernel
// package's testdata/cudacpu/driver.cc feeds a kernel through them. This
// Go side finds the compiler, builds each kernel shape once per test
// binary, and writes a driver's input and runs it (input.go), for the
// packages whose tests do that.
package cudacpu

import (
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The headers are embedded so that a change to them rebuilds the test
// binaries that compile with them, and go test's cache sees it.
//
//go:embed emu.h dpx.h driver.h
var headers embed.FS

// Compiler returns a C++ compiler for the CPU shim, or skips t: kernel
// names the source in the skip message.
func Compiler(t testing.TB, kernel string) string {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the CUDA emulator switches x86-64 stacks; skipped on " + runtime.GOARCH)
	}
	for _, c := range []string{"c++", "g++", "clang++"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	t.Skip("no C++ compiler: " + kernel + " not run on the CPU")
	return ""
}

// ReadFiles adds the contents of each path to files under its base
// name. Sources go through the test process, not read by the compiler
// in place, so that go test's cache sees them change.
func ReadFiles(files map[string]string, paths ...string) error {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.Base(p)] = string(b)
	}
	return nil
}

// Compile writes files (name to contents) and the shim's headers into
// dir and compiles dir/driver.cc with cc and flags into dir/name.
func Compile(cc, dir, name string, files map[string]string, flags ...string) (string, error) {
	for _, h := range []string{"emu.h", "dpx.h", "driver.h"} {
		b, err := headers.ReadFile(h)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, h), b, 0o644); err != nil {
			return "", err
		}
	}
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	exe := filepath.Join(dir, name)
	args := append([]string{"-std=c++17"}, flags...)
	args = append(args, "-I", dir, "-o", exe, filepath.Join(dir, "driver.cc"))
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	return exe, nil
}

// Builds holds a kernel's CPU executables, one per key (a kernel
// shape), each built once per test binary; builds of different keys run
// at once (parallel tests). They live in one temporary directory, which
// the package's TestMain removes with Remove.
type Builds[K comparable] struct {
	// Name names the temporary directory.
	Name string

	mu  sync.Mutex
	dir string
	m   map[K]*build
}

type build struct {
	once sync.Once
	exe  string
	err  error
}

// Exe returns key's executable, made the first time by compile in a new
// directory of its own.
func (b *Builds[K]) Exe(t testing.TB, key K, compile func(dir string) (string, error)) string {
	t.Helper()
	b.mu.Lock()
	if b.m == nil {
		d, err := os.MkdirTemp("", b.Name)
		if err != nil {
			b.mu.Unlock()
			t.Fatal(err)
		}
		b.dir, b.m = d, map[K]*build{}
	}
	e := b.m[key]
	if e == nil {
		e = &build{}
		b.m[key] = e
	}
	dir := b.dir
	b.mu.Unlock()
	e.once.Do(func() {
		d, err := os.MkdirTemp(dir, "shape")
		if err != nil {
			e.err = err
			return
		}
		e.exe, e.err = compile(d)
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.exe
}

// Remove deletes the executables.
func (b *Builds[K]) Remove() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
