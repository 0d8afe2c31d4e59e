package oprofile

import (
	"math"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// MSVProfile is the SSV/MSV filter's score system: unsigned byte costs in
// third-bits offset by Base, with match costs biased so they are never
// negative. It is indexed by node, not striped: the filters' integer
// results do not depend on the order cells are computed in.
type MSVProfile struct {
	M     int
	Scale float32 // 3/ln 2: third-bits
	Base  uint8   // 190
	Bias  uint8   // the largest match score as a cost
	TBM   uint8   // uniform local entry 2/(M(M+1)), as a cost
	TEC   uint8   // E->C and E->J, log 1/2
	TJB   uint8   // N/J->B for the current length
	// RBV[x][k] is the biased match cost of node k (1..M) for residue x;
	// SBV is RBV-Bias as a signed byte, capped at +127 (the SSV filter's form).
	RBV [][]uint8
	SBV [][]int8
	// Padded is RBV with cost 255 (an impossible cell) past node M, to a
	// multiple of 8 nodes plus one 8-byte load: the vector kernels' form.
	Padded [][]byte
	// Stripes are RBV and SBV in the vector kernels' striped order, one
	// table per vector width (see Stripe).
	Stripes []*MSVStripes
}

// unbiasedByteify turns a score into a byte cost, saturating at 255.
func unbiasedByteify(scale, sc float32) uint8 {
	c := -1.0 * roundf(scale*sc)
	if c > 255 {
		return 255
	}
	return uint8(int32(c))
}

// biasedByteify adds the bias to the cost; -inf (and anything past the
// byte range) becomes 255. HMMER converts the possibly negative float cost
// through an int and lets the byte addition wrap; for in-range scores that
// is plain integer addition.
func biasedByteify(scale float32, bias uint8, sc float32) uint8 {
	c := -1.0 * roundf(scale*sc)
	if c > float32(255-int(bias)) {
		return 255
	}
	return uint8(int32(c) + int32(bias))
}

func (p *MSVProfile) convert(gm *profile.Profile) {
	M := gm.M
	p.M = M
	p.Scale = float32(3.0 / math.Ln2)
	p.Base = 190
	p.Bias = unbiasedByteify(p.Scale, float32(-1.0*float64(gm.MaxMatchScore())))
	p.RBV = make([][]uint8, gm.Abc.Kp)
	p.SBV = make([][]int8, gm.Abc.Kp)
	for x := range p.RBV {
		p.RBV[x] = make([]uint8, M+1)
		p.SBV[x] = make([]int8, M+1)
		for k := 1; k <= M; k++ {
			r := biasedByteify(p.Scale, p.Bias, gm.MSC[x][k])
			p.RBV[x][k] = r
			p.SBV[x][k] = signedCost(r, p.Bias)
		}
	}
	n := (M+7)/8*8 + 8
	p.Padded = make([][]byte, len(p.RBV))
	for x := range p.RBV {
		p.Padded[x] = make([]byte, n)
		copy(p.Padded[x], p.RBV[x])
		for k := M + 1; k < n; k++ {
			p.Padded[x][k] = 255
		}
	}
	p.Stripe()
	p.TBM = unbiasedByteify(p.Scale, easel.Logf(2.0/(float32(M)*float32(M+1))))
	p.TEC = unbiasedByteify(p.Scale, easel.Logf(0.5))
	p.TJB = unbiasedByteify(p.Scale, easel.Logf(3.0/float32(gm.L+3)))
}

// signedCost is ((127+bias) -sat rbv) xor 127 read as a signed byte: rbv-bias
// capped at +127, HMMER's SSV form of a match cost.
func signedCost(rbv, bias uint8) int8 {
	t := int(bias) + 127 - int(rbv)
	if t < 0 {
		t = 0
	}
	return int8(uint8(t) ^ 127)
}

// TJBFor is the N/J->B cost for a target of length L (what
// p7_oprofile_ReconfigMSVLength sets); batch kernels use it per target.
func (p *MSVProfile) TJBFor(L int) uint8 {
	return unbiasedByteify(p.Scale, easel.Logf(3.0/float32(L+3)))
}
