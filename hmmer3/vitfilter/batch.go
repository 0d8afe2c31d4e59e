package vitfilter

import (
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// Job is one target of ScoreBatch: its residues and the special-state
// scores of its length configuration (the profile's XW as
// oprofile.Profile.ReconfigLength(len(Dsq)) leaves it).
type Job struct {
	Dsq []byte
	XW  [4][2]int16
}

// ScoreBatch sets out[i] to the Viterbi filter score of jobs[i]: what
// Score returns for jobs[i].Dsq with om.XW set to jobs[i].XW. om itself
// is not changed. On AVX2 and small models it scores two targets at once
// (see vitPair in internal/avogen/vit), which is faster than one by one
// because a small model's rows are too short to hide each row's serial
// dependencies.
func ScoreBatch(om *oprofile.VitProfile, jobs []Job, out []float32) {
	scoreBatch(level, om, jobs, out)
}

// pairMaxM is the largest model the paired kernel takes; above it the
// one-target AVX2 kernel's 16 lanes win (measured: see docs/cpu-kernels.md).
// Tests raise it to run every model through the paired kernel.
var pairMaxM = 600

func scoreBatch(l simd.Level, om *oprofile.VitProfile, jobs []Job, out []float32) {
	out = out[:len(jobs)]
	if l >= simd.AVX2 && len(jobs) >= 2 && om.M <= pairMaxM && pairScores(om, jobs, out) {
		return
	}
	for i := range jobs {
		out[i] = scoreXW(l, jobs[i].Dsq, om, &jobs[i].XW)
	}
}
