package pairhmmcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// Tests named TestGPU* need a GPU and skip without one; bench/pairhmm_gpu.sh
// runs them on the GPU host. TestNoGPU* check the policy where there is none.

func TestNoGPUPolicy(t *testing.T) {
	if _, err := devices.Usable(); err == nil {
		t.Skip("a GPU is usable here; TestGPUCommandMatchesCPU covers it")
	}
	in := filepath.Join(t.TempDir(), "in.txt")
	os.WriteFile(in, []byte("1 1\nACGT IIII IIII IIII ++++\nACGT\n"), 0o644)
	// --gpu without a GPU: a clear one-line error, no output.
	out := filepath.Join(t.TempDir(), "out.txt")
	code, _, errs := runRaw(t, "", "--gpu", in, "-o", out)
	if code != 1 || !strings.Contains(errs, "--gpu: no usable GPU") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--gpu without a GPU: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--gpu without a GPU left an output file")
	}
	if code, _, errs := runRaw(t, "", "--gpu", "all", in); code != 1 || !strings.Contains(errs, "--gpu all: no usable GPU") {
		t.Errorf("--gpu all without a GPU: exit %d, %q", code, errs)
	}
	// Contradictory flags are a usage error.
	if code, _, errs := runRaw(t, "", "--gpu", "--nogpu", in); code != 2 || !strings.Contains(errs, "contradict") {
		t.Errorf("--gpu --nogpu: exit %d, %q", code, errs)
	}
	// No flag: the CPU, silently when no driver is installed.
	code, stdout, errs := runRaw(t, "", in)
	if code != 0 || len(numbers(t, stdout)) != 1 {
		t.Errorf("auto without a GPU: exit %d, %q, %q", code, stdout, errs)
	}
	if err := cuda.Load(); errors.Is(err, cuda.ErrNoDriver) && errs != "" {
		t.Errorf("auto without a driver printed %q", errs)
	}
	// --verbose names the backend.
	if code, _, errs := runRaw(t, "", "--nogpu", "--verbose", in); code != 0 || !strings.Contains(errs, "cpu/") {
		t.Errorf("--verbose: exit %d, %q", code, errs)
	}
}

func gpuOrSkip(t *testing.T) {
	t.Helper()
	if _, err := devices.Usable(); err != nil {
		t.Skipf("no usable GPU: %v", err)
	}
}

// TestGPUCommandMatchesCPU: the command's output on the GPU is the CPU's,
// byte for byte, in both formats, with the GPU chosen automatically, by
// --gpu and by --gpu all.
func TestGPUCommandMatchesCPU(t *testing.T) {
	gpuOrSkip(t)
	dir := t.TempDir()
	for _, set := range []string{"PairHMM/tiny.in", "PairHMM/10s.in", "PairHMM/1m.in.gz"} {
		in := testutil.SharedData(t, set)
		for _, format := range []string{"lines", "matrix"} {
			cpuOut := filepath.Join(dir, "cpu.out")
			if code, _, errs := runRaw(t, "", "--nogpu", "--format", format, in, "-o", cpuOut); code != 0 {
				t.Fatalf("%s --nogpu: exit %d: %s", set, code, errs)
			}
			want, _ := os.ReadFile(cpuOut)
			for _, flags := range [][]string{{}, {"--gpu"}, {"--gpu", "all"}, {"--gpu", "0", "--verbose"}} {
				gpuOut := filepath.Join(dir, "gpu.out")
				args := append(append([]string{}, flags...), "--format", format, in, "-o", gpuOut)
				code, _, errs := runRaw(t, "", args...)
				if code != 0 {
					t.Fatalf("%s %v: exit %d: %s", set, flags, code, errs)
				}
				if len(flags) == 0 && !strings.Contains(errs, "using GPU") {
					t.Errorf("%s: automatic GPU use not announced: %q", set, errs)
				}
				got, _ := os.ReadFile(gpuOut)
				if string(got) != string(want) {
					t.Errorf("%s %s %v: GPU output differs from the CPU's", set, format, flags)
				}
				if len(flags) > 2 {
					t.Logf("%s: %s", set, strings.TrimSpace(errs))
				}
			}
		}
	}
}
