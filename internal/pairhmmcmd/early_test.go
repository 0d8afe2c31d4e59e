package pairhmmcmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/pairhmm"
)

// TestEarlyChunksMerged: while the backend is still being set up (as a
// GPU is), reading runs ahead and the chunks read meanwhile are scored as
// one batch; the output is what a ready backend gives.
func TestEarlyChunksMerged(t *testing.T) {
	in := testutil.SharedData(t, "PairHMM/1m.in.gz") // two chunks at GPU sizes
	_, want, errs := runCmd(t, "", in)
	if want == "" {
		t.Fatal(errs)
	}
	for _, delay := range []time.Duration{0, 300 * time.Millisecond} {
		pb := &pendingBackend{done: make(chan struct{}), start: time.Now(), gpu: true}
		go func() {
			time.Sleep(delay)
			pb.backend = &countingBackend{Backend: pairhmm.NewCPU(pairhmm.CPUOptions{})}
			close(pb.done)
		}()
		var out, stderr bytes.Buffer
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &stderr}
		if err := process(env, in, "-", "lines", pb, nil); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("backend ready after %v: output differs from the CPU run's", delay)
		}
		calls := pb.backend.(*countingBackend).calls
		t.Logf("backend ready after %v: input read in %v, scored in %d batches", delay, pb.totalRead, calls)
		if delay > 0 && pb.totalRead < delay && calls != 1 {
			t.Errorf("input read before the backend was ready, yet scored in %d batches", calls)
		}
	}
}

// countingBackend counts Compute calls.
type countingBackend struct {
	pairhmm.Backend
	calls int
}

func (c *countingBackend) Compute(groups []pairhmm.Group, out [][]float64) error {
	c.calls++
	return c.Backend.Compute(groups, out)
}
