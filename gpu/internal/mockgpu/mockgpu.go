// Package mockgpu builds stand-ins for libcuda and libnvrtc (C sources in
// testdata/, compiled with the machine's C compiler) and re-runs a test
// binary's GPU tests against them, so that the bindings are exercised end
// to end on machines without a GPU, CI included.
//
// The parent test calls RunTests; the child process sees InChild() true
// and its GPU tests find the mock driver through HMMGO_LIBCUDA and
// HMMGO_LIBNVRTC.
package mockgpu

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

//go:embed testdata/mockcuda.c
var cudaSource string

//go:embed testdata/mocknvrtc.c
var nvrtcSource string

// Libs are the compiled mock libraries.
type Libs struct{ CUDA, NVRTC string }

// EnvChild marks a child process running against the mocks.
const EnvChild = "HMMGO_GPU_MOCK"

// InChild reports whether this process runs against the mock libraries.
func InChild() bool { return os.Getenv(EnvChild) == "1" }

// Build compiles both mock libraries into a temporary directory, skipping
// the test when no C compiler is installed.
func Build(t testing.TB) Libs {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) to build the mock CUDA driver; mock-driver tests skipped", cc)
	}
	dir := t.TempDir()
	build := func(name, src string) string {
		c := filepath.Join(dir, name+".c")
		so := filepath.Join(dir, name+".so")
		if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", so, c).CombinedOutput()
		if err != nil {
			t.Fatalf("building the mock %s: %v\n%s", name, err, out)
		}
		return so
	}
	return Libs{CUDA: build("mockcuda", cudaSource), NVRTC: build("mocknvrtc", nvrtcSource)}
}

// Env returns the environment that points a child at the mocks.
func (l Libs) Env(cacheDir string) []string {
	return []string{EnvChild + "=1", "HMMGO_LIBCUDA=" + l.CUDA, "HMMGO_LIBNVRTC=" + l.NVRTC, "HMMGO_KERNEL_CACHE=" + cacheDir}
}

// SkipMarker is the phrase a test's skip message must contain for the
// parent to accept that it skipped under the mock.
const SkipMarker = "not under the mock driver"

var resultLine = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+)`)

// RunTests re-executes the current test binary with the tests matching
// pattern, against the mocks plus any extra environment, and fails t
// unless they all ran and passed (skips are allowed only with SkipMarker).
// It returns the child's output.
func RunTests(t *testing.T, pattern string, extraEnv ...string) string {
	t.Helper()
	if InChild() {
		t.Skip("already running against the mock driver")
	}
	libs := Build(t)
	cmd := exec.Command(os.Args[0], "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), libs.Env(t.TempDir())...), extraEnv...)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("tests %s against the mock driver failed: %v\n%s", pattern, err, text)
	}
	ran := 0
	for _, m := range resultLine.FindAllStringSubmatchIndex(text, -1) {
		status, name := text[m[2]:m[3]], text[m[4]:m[5]]
		ran++
		if status == "SKIP" {
			// go test -v prints the skip reason between the test's RUN line
			// and its SKIP line.
			body := text[:m[0]]
			if i := strings.LastIndex(body, "=== RUN   "+name+"\n"); i >= 0 {
				body = body[i:]
			}
			if !strings.Contains(body, SkipMarker) {
				t.Errorf("%s skipped against the mock driver:\n%s", name, body)
			}
		}
	}
	if ran == 0 {
		t.Fatalf("no test matching %s ran against the mock driver:\n%s", pattern, text)
	}
	return text
}
