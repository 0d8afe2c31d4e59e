// Package profile builds HMMER3's log-odds scoring profile from a model
// (p7_ProfileConfig, local multihit mode, as hmmsearch uses it) and the
// null models it is scored against: the i.i.d. background with its
// length distribution and the two-state bias-filter HMM.
package profile

import (
	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/easel"
)

// aminoFrequencies are HMMER's fixed background amino acid frequencies
// (p7_AminoFrequencies), in alphabet order.
var aminoFrequencies = []float32{
	0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198,
	0.0590092, 0.0594422, 0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639,
	0.0540978, 0.0683364, 0.0540687, 0.0673417, 0.0114135, 0.0304133,
}

// Background is the null model (P7_BG): residue frequencies F, the
// geometric length parameter P1 and the null2 prior Omega, plus the
// bias filter's two-state HMM.
type Background struct {
	Abc   *alphabet.Alphabet
	F     []float32
	P1    float32
	Omega float32

	// Bias filter HMM: state 0 emits F, state 1 the model's composition.
	ft    [2][3]float32 // transitions s->0, s->1, s->end
	fpi   [2]float32
	feo   [][2]float32 // emission odds by residue code, then state
	ready bool
}

// NewBackground returns the null model HMMER uses for abc.
func NewBackground(abc *alphabet.Alphabet) *Background {
	bg := &Background{Abc: abc, P1: float32(350.0 / 351.0), Omega: float32(1.0 / 256.0)}
	if abc.Type == alphabet.Amino {
		bg.F = append([]float32(nil), aminoFrequencies...)
	} else {
		bg.F = make([]float32, abc.K)
		for i := range bg.F {
			bg.F[i] = float32(1.0 / float64(float32(abc.K)))
		}
	}
	bg.feo = make([][2]float32, abc.Kp)
	return bg
}

// SetLength sets the null model's expected length to L (p7_bg_SetLength).
func (bg *Background) SetLength(L int) {
	bg.P1 = float32(L) / float32(L+1)
	bg.ft[0][0] = bg.P1
	bg.ft[0][1] = 1.0 - bg.P1
}

// NullOne is the null model's log likelihood of a sequence of length L, in
// nats; residue terms cancel against the log-odds profile.
func (bg *Background) NullOne(L int) float32 {
	return float32(float64(float32(L))*easel.Log(float64(bg.P1)) + easel.Log(1.0-float64(bg.P1)))
}

// SetFilter configures the bias filter for a model of length M with mean
// match composition compo (p7_bg_SetFilter).
func (bg *Background) SetFilter(M int, compo []float32) {
	const L0 = float32(400.0)
	L1 := float32(float64(float32(M)) / 8.0)
	bg.ft[0][0] = L0 / (L0 + 1.0)
	bg.ft[0][1] = 1.0 / (L0 + 1.0)
	bg.ft[0][2] = 1.0
	bg.ft[1][0] = 1.0 / (L1 + 1.0)
	bg.ft[1][1] = L1 / (L1 + 1.0)
	bg.ft[1][2] = 1.0
	bg.fpi[0] = float32(0.999)
	bg.fpi[1] = float32(0.001)

	// Emission odds against F (esl_hmm_Configure).
	abc := bg.Abc
	K, Kp := abc.K, abc.Kp
	e := [2][]float32{bg.F, compo}
	for x := 0; x < K; x++ {
		for s := 0; s < 2; s++ {
			bg.feo[x][s] = e[s][x] / bg.F[x]
		}
	}
	for s := 0; s < 2; s++ {
		bg.feo[K][s] = 1
		bg.feo[Kp-2][s] = 1
		bg.feo[Kp-1][s] = 1
	}
	for x := K + 1; x <= Kp-3; x++ {
		for s := 0; s < 2; s++ {
			var num, denom float32
			for y := 0; y < K; y++ {
				if abc.Degen[x][y] {
					num += e[s][y]
					denom += bg.F[y]
				}
			}
			if denom > 0 {
				bg.feo[x][s] = num / denom
			} else {
				bg.feo[x][s] = 0
			}
		}
	}
	bg.ready = true
}

// FilterScore is the bias filter's score of dsq in nats (p7_bg_FilterScore):
// a scaled Forward through the two-state HMM plus the length distribution.
// SetFilter and SetLength must have been called, and L > 0 (the pipeline
// skips empty targets before any scoring).
func (bg *Background) FilterScore(dsq []byte) float32 {
	L := len(dsq)
	var fwd float32
	{
		var dp [2]float32
		max := float32(0)
		for k := 0; k < 2; k++ {
			dp[k] = bg.feo[dsq[0]][k] * bg.fpi[k]
			if dp[k] > max {
				max = dp[k]
			}
		}
		dp[0] /= max
		dp[1] /= max
		logsc := float32(0) + float32(easel.Log(float64(max)))
		for i := 1; i < L; i++ {
			var cur [2]float32
			max = 0
			x := dsq[i]
			for k := 0; k < 2; k++ {
				v := float32(0)
				v += float32(dp[0] * bg.ft[0][k])
				v += float32(dp[1] * bg.ft[1][k])
				v *= bg.feo[x][k]
				cur[k] = v
				if v > max {
					max = v
				}
			}
			cur[0] /= max
			cur[1] /= max
			dp = cur
			logsc += float32(easel.Log(float64(max)))
		}
		var end float32
		end += float32(dp[0] * bg.ft[0][2])
		end += float32(dp[1] * bg.ft[1][2])
		logsc += float32(easel.Log(float64(end)))
		fwd = logsc
	}
	return fwd + float32(float32(L)*easel.Logf(bg.P1)) + easel.Logf(float32(1.0-float64(bg.P1)))
}
