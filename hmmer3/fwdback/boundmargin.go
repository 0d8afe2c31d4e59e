package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// BoundMargin is a bound in nats on |s - Forward's score| for a target of
// length L under a model of length M in multihit local mode, where s is
// the score fwdbound.cu computes (ForwardBoundBatch) and score is either
// of the two; +Inf when the bound is too wide to be of use (L*M in the
// tens of millions) or score is not finite. docs/fwdbound.md derives it;
// in short:
//
//   - Every value both computations hold is a sum of products of the same
//     non-negative float parameters, so a computed value is the exact
//     one with each monomial multiplied by prod (1+d) over the roundings
//     in its derivation, |d| <= u = 2^-24: it lies within a factor
//     (1-u)^n .. (1+u)^n of the exact value, n the longest derivation.
//     Per row, a derivation enters an M cell (<= 8 roundings, HMMER's
//     1/xE rescaling included), runs along the D chain (<= 2M+16 in
//     HMMER's striped passes, <= 1.125M+45 through the lane maps and
//     their warp scan here), into E (a fold of <= M/2+6 adds in HMMER's
//     order, <= M/16+16 here) and through N, J, C, B (<= 5):
//     n <= L*(3M+64)+64 for both. The two scores' logs then differ by at
//     most -2n*log(1-u).
//   - HMMER sums the logs of its rescaling factors into a float: at most
//     one rounding per row of a total below |score|+116, plus the
//     rounding of the score to float on both sides: (L+16)(|score|+160)
//     2^-22 covers it four times over. The kernel's power-of-two scaling
//     is exact.
//   - Flush to zero drops values below 2^-126. In multihit local mode
//     each cell's value includes a path entering from B of weight at
//     least xB*BM(k)*odds (newBoundPlan checks that the profile's part of
//     it is at least 2^-50, and xB stays above 2^-27 in the scaled frame
//     while n <= 2^25), so a dropped value changes the score relatively by
//     at most 2^-126/2^-77 = 2^-49, under 2^-19 over the <= 2^30
//     operations: boundFTZSlack absorbs it.
func BoundMargin(L, M int, score float32) float32 {
	s := float64(score)
	if L < 0 || M < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return float32(math.Inf(1))
	}
	n := float64(L)*(3*float64(M)+64) + 64
	if n > boundMaxRoundings {
		return float32(math.Inf(1))
	}
	rel := -2 * n * math.Log1p(-0x1p-24)
	abs := (float64(L) + 16) * (math.Abs(s) + 160) * 0x1p-22
	m := float32(rel + abs + boundFTZSlack)
	return math.Nextafter32(m, float32(math.Inf(1)))
}

const (
	// boundMaxRoundings is where BoundMargin gives up: the relative part
	// alone would be about 4 nats.
	boundMaxRoundings = 1 << 25
	// boundFTZSlack absorbs flush-to-zero (BoundMargin).
	boundFTZSlack = 1e-4
	// boundMinEntry is the least profile part of a B-entry path weight
	// newBoundPlan accepts (BoundMargin's flush-to-zero argument).
	boundMinEntry = 0x1p-50
)

// entryWeightOK reports whether every node's B entry times its least
// match odds over the canonical residues, times its M->I and M->D
// probabilities (which I and D cells add to the path), is at least
// boundMinEntry: the profile's part of BoundMargin's flush-to-zero
// argument.
func entryWeightOK(om *oprofile.Profile) bool {
	fb := &om.FB
	Q := fb.Q
	K := len(fb.RF)
	if om.Abc != nil && om.Abc.K > 0 && om.Abc.K <= K {
		K = om.Abc.K
	}
	for k := 1; k <= om.M; k++ {
		q, z := (k-1)%Q, (k-1)/Q
		w := float64(fb.TF[7*q+oprofile.FBM][z])
		odds := math.Inf(1)
		for x := 0; x < K; x++ {
			odds = min(odds, float64(fb.RF[x][q][z]))
		}
		w *= odds
		if k < om.M {
			w *= min(1, float64(fb.TF[7*q+oprofile.FMI][z]), float64(fb.TF[7*q+oprofile.FMD][z]))
		}
		if !(w >= boundMinEntry) {
			return false
		}
	}
	return true
}
