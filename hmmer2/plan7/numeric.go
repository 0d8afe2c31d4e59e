package plan7

import "math"

// IntScale is HMMER2's INTSCALE: integer scores are bits times 1000.
const IntScale = 1000.0

// Infty is HMMER2's INFTY, the integer stand-in for an infinite score.
// -Infty marks impossible cells; sums of two of them still fit in int32,
// which the DP code relies on exactly as HMMER2 does.
const Infty = 987654321

// The decimal constants below are typed variables on purpose: Go folds
// untyped constant expressions exactly, but C rounds every double
// operation, so 1000.0*1.44269504 must be multiplied at run time to give
// the same double HMMER2 gets.
var (
	intScale = float64(IntScale)
	log2e    = 1.44269504 // HMMER2's truncated 1/ln(2)
	ln2      = 0.69314718 // HMMER2's truncated ln(2)
)

// Log2 is HMMER2's sreLOG2 macro: log2 of a float, or -9999 when x <= 0.
func Log2(x float32) float64 {
	if x > 0 {
		return math.Log(float64(x)) * log2e
	}
	return -9999.
}

// Prob2Score converts a probability to a scaled integer log-odds score
// relative to null, rounding to nearest as Prob2Score() does.
func Prob2Score(p, null float32) int32 {
	if p == 0 {
		return -Infty
	}
	// The explicit conversion keeps compilers that fuse multiply-add
	// (arm64, ppc64) from changing the rounding.
	return int32(math.Floor(0.5 + float64(intScale*Log2(p/null))))
}

// Score2Prob converts an integer score back to a probability
// (Score2Prob() in HMMER2), used when reading save files.
func Score2Prob(sc int32, null float32) float32 {
	if sc == -Infty {
		return 0
	}
	x := float64(float32(sc)) / intScale
	return float32(float64(null) * math.Exp(x*ln2))
}

// Scorify converts a scaled integer score to bits, as a float, the way
// every HMMER2 score that is printed or compared was made.
func Scorify(sc int32) float32 {
	return float32(float64(float32(sc)) / intScale)
}

// LogSum returns log(exp(p1)+exp(p2)) in natural-log space, in float
// precision, as HMMER2's LogSum().
func LogSum(p1, p2 float32) float32 {
	if p1 > p2 {
		if p1-p2 > 50. {
			return p1
		}
		return float32(float64(p1) + math.Log(1.+math.Exp(float64(p2-p1))))
	}
	if p2-p1 > 50. {
		return p2
	}
	return float32(float64(p2) + math.Log(1.+math.Exp(float64(p1-p2))))
}

const logsumTable = 20000 // LOGSUM_TBL

var ilogsumTable [logsumTable]int32

func init() {
	scale := intScale * log2e
	for i := 0; i < logsumTable; i++ {
		// Same grouping as HMMER2: ln2 * (float)-i, then / INTSCALE.
		x := ln2 * float64(float32(-i)) / intScale
		ilogsumTable[i] = int32(scale * math.Log(1.+math.Exp(x)))
	}
}

// ILogsum adds two scaled integer log probabilities in probability space
// with HMMER2's lookup table (used by the Forward algorithm and null2).
func ILogsum(p1, p2 int32) int32 {
	diff := p1 - p2
	switch {
	case diff >= logsumTable:
		return p1
	case diff <= -logsumTable:
		return p2
	case diff > 0:
		return p1 + ilogsumTable[diff]
	default:
		return p2 + ilogsumTable[-diff]
	}
}

// FSum, FNorm, FScale and FArgMax are squid's float vector helpers;
// summation order and float rounding match them.

// FSum adds v in order in float precision.
func FSum(v []float32) float32 {
	var s float32
	for _, x := range v {
		s += x
	}
	return s
}

// FNorm makes v sum to one; an all-zero vector becomes uniform.
func FNorm(v []float32) {
	s := FSum(v)
	if s != 0 {
		for i := range v {
			v[i] /= s
		}
		return
	}
	u := float32(1. / float64(float32(len(v))))
	for i := range v {
		v[i] = u
	}
}

// FScale multiplies v by a float scale.
func FScale(v []float32, scale float32) {
	for i := range v {
		v[i] *= scale
	}
}

// FArgMax returns the index of the first maximum of v.
func FArgMax(v []float32) int {
	best := 0
	for i := 1; i < len(v); i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}
