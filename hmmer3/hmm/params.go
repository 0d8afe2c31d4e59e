package hmm

import (
	"math"
	"unicode"

	"github.com/hmmgo/hmmgo/alphabet"
)

// sumTolerance is how far from 1 a distribution read from a file may
// sum. Files store -ln(p) with five decimals, which moves a sum by about
// 1e-5 at most; HMMER itself checks nothing, so this only rejects
// parameters that are plainly not probabilities.
const sumTolerance = 1e-3

func sumsToOne(p []float32) bool {
	var s float64
	for _, v := range p {
		s += float64(v)
	}
	return math.Abs(s-1) <= sumTolerance
}

// setConsensus computes the consensus line as p7_hmm_SetConsensus does
// for files that do not store one: the most probable residue of each
// match state (the first one on ties), upper case when its probability
// reaches 0.5 (protein) or 0.9 (nucleic acid), else lower case.
func (h *HMM) setConsensus() {
	thresh := float32(0.5)
	if h.Alph.Type == alphabet.DNA || h.Alph.Type == alphabet.RNA {
		thresh = 0.9
	}
	line := make([]byte, h.M+1)
	line[0] = ' '
	for k := 1; k <= h.M; k++ {
		best := 0
		for x, p := range h.Mat[k] {
			if p > h.Mat[k][best] {
				best = x
			}
		}
		c := rune(h.Alph.Sym[best])
		if h.Mat[k][best] >= thresh {
			c = unicode.ToUpper(c)
		} else {
			c = unicode.ToLower(c)
		}
		line[k] = byte(c)
	}
	h.Consensus = string(line)
}

// fsum is Easel's esl_vec_FSum: a Kahan-compensated float sum.
func fsum(v []float32) float32 {
	var sum, c float32
	for _, x := range v {
		y := x - c
		t := sum + y
		c = (t - sum) - y
		sum = t
	}
	return sum
}

// fnorm is Easel's esl_vec_FNorm: divide by the sum, or make the vector
// uniform when it sums to zero.
func fnorm(v []float32) {
	sum := fsum(v)
	if sum != 0 {
		for i := range v {
			v[i] /= sum
		}
		return
	}
	for i := range v {
		v[i] = float32(1.0 / float64(float32(len(v))))
	}
}

// aminoBackground is HMMER's p7_AminoFrequencies: Swiss-Prot 50.8
// residue frequencies in alphabet order, the null model of protein
// searches and the insert emissions of converted HMMER2 models.
var aminoBackground = [20]float32{
	0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062,
	0.0695071, 0.0229198, 0.0590092, 0.0594422, 0.0963728,
	0.0237718, 0.0414386, 0.0482904, 0.0395639, 0.0540978,
	0.0683364, 0.0540687, 0.0673417, 0.0114135, 0.0304133,
}

// background returns the null model frequencies of an alphabet as
// p7_bg_Create sets them: Swiss-Prot's for protein, uniform otherwise.
func background(abc *alphabet.Alphabet) []float32 {
	if abc.Type == alphabet.Amino {
		return aminoBackground[:]
	}
	K := abc.K
	f := make([]float32, K)
	for i := range f {
		f[i] = float32(1.0 / float64(float32(K)))
	}
	return f
}
