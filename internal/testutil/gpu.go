package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// GPUContext returns a context on the first GPU, or skips the test saying
// why there is none (CI and most developer machines).
func GPUContext(t testing.TB) *cuda.Context {
	t.Helper()
	if err := cuda.Load(); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	devs, err := cuda.Devices()
	if err != nil || len(devs) == 0 {
		t.Skipf("no GPU: %v", err)
	}
	ctx, err := devs[0].Context()
	if err != nil {
		t.Skipf("no GPU context: %v", err)
	}
	return ctx
}

// GPUData returns rel under $HMMGO_GPU_DATA (the data a GPU-host run
// carries, since ../shared does not travel there), else under the shared
// data set; it skips when neither has it.
func GPUData(t testing.TB, rel string) string {
	t.Helper()
	if d := os.Getenv("HMMGO_GPU_DATA"); d != "" {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return SharedData(t, rel)
}
