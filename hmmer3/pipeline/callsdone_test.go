package pipeline_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// callLog is an accelerator that logs its calls in order, CallsDone
// included.
type callLog struct {
	pipeline.CPUAccelerator
	mu    sync.Mutex
	calls []string
	share *pipeline.EnvelopeShare // nil: not an envelope accelerator's
}

func (c *callLog) log(name string) {
	c.mu.Lock()
	c.calls = append(c.calls, name)
	c.mu.Unlock()
}

func (c *callLog) MSV(om *oprofile.Profile) ([]float32, error) {
	c.log("MSV")
	return c.CPUAccelerator.MSV(om)
}

func (c *callLog) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	c.log("Viterbi")
	return c.CPUAccelerator.Viterbi(om, want)
}

func (c *callLog) Forward(om *oprofile.Profile, want []bool) (pipeline.ForwardResult, error) {
	c.log("Forward")
	return c.CPUAccelerator.Forward(om, want)
}

func (c *callLog) Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error) {
	c.log("Parsers")
	return c.CPUAccelerator.Parsers(om, want)
}

func (c *callLog) Bias(*profile.Background, []bool) ([]float32, error) {
	c.log("Bias")
	return nil, nil
}

func (c *callLog) CallsDone() { c.log("CallsDone") }

type envelopeLog struct{ *callLog }

func (e envelopeLog) EnvelopeShare() *pipeline.EnvelopeShare { return e.share }

func (e envelopeLog) RescoreEnvelopes(om *oprofile.Profile, jobs []fwdback.EnvJob) ([]fwdback.EnvResult, error) {
	e.log("RescoreEnvelopes")
	return fwdback.CPURescorer{}.RescoreEnvelopes(om, jobs)
}

// TestCallsDoneAfterTheLastCall: SearchStaged tells a CallsDone
// accelerator once, after its last call: after the parsers, or after the
// envelopes where the accelerator rescores them.
func TestCallsDoneAfterTheLastCall(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	h := testmodels.ReadModel(t, filepath.Join(dir, "models", "globins4.hmm.gz"))
	seqs := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), h.Alph)
	cfg := pipeline.DefaultConfig()
	cfg.CPUs = 2
	m, err := pipeline.NewModel(h, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain := &callLog{CPUAccelerator: pipeline.CPUAccelerator{Seqs: seqs}}
	withEnvelopes := &callLog{CPUAccelerator: pipeline.CPUAccelerator{Seqs: seqs}, share: pipeline.NewEnvelopeShare(0)}
	for _, c := range []struct {
		log  *callLog
		acc  pipeline.Accelerator
		want string
	}{
		{plain, plain, "MSV Bias Viterbi Forward Parsers CallsDone"},
		{withEnvelopes, envelopeLog{withEnvelopes}, "MSV Bias Viterbi Forward Parsers RescoreEnvelopes CallsDone"},
	} {
		list, _, err := pipeline.SearchStaged(m, seqs, nil, &cfg, c.acc)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			t.Fatal("globins4 finds nothing in prot.fa: no domains to rescore")
		}
		var calls []string
		for i, name := range c.log.calls {
			if i == 0 || name != calls[len(calls)-1] { // one name for a run of envelope calls
				calls = append(calls, name)
			}
		}
		if got := strings.Join(calls, " "); got != c.want {
			t.Errorf("calls %q, want %q", got, c.want)
		}
	}
}
