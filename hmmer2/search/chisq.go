package search

import (
	"math"
	"math/big"
	"sync"
)

// reportedChiP reproduces the "P(chi-square)" value that Debian's
// hmm2search 2.3.2 prints. HMMER2's histogram.c calls squid's
// IncompleteGamma() without a prototype in scope, so the C compiler
// assumes it returns int: the printed number is the float conversion of
// whatever 32-bit integer is left in the return register (%eax), not
// the probability. On x86-64 with squid 1.9g and glibc's exp() that is:
//
//   - the series branch (x <= a+1): 0, the low half of the constant 1.0
//     that the function last loaded;
//   - the continued-fraction branch: the low 32 bits of the scale factor
//     glibc's exp() builds from its 128-entry table, i.e. the low half
//     of the double nearest 2^(k/128), k = round(arg*128/ln 2) mod 128,
//     for the exp() argument a*ln(x) - x - lnGamma(a);
//   - an exp() that underflows to zero: errno's thread-local offset,
//     whose low half is 0 in Debian's libm.
//
// The numbers are meaningless, but they are the output; matching them
// keeps reports byte-identical. chiP also returns the true probability
// for tests and documentation.
func reportedChiP(a, x float64) (printed float32, chiP float64) {
	chiP = incompleteGamma(a, x)
	if !(x > a+1) {
		return 0, chiP
	}
	arg := float64(a*math.Log(x)) - x - gammln(a)
	return float32(expReturnRegister(arg)), chiP
}

// expReturnRegister is the value of %eax when glibc 2.36's exp(arg)
// returns, for the arguments the chi-square code can produce.
func expReturnRegister(arg float64) int32 {
	if math.Exp(arg) == 0 || math.IsInf(arg, 0) || math.IsNaN(arg) {
		return 0 // errno path
	}
	abstop := int32(math.Float64bits(arg)>>52) & 0x7ff
	if abstop-0x3c9 < 0 { // |arg| < 2^-54: exp returns 1+arg
		return abstop - 0x3c9
	}
	const invLn2N = 0x1.71547652b82fep0 * 128
	const shift = 0x1.8p52
	ki := math.Float64bits(math.FMA(arg, invLn2N, shift))
	return int32(uint32(exp2Table()[ki&127]))
}

var (
	exp2Once sync.Once
	exp2Bits [128]uint64
)

// exp2Table holds the bits of the doubles nearest 2^(k/128), k = 0..127,
// the scale factors glibc's exp() table encodes. 2^(k/128) is 2^k under
// seven square roots, done in 256-bit precision and rounded once.
func exp2Table() *[128]uint64 {
	exp2Once.Do(func() {
		for k := 0; k < 128; k++ {
			v := new(big.Float).SetPrec(256).SetMantExp(big.NewFloat(1).SetPrec(256), k)
			for i := 0; i < 7; i++ {
				v.Sqrt(v)
			}
			f, _ := v.Float64()
			exp2Bits[k] = math.Float64bits(f)
		}
	})
	return &exp2Bits
}
