// Package ftz is float32 arithmetic as the SSE unit does it with its
// flush-to-zero mode on (MXCSR's FTZ bit), which HMMER's hmmsearch and
// GKL's pair-HMM kernels both set: a result that would be subnormal is
// zero. The CPU kernels set the bit; this is the same arithmetic in Go,
// for the portable kernels and the tests.
package ftz

import "math"

// FlushBelow is the magnitude under which flush-to-zero mode returns
// zero (see Round64).
const FlushBelow = 0x1p-126 - 0x1p-151

// Round64 rounds x to float32 as the SSE unit does with flush-to-zero on:
// x86 detects tininess after rounding, so a value whose magnitude, rounded
// to 24 bits with an unbounded exponent, is below FLT_MIN (that is,
// |x| < 2^-126 - 2^-151) becomes a zero of x's sign. Rounding straight to
// float32 would instead keep FLT_MIN for |x| in [2^-126 - 2^-150,
// 2^-126 - 2^-151). This is CVTSD2SS, and, given an exact x, MULSS.
func Round64(x float64) float32 {
	if math.Abs(x) < FlushBelow {
		return float32(math.Copysign(0, x))
	}
	return float32(x)
}

// Mul and Div are float32 multiplication and division in flush-to-zero
// mode. A float32 result of zero, or above FLT_MIN in magnitude (inf and
// NaN included), is final: one unsigned comparison, |r|'s bits - 1
// wrapping for zero. One in between (a subnormal, or FLT_MIN itself) is
// zero exactly when the float64 product, which is exact, or quotient,
// which is close enough (an exact quotient of two 24-bit numbers is never
// within 2^-53 of the threshold without being it), is below Round64's
// threshold; r*0 is then the zero of r's sign. Both inline.
func Mul(a, b float32) float32 {
	r := float32(a * b)
	if math.Float32bits(r)&0x7fffffff-1 < 0x00800000 && math.Abs(float64(a)*float64(b)) < FlushBelow {
		r *= 0
	}
	return r
}

func Div(a, b float32) float32 {
	r := a / b
	if math.Float32bits(r)&0x7fffffff-1 < 0x00800000 && math.Abs(float64(a)/float64(b)) < FlushBelow {
		r *= 0
	}
	return r
}
