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
// is not changed. On small models it scores several targets at once, two
// on AVX2 (see vitPair in internal/avogen/vit) and four on AVX-512
// (vitQuad), which is faster than one by one because a small model's
// rows are too short to hide each row's serial dependencies.
func ScoreBatch(om *oprofile.VitProfile, jobs []Job, out []float32) {
	scoreBatch(level, om, jobs, out)
}

// pairMaxM and quadMaxM are the largest models the AVX2 paired kernel
// and the AVX-512 four-target kernel take; above them the one-target
// kernels' wider rows win (measured: see docs/cpu-kernels.md). Tests
// raise them to run every model through the multi-target kernels.
var (
	pairMaxM = 600
	quadMaxM = 600
)

func scoreBatch(l simd.Level, om *oprofile.VitProfile, jobs []Job, out []float32) {
	out = out[:len(jobs)]
	if len(jobs) >= 2 {
		switch {
		case l >= simd.AVX512 && om.M <= quadMaxM:
			if pairScores(om, jobs, out, true) {
				return
			}
		case l == simd.AVX2 && om.M <= pairMaxM:
			if pairScores(om, jobs, out, false) {
				return
			}
		}
	}
	for i := range jobs {
		out[i] = scoreXW(l, jobs[i].Dsq, om, &jobs[i].XW)
	}
}
