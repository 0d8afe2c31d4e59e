package pairhmmcmd

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestArithFlag: --arith fused prints values within 1e-4 of the default
// arithmetic's (the pairhmm package tests hold both to the reference);
// an unknown arithmetic is a usage error.
func TestArithFlag(t *testing.T) {
	in := testutil.SharedData(t, "PairHMM/10s.in")
	code, gkl, errs := runCmd(t, "", in)
	if code != 0 {
		t.Fatalf("default: exit %d: %s", code, errs)
	}
	code, fused, errs := runCmd(t, "", "--arith", "fused", "--verbose", in)
	if code != 0 || !strings.Contains(errs, "fused arithmetic") {
		t.Fatalf("--arith fused: exit %d: %s", code, errs)
	}
	a, b := numbers(t, gkl), numbers(t, fused)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d values, default %d", len(b), len(a))
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-4 {
			t.Errorf("pair %d: fused %v, gkl %v", i+1, b[i], a[i])
		}
	}
	if code, _, errs := runCmd(t, "", "--arith", "fma", in); code != 2 || !strings.Contains(errs, "unknown arithmetic") {
		t.Errorf("--arith fma: exit %d, %q", code, errs)
	}
}

// TestGPUFusedCommandMatchesCPU: with --arith fused the GPU's output is the
// CPU's, byte for byte.
func TestGPUFusedCommandMatchesCPU(t *testing.T) {
	gpuOrSkip(t)
	dir := t.TempDir()
	for _, set := range []string{"PairHMM/tiny.in", "PairHMM/10s.in", "PairHMM/1m.in.gz"} {
		in := testutil.SharedData(t, set)
		cpuOut, gpuOut := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "gpu.out")
		if code, _, errs := runRaw(t, "", "--nogpu", "--arith", "fused", in, "-o", cpuOut); code != 0 {
			t.Fatalf("%s --nogpu: exit %d: %s", set, code, errs)
		}
		if code, _, errs := runRaw(t, "", "--gpu", "--arith", "fused", "--verbose", in, "-o", gpuOut); code != 0 || !strings.Contains(errs, "+fused") {
			t.Fatalf("%s --gpu: exit %d: %s", set, code, errs)
		}
		want, _ := os.ReadFile(cpuOut)
		got, _ := os.ReadFile(gpuOut)
		if string(got) != string(want) || len(want) == 0 {
			t.Errorf("%s: GPU output (%d bytes) differs from the CPU's (%d bytes)", set, len(got), len(want))
		}
	}
}
