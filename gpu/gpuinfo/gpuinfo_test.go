package gpuinfo

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/gpu/internal/mockgpu"
	"github.com/hmmgo/hmmgo/internal/cli"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(cli.Env{Stdout: &o, Stderr: &e}, args)
	return code, o.String(), e.String()
}

// TestInfo adapts to the machine: without a usable GPU the report says
// why and --require fails; with one (or the mock driver) it lists it and
// the checks pass.
func TestInfo(t *testing.T) {
	_, usableErr := devices.Usable()
	code, out, errOut := runCmd()
	t.Logf("gpuinfo:\n%s%s", out, errOut)
	if code != 0 {
		t.Fatalf("gpuinfo exited %d: %s", code, errOut)
	}
	for _, want := range []string{"CUDA driver:", "NVRTC:", "Kernel cache:", "Commands use:"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if usableErr != nil {
		if !strings.Contains(out, "Commands use:  the CPU (no usable GPU; see above)") {
			t.Errorf("report does not say why the CPU is used (%v)", usableErr)
		}
		code, _, errOut = runCmd("--require")
		if code != 1 || !strings.HasPrefix(errOut, "hmmgo gpuinfo: no usable GPU: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--require without a GPU: exit %d, stderr %q", code, errOut)
		}
		return
	}
	if !strings.Contains(out, "GPU 0: ") || !strings.Contains(out, "Commands use:  using GPU 0") {
		t.Errorf("GPU not listed or not chosen:\n%s", out)
	}
	if mockgpu.InChild() && !strings.Contains(out, "GPU 1: Mock GPU sm_80") {
		t.Errorf("second mock device missing:\n%s", out)
	}
	code, out, errOut = runCmd("--require", "--check", "--bench", "--bench-mib", "64", "--gpu", "all")
	t.Logf("gpuinfo --check --bench:\n%s%s", out, errOut)
	if code != 0 || !strings.Contains(out, "vector add of 4M floats ok") || !strings.Contains(out, "DPX 6 intrinsics") || !strings.Contains(out, "GB/s") {
		t.Errorf("checks: exit %d\n%s%s", code, out, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"--gpu", "--nogpu"}, {"--gpu=x"}, {"--bench-mib", "0"}, {"--no-such-flag"}} {
		code, _, errOut := runCmd(args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestNoGPUFlag(t *testing.T) {
	code, out, _ := runCmd("--nogpu")
	if code != 0 || !strings.Contains(out, "Commands use:  the CPU (asked for)") {
		t.Errorf("--nogpu: exit %d\n%s", code, out)
	}
	code, _, errOut := runCmd("--nogpu", "--require")
	if code != 1 || !strings.Contains(errOut, "turned off with --nogpu") {
		t.Errorf("--nogpu --require: exit %d, %q", code, errOut)
	}
}

func TestMock(t *testing.T) {
	out := mockgpu.RunTests(t, "^TestInfo$")
	if !strings.Contains(out, "Mock GPU sm_90") {
		t.Errorf("mock devices not reported:\n%s", out)
	}
}
