package hmmsearch

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// HMMER2 query files need a calibration hmmgo does not do: the command
// must say so and fail before printing anything, not report no hits.
func TestHMMER2QueryRefused(t *testing.T) {
	root := testutil.RepoRoot(t)
	var out, errb bytes.Buffer
	code := Run(cli.Env{Stdout: &out, Stderr: &errb}, []string{root + "/hmmer3/hmm/testdata/globins4.hmm2", root + "/testdata/globins45.fa"})
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "HMMER2 format") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
