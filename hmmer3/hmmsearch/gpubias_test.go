package hmmsearch

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
)

// $HMMGO_GPU_BIAS takes gpu or cpu; anything else fails before any work,
// naming the variable.
func TestGPUBiasEnvironment(t *testing.T) {
	e := defaultEngine()
	e.lookupEnv = func(k string) (string, bool) {
		if k == "HMMGO_GPU_BIAS" {
			return "fast", true
		}
		return "", false
	}
	var out, errb bytes.Buffer
	code := e.run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, []string{"m.hmm", "s.fa"})
	if code == 0 || !strings.Contains(errb.String(), `HMMGO_GPU_BIAS is "fast"`) || out.Len() != 0 {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}
