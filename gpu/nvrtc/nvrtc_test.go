package nvrtc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenMissingLibrary(t *testing.T) {
	_, err := open([]string{"/nonexistent/libnvrtc.so.13"})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	want := "NVRTC not found: /nonexistent/libnvrtc.so.13 does not exist; install the CUDA toolkit's NVRTC or set CUDA_HOME"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	_, err = open([]string{"libc.so.6"})
	if err == nil || !strings.Contains(err.Error(), "lacks nvrtcVersion") {
		t.Errorf("libc as NVRTC: %v", err)
	}
}

func TestCandidates(t *testing.T) {
	t.Setenv("HMMGO_LIBNVRTC", "")
	t.Setenv("CUDA_HOME", "/opt/cuda-x")
	t.Setenv("CUDA_PATH", "")
	c := candidates()
	if c[0] != "/opt/cuda-x/lib64/libnvrtc.so.13" || c[1] != "/opt/cuda-x/lib64/libnvrtc.so.12" {
		t.Errorf("CUDA_HOME not searched first: %v", c[:3])
	}
	joined := strings.Join(c, " ")
	for _, want := range []string{"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/targets/", " libnvrtc.so.12 "} {
		if !strings.Contains(joined+" ", want) {
			t.Errorf("candidates lack %s: %v", want, c)
		}
	}
	if c[len(c)-1] != "libnvrtc.so" {
		t.Errorf("last candidate %s, want the bare soname", c[len(c)-1])
	}
	t.Setenv("HMMGO_LIBNVRTC", "/x/libnvrtc.so")
	if c := candidates(); len(c) != 1 || c[0] != "/x/libnvrtc.so" {
		t.Errorf("HMMGO_LIBNVRTC ignored: %v", c)
	}
}

func TestChooseArch(t *testing.T) {
	cuda13 := []int{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}
	cases := []struct {
		opts      []string
		target    Target
		supported []int
		cubin     bool
		option    string
		wantCubin bool
		wantErr   bool
	}{
		{nil, Target{9, 0}, cuda13, true, "-arch=sm_90", true, false},
		{nil, Target{9, 0}, cuda13, false, "-arch=compute_90", false, false},
		{nil, Target{9, 9}, cuda13, true, "-arch=compute_90", false, false}, // unknown newer device: PTX JIT
		{nil, Target{13, 0}, cuda13, true, "-arch=compute_121", false, false},
		{nil, Target{7, 0}, cuda13, true, "", false, true}, // older than NVRTC supports
		{nil, Target{8, 6}, nil, true, "-arch=sm_86", true, false},
		{[]string{"-arch=sm_90a"}, Target{9, 0}, cuda13, true, "", true, false},
		{[]string{"--gpu-architecture", "compute_80"}, Target{9, 0}, cuda13, true, "", false, false},
	}
	for _, c := range cases {
		got, err := chooseArch(c.opts, c.target, c.supported, c.cubin)
		if (err != nil) != c.wantErr {
			t.Errorf("%v %v: error %v", c.opts, c.target, err)
			continue
		}
		if err == nil && (got.option != c.option || got.cubin != c.wantCubin) {
			t.Errorf("%v %v: got %+v, want option %q cubin %v", c.opts, c.target, got, c.option, c.wantCubin)
		}
	}
}

func TestCacheKey(t *testing.T) {
	base := Program{Name: "k.cu", Source: "src", Headers: map[string]string{"a.h": "A", "b.h": "B"}, NameExpressions: []string{"f<1>"}}
	opts := []string{"-DX=1", "-arch=sm_90"}
	k0 := cacheKey(base, opts, Target{9, 0}, "13.0")
	if len(k0) != 64 {
		t.Fatalf("key %q is not hex SHA-256", k0)
	}
	if cacheKey(base, opts, Target{9, 0}, "13.0") != k0 {
		t.Error("the same inputs gave different keys")
	}
	variants := map[string]string{
		"source":  cacheKey(Program{Name: "k.cu", Source: "src2", Headers: base.Headers, NameExpressions: base.NameExpressions}, opts, Target{9, 0}, "13.0"),
		"header":  cacheKey(Program{Name: "k.cu", Source: "src", Headers: map[string]string{"a.h": "A", "b.h": "C"}, NameExpressions: base.NameExpressions}, opts, Target{9, 0}, "13.0"),
		"names":   cacheKey(Program{Name: "k.cu", Source: "src", Headers: base.Headers}, opts, Target{9, 0}, "13.0"),
		"options": cacheKey(base, []string{"-DX=2", "-arch=sm_90"}, Target{9, 0}, "13.0"),
		"split":   cacheKey(base, []string{"-DX=1-arch=sm_90"}, Target{9, 0}, "13.0"),
		"target":  cacheKey(base, opts, Target{8, 0}, "13.0"),
		"nvrtc":   cacheKey(base, opts, Target{9, 0}, "13.1"),
	}
	for what, k := range variants {
		if k == k0 {
			t.Errorf("changing the %s left the key unchanged", what)
		}
	}
}

func TestCacheRoundTrip(t *testing.T) {
	c := &Cache{Dir: filepath.Join(t.TempDir(), "kernels")}
	img := &Image{Kind: "cubin", Arch: "sm_90", Data: []byte("\x7fELF cubin bytes"), NVRTC: "13.0",
		Key: strings.Repeat("ab", 32), LoweredNames: map[string]string{"f<1>": "_Z1fILi1EEvv"}, Log: "warning: x"}
	if got, why := c.get(img.Key); got != nil || why != "" {
		t.Fatalf("empty cache returned %v, %q", got, why)
	}
	if why := c.put(img); why != "" {
		t.Fatal(why)
	}
	got, why := c.get(img.Key)
	if got == nil {
		t.Fatalf("cached image not found: %s", why)
	}
	if !got.FromCache || string(got.Data) != string(img.Data) || got.Kind != "cubin" || got.Arch != "sm_90" ||
		got.LoweredNames["f<1>"] != "_Z1fILi1EEvv" || got.Log != img.Log || got.NVRTC != "13.0" {
		t.Errorf("cache returned %+v", got)
	}
	if n, size := c.Entries(); n != 1 || size != int64(len(img.Data)) {
		t.Errorf("Entries = %d, %d", n, size)
	}
	// A truncated image is a miss, with a note.
	os.WriteFile(filepath.Join(c.Dir, img.Key+".cubin"), img.Data[:4], 0o644)
	if got, why := c.get(img.Key); got != nil || !strings.Contains(why, "corrupt") {
		t.Errorf("truncated entry: %v, %q", got, why)
	}
	c.Remove(img.Key)
	if got, why := c.get(img.Key); got != nil || why != "" {
		t.Errorf("removed entry: %v, %q", got, why)
	}
}

func TestCacheUnwritable(t *testing.T) {
	// A directory below a regular file cannot be created, even by root.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	c := &Cache{Dir: filepath.Join(file, "kernels")}
	img := &Image{Kind: "ptx", Data: []byte("ptx\x00"), Key: strings.Repeat("cd", 32)}
	if why := c.put(img); !strings.HasPrefix(why, "kernel cache not written: ") {
		t.Errorf("put into an impossible directory: %q", why)
	}
	if got, _ := c.get(img.Key); got != nil {
		t.Error("impossible cache returned an image")
	}
	if c.Writable() == nil {
		t.Error("Writable reports an impossible directory writable")
	}
}

func TestDefaultCache(t *testing.T) {
	t.Setenv("HMMGO_KERNEL_CACHE", "off")
	if DefaultCache() != nil {
		t.Error("HMMGO_KERNEL_CACHE=off did not disable the cache")
	}
	t.Setenv("HMMGO_KERNEL_CACHE", "/tmp/k")
	if c := DefaultCache(); c == nil || c.Dir != "/tmp/k" {
		t.Errorf("HMMGO_KERNEL_CACHE ignored: %+v", c)
	}
	t.Setenv("HMMGO_KERNEL_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	if c := DefaultCache(); c == nil || c.Dir != "/tmp/xdg/hmmgo/kernels" {
		t.Errorf("XDG_CACHE_HOME ignored: %+v", c)
	}
}

func TestCompileErrorMessage(t *testing.T) {
	e := &CompileError{Program: "bad.cu", Arch: "sm_90", Status: "NVRTC_ERROR_COMPILATION", Log: "bad.cu(3): error: expected a \";\"\n"}
	want := "nvrtc: compiling bad.cu for sm_90 failed (NVRTC_ERROR_COMPILATION):\nbad.cu(3): error: expected a \";\""
	if e.Error() != want {
		t.Errorf("got %q\nwant %q", e.Error(), want)
	}
}
