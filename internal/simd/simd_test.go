package simd

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Level
		ok   bool
	}{{"generic", Generic, true}, {"SSE", SSE, true}, {" avx2 ", AVX2, true}, {"AVX512", AVX512, true}, {"avx1024", Generic, false}, {"", Generic, false}} {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("Parse(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestAvailable(t *testing.T) {
	ls := Available()
	if len(ls) == 0 || ls[0] != Generic || ls[len(ls)-1] != Best {
		t.Fatalf("Available() = %v with Best %v", ls, Best)
	}
	if Selected > Best {
		t.Errorf("Selected %v above Best %v", Selected, Best)
	}
	t.Logf("this machine: %v", ls)
}

// TestEnvironment runs this test binary again with HMMGO_KERNEL set and
// checks the level it selects and what it says on stderr.
func TestEnvironment(t *testing.T) {
	if v := os.Getenv("SIMD_TEST_CHILD"); v != "" {
		os.Stdout.WriteString(Selected.String())
		return
	}
	for _, c := range []struct {
		env, want, warn string
	}{
		{"generic", "generic", ""},
		{"sse", min(SSE, Best).String(), map[bool]string{true: "", false: "cannot run"}[Best >= SSE]},
		{"bogus", Best.String(), "unknown kernel"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvironment$")
		cmd.Env = append(os.Environ(), "SIMD_TEST_CHILD=1", EnvVar+"="+c.env)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s=%s: %v", EnvVar, c.env, err)
		}
		if got := strings.TrimSuffix(string(out), "PASS\n"); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s=%s selects %q, want %q", EnvVar, c.env, got, c.want)
		}
		if (c.warn == "") != (stderr.Len() == 0) || !strings.Contains(stderr.String(), c.warn) {
			t.Errorf("%s=%s: stderr %q, want it to say %q", EnvVar, c.env, stderr.String(), c.warn)
		}
	}
}

// TestIntel checks the CPUID vendor against the kernel's /proc/cpuinfo.
func TestIntel(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || runtime.GOARCH != "amd64" {
		t.Skip("no /proc/cpuinfo of an amd64 machine to check against")
	}
	want := strings.Contains(string(b), "GenuineIntel")
	if Intel != want {
		t.Fatalf("Intel = %v; /proc/cpuinfo says GenuineIntel: %v", Intel, want)
	}
}
