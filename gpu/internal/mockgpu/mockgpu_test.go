package mockgpu

import (
	"os"
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	libs := Build(t)
	for _, p := range []string{libs.CUDA, libs.NVRTC} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	env := strings.Join(libs.Env("/tmp/c"), " ")
	for _, want := range []string{"HMMGO_GPU_MOCK=1", "HMMGO_LIBCUDA=" + libs.CUDA, "HMMGO_LIBNVRTC=" + libs.NVRTC, "HMMGO_KERNEL_CACHE=/tmp/c"} {
		if !strings.Contains(env, want) {
			t.Errorf("Env lacks %s", want)
		}
	}
}
