package dl

import (
	"errors"
	"strings"
	"testing"
	"unsafe"
)

func TestOpenReportsEveryCandidate(t *testing.T) {
	_, err := Open([]string{"/nonexistent/liba.so", "libnonexistent-hmmgo.so.1"})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	for _, want := range []string{"/nonexistent/liba.so", "libnonexistent-hmmgo.so.1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestCallIntoLibc(t *testing.T) {
	if !Supported {
		t.Skip("no dynamic loading on this platform")
	}
	lib, err := Open([]string{"libc.so.6"})
	if err != nil {
		t.Fatal(err)
	}
	if f := lib.File(); !strings.Contains(f, "libc") {
		t.Errorf("File() = %q", f)
	}
	strlen, err := lib.Sym("no_such_function_hmmgo", "strlen")
	if err != nil || strlen.Name != "strlen" {
		t.Fatalf("Sym fell back to %q: %v", strlen.Name, err)
	}
	if n := strlen.Call(uintptr(unsafe.Pointer(CString("hello, GPU")))); n != 10 {
		t.Errorf("strlen = %d", n)
	}
	getenv, _ := lib.Sym("getenv")
	if s := getenv.CallString(uintptr(unsafe.Pointer(CString("PATH")))); s == "" {
		t.Error("getenv(PATH) returned nothing")
	}
	if _, err := lib.Sym("no_such_function_hmmgo"); err == nil || !strings.Contains(err.Error(), "lacks no_such_function_hmmgo") {
		t.Errorf("missing symbol: %v", err)
	}
}

func TestStrings(t *testing.T) {
	if GoString(CString("abc")) != "abc" || GoString(nil) != "" {
		t.Error("CString/GoString round trip")
	}
	if TrimNUL([]byte("ab\x00cd")) != "ab" || TrimNUL([]byte("ab")) != "ab" {
		t.Error("TrimNUL")
	}
}

// The loader's message can be empty (dlerror read on another thread); an
// absent file must still count as "not installed", a present one as broken.
func TestMissingFileWithoutMessage(t *testing.T) {
	if !missingFile("/nonexistent/libcuda.so.1", "") {
		t.Error("absent absolute path not reported missing")
	}
	if missingFile("/proc/self/status", "") {
		t.Error("present file reported missing")
	}
	if missingFile("libcuda.so.1", "") {
		t.Error("a soname with no message cannot be known missing")
	}
}
