package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The four-lane operations HMMER's SSE code is made of. Each product is
// wrapped in float32() so the compiler can never fuse it with an addition
// into an FMA: the spec allows that fusion, and it would change bits.
//
// hmmsearch runs with the SSE flush-to-zero and denormals-are-zero modes
// on (impl_Init), so a product that would be subnormal is zero there;
// products and quotients here are flushed the same way. Sums of the
// non-negative normal values these kernels hold cannot be subnormal.

type vec = oprofile.Vec

func splat(x float32) vec { return vec{x, x, x, x} }

func vadd(a, b vec) vec { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]} }

func vmul(a, b vec) vec {
	return vec{fmul(a[0], b[0]), fmul(a[1], b[1]), fmul(a[2], b[2]), fmul(a[3], b[3])}
}

// flushBelow is the magnitude under which SSE's flush-to-zero mode
// returns zero (see ftz64).
const flushBelow = 0x1p-126 - 0x1p-151

// ftz64 rounds x to float32 as the SSE unit does with flush-to-zero on:
// x86 detects tininess after rounding, so a value whose magnitude, rounded
// to 24 bits with an unbounded exponent, is below FLT_MIN (that is,
// |x| < 2^-126 - 2^-151) becomes a zero of x's sign. Rounding straight to
// float32 would instead keep FLT_MIN for |x| in [2^-126 - 2^-150,
// 2^-126 - 2^-151). This is CVTSD2SS, and, given an exact x, MULSS.
func ftz64(x float64) float32 {
	if math.Abs(x) < flushBelow {
		return float32(math.Copysign(0, x))
	}
	return float32(x)
}

// fmul and fdiv are float32 multiplication and division in flush-to-zero
// mode. A float32 result of zero, or above FLT_MIN in magnitude (inf and
// NaN included), is final: one unsigned comparison, |r|'s bits - 1
// wrapping for zero. One in between (a subnormal, or FLT_MIN itself) is
// zero exactly when the float64 product, which is exact, or quotient,
// which is close enough (an exact quotient of two 24-bit numbers is never
// within 2^-53 of the threshold without being it), is below ftz64's
// threshold; r*0 is then the zero of r's sign. Both inline.
func fmul(a, b float32) float32 {
	r := float32(a * b)
	if math.Float32bits(r)&0x7fffffff-1 < 0x00800000 && math.Abs(float64(a)*float64(b)) < flushBelow {
		r *= 0
	}
	return r
}

func fdiv(a, b float32) float32 {
	r := a / b
	if math.Float32bits(r)&0x7fffffff-1 < 0x00800000 && math.Abs(float64(a)/float64(b)) < flushBelow {
		r *= 0
	}
	return r
}

// rightshift moves lanes up one, shifting fill into lane 0 (esl_sse_rightshift_ps).
func rightshift(a vec, fill float32) vec { return vec{fill, a[0], a[1], a[2]} }

// leftshift moves lanes down one, shifting 0 into lane 3 (_mm_move_ss + shuffle).
func leftshift(a vec) vec { return vec{a[1], a[2], a[3], 0} }

// hsum is the SSE horizontal sum: (x0+x1) + (x2+x3).
func hsum(a vec) float32 { return (a[0] + a[1]) + (a[2] + a[3]) }

func vmax(a, b vec) vec {
	for z := range a {
		if !(a[z] > b[z]) {
			a[z] = b[z]
		}
	}
	return a
}

// gtMask keeps x where t > 0 and gives +0 elsewhere (_mm_and_ps of a compare).
func gtMask(t, x vec) vec {
	for z := range x {
		if !(t[z] > 0) {
			x[z] = 0
		}
	}
	return x
}
