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
// (vitMulti), which is faster than one by one because a small model's
// rows are too short to hide each row's serial dependencies.
func ScoreBatch(om *oprofile.VitProfile, jobs []Job, out []float32) {
	scoreBatch(level, om, jobs, out)
}

// multiKernel is a kernel that scores several targets at once.
type multiKernel int

const (
	pairAVX2   multiKernel = iota // AVX2: two targets, 8 lanes each (vitPair)
	quadAVX512                    // AVX-512: four targets, 8 lanes each (vitMulti(4))
	duoAVX512                     // AVX-512: two targets, 16 lanes each (vitMulti(2))
)

// multiAVX512 is the form ScoreBatch uses on AVX-512: four targets of 8
// lanes, which on the Sapphire Rapids host beat two of 16 by 1.1-1.3x
// for M <= 200 and tied above (docs/cpu-kernels.md); tests and
// benchmarks switch it.
var multiAVX512 = quadAVX512

// pairMaxM and multiMaxM are the largest models the AVX2 paired kernel
// and the AVX-512 multi-target kernel take; above them the one-target
// kernels' wider rows win (measured: the AVX2 crossover on Zen 3 was
// between M = 600 and 800; on Sapphire Rapids the four-target kernel
// led up to M = 400, tied with the 32-lane kernel from 300 to 803 and
// trailed from 1001; see docs/cpu-kernels.md). Tests raise them to run every
// model through the multi-target kernels.
var (
	pairMaxM  = 600
	multiMaxM = 900
)

func scoreBatch(l simd.Level, om *oprofile.VitProfile, jobs []Job, out []float32) {
	out = out[:len(jobs)]
	if len(jobs) >= 2 {
		switch {
		case l >= simd.AVX512 && om.M <= multiMaxM:
			if pairScores(om, jobs, out, multiAVX512) {
				return
			}
		case l == simd.AVX2 && om.M <= pairMaxM:
			if pairScores(om, jobs, out, pairAVX2) {
				return
			}
		}
	}
	for i := range jobs {
		out[i] = scoreXW(l, jobs[i].Dsq, om, &jobs[i].XW)
	}
}
