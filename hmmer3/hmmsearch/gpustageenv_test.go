package hmmsearch

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
)

// $HMMGO_GPU_BIAS takes gpu or cpu, $HMMGO_GPU_DOMAINS also a fraction,
// $HMMGO_GPU_RANK on or off; anything else fails before any work, naming
// the variable.
func TestGPUStageEnvironment(t *testing.T) {
	for _, name := range []string{"HMMGO_GPU_BIAS", "HMMGO_GPU_DOMAINS", "HMMGO_GPU_RANK"} {
		e := defaultEngine()
		e.lookupEnv = func(k string) (string, bool) {
			if k == name {
				return "fast", true
			}
			return "", false
		}
		var out, errb bytes.Buffer
		code := e.run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, []string{"m.hmm", "s.fa"})
		if code == 0 || !strings.Contains(errb.String(), name+` is "fast"`) || out.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", name, code, errb.String(), out.String())
		}
	}
}
