package cuda

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The loader's messages are what a user sees on a machine without a GPU,
// so they are tested here, where there is none.

func TestOpenMissingLibrary(t *testing.T) {
	_, err := openDriver([]string{"/nonexistent/libcuda.so.1"})
	if err == nil {
		t.Fatal("opening a missing library succeeded")
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Errorf("error %q does not match ErrNoDriver", err)
	}
	want := "/nonexistent/libcuda.so.1 not found: no NVIDIA driver on this machine"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestOpenSeveralMissing(t *testing.T) {
	_, err := openDriver([]string{"libnonexistent-hmmgo.so.1", "/nonexistent/a/libcuda.so.1", "/nonexistent/b/libcuda.so.1"})
	if err == nil || !errors.Is(err, ErrNoDriver) {
		t.Fatalf("got %v, want ErrNoDriver", err)
	}
	want := "libcuda.so.1 not found: no NVIDIA driver on this machine (searched the loader's path and /nonexistent/a, /nonexistent/b)"
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
}

func TestOpenLibraryThatIsNotADriver(t *testing.T) {
	// libc is on every Linux machine and exports none of the driver API.
	_, err := openDriver([]string{"libc.so.6"})
	if err == nil {
		t.Fatal("libc accepted as a CUDA driver")
	}
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "is not an NVIDIA driver library: it lacks cuInit") {
		t.Errorf("error %q", err)
	}
}

func TestLoadExplainsItself(t *testing.T) {
	err := Load()
	if err == nil {
		t.Logf("driver %s loaded from %s", must(DriverVersion()), LibraryPath())
		return
	}
	classes := []error{ErrNoDriver, ErrNoDevice, ErrDriverTooOld, ErrDriverBroken}
	matched := false
	for _, c := range classes {
		matched = matched || errors.Is(err, c)
	}
	if !matched || strings.Contains(err.Error(), "\n") || len(err.Error()) < 20 {
		t.Errorf("Load error %q is not one classified sentence", err)
	}
	if Load() != err {
		t.Error("a second Load returned a different error")
	}
	if _, err2 := Devices(); err2 != err {
		t.Errorf("Devices returned %v, want Load's error", err2)
	}
	t.Logf("no GPU here, as expected: %v", err)
}

func must(s string, err error) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func TestErrorMessages(t *testing.T) {
	err := result(int32(ErrorOutOfMemory), "cuMemAlloc(%d bytes on GPU %d)", 1<<40, 0)
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("result returned %T", err)
	}
	for _, want := range []string{"cuda: cuMemAlloc(1099511627776 bytes on GPU 0) failed: ", "(CUDA_ERROR_OUT_OF_MEMORY)", "nvidia-smi"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if !errors.Is(err, ErrorOutOfMemory) || errors.Is(err, ErrorInvalidValue) {
		t.Error("errors.Is does not compare result codes")
	}
	if result(0, "cuInit") != nil {
		t.Error("success turned into an error")
	}
	if got := Result(12345).Error(); got != "CUresult 12345" {
		t.Errorf("unknown code reads %q", got)
	}
}

// IsFault: the codes of a kernel's fault, wrapped or not, and nothing
// else.
func TestIsFault(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{result(int32(ErrorLaunchFailed), "cuCtxSynchronize"), true},
		{fmt.Errorf("GPU 1: %w", result(int32(ErrorIllegalAddress), "cuMemcpy")), true},
		{result(715, "cuStreamSynchronize"), true},
		{result(int32(ErrorOutOfMemory), "cuMemAlloc"), false},
		{result(int32(ErrorInvalidValue), "cuMemAlloc"), false},
		{ErrorLaunchFailed, false}, // a bare code, not a failed call
		{errors.New("unspecified launch failure"), false},
		{nil, false},
	} {
		if got := IsFault(c.err); got != c.want {
			t.Errorf("IsFault(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestDim3(t *testing.T) {
	if got := (Dim3{X: 5}).String(); got != "5x1x1" {
		t.Errorf("Dim3{X:5} = %s", got)
	}
	if got := (Dim3{2, 3, 4}).String(); got != "2x3x4" {
		t.Errorf("Dim3{2,3,4} = %s", got)
	}
}

func TestArgsLayout(t *testing.T) {
	var a Args
	a.Ptr(0x1000).Int32(-2).Uint32(3).Int64(-4).Float32(1.5).Float64(-2.5).Uint64(7)
	if a.Len() != 7 {
		t.Fatalf("Len = %d", a.Len())
	}
	want := []uint64{0x1000, 0xfffffffe, 3, 0xfffffffffffffffc, 0x3fc00000, 0xc004000000000000, 7}
	for i, w := range want {
		if a.vals[i] != w {
			t.Errorf("slot %d (%s) = %#x, want %#x", i, a.kinds[i], a.vals[i], w)
		}
	}
	a.Reset()
	if a.Len() != 0 {
		t.Error("Reset kept arguments")
	}
}

func TestByteViews(t *testing.T) {
	f := []float32{1, 2, 3}
	b := Bytes(f)
	if len(b) != 12 || b[2] != 0x80 || b[3] != 0x3f {
		t.Fatalf("Bytes(float32{1,2,3}) = % x", b)
	}
	back := View[float32](b)
	if len(back) != 3 || back[2] != 3 {
		t.Errorf("View = %v", back)
	}
	if View[uint64](b[:7]) != nil || Bytes[int32](nil) != nil {
		t.Error("short or empty views are not nil")
	}
	if len(View[uint64](b)) != 1 {
		t.Error("View does not drop a partial element")
	}
}
