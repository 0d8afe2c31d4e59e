package fwdback

import (
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// EnvJob is one envelope of domain definition to rescore as an isolated
// domain (rescore_isolated_domain): its residues, and the length of its
// whole target, which sets the length model.
type EnvJob struct {
	Dsq       []byte // the envelope's residues, dsq[i-1:j] of its target; at least one
	TargetLen int
	Null2     bool // compute null2 by expectation (false: the trace ensemble set it)
}

// EnvResult is an envelope's rescoring: what domaindef's decode records.
type EnvResult struct {
	Score float32 // the envelope's Forward score (envsc)
	// Err is ErrRange where Forward (first) or Backward returns it: the
	// target's domain definition fails, as on the CPU.
	Err error
	// Dropped: posterior decoding overflowed (ErrRange from Decoding);
	// HMMER drops such an envelope. OASc, Trace and Null2 are then unset.
	Dropped bool
	OASc    float32
	Trace   hits.Trace // the optimal accuracy trace, residues numbered from the envelope's start
	Null2   []float32  // om.Abc.Kp null2 odds ratios, when the job asked for them
}

// EnvRescorer rescores envelopes of one model, om unihit (its length
// model is set per job), each job with the bits of RescoreEnvelopeCPU:
// CPURescorer here; a GPU's rescorer is the seam domaindef.RescoreOn and
// the staged search's EnvelopeAccelerator are built for.
type EnvRescorer interface {
	RescoreEnvelopes(om *oprofile.Profile, jobs []EnvJob) ([]EnvResult, error)
}

// RescoreEnvelopeCPU rescores one envelope on the CPU with the full
// matrices fwd and bck (any contents; they are resized): Forward,
// Backward, DecodeAlign and OATrace, as domain definition runs them.
func RescoreEnvelopeCPU(om *oprofile.Profile, job EnvJob, fwd, bck *Matrix) EnvResult {
	p := *om
	p.ReconfigRestLength(job.TargetLen)
	var r EnvResult
	if r.Score, _, r.Err = forwardBackward(job.Dsq, &p, fwd, bck, true); r.Err != nil {
		return r
	}
	var null2 []float32
	if job.Null2 {
		null2 = make([]float32, p.Abc.Kp)
	}
	oasc, err := DecodeAlign(&p, fwd, bck, null2)
	if err != nil {
		r.Dropped = true
		return r
	}
	r.OASc, r.Null2 = oasc, null2
	OATrace(&p, bck, fwd, &r.Trace)
	return r
}

// CPURescorer is the EnvRescorer of the calling goroutine: each job by
// RescoreEnvelopeCPU.
type CPURescorer struct{}

// RescoreEnvelopes implements EnvRescorer.
func (CPURescorer) RescoreEnvelopes(om *oprofile.Profile, jobs []EnvJob) ([]EnvResult, error) {
	out := make([]EnvResult, len(jobs))
	fwd, bck := NewMatrix(), NewMatrix()
	for i, j := range jobs {
		out[i] = RescoreEnvelopeCPU(om, j, fwd, bck)
	}
	return out, nil
}
