package fwdback

import (
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/ftz"
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

// flushBelow, ftz64, fmul and fdiv are package ftz's flush-to-zero
// arithmetic, HMMER's SSE mode.
const flushBelow = ftz.FlushBelow

func ftz64(x float64) float32   { return ftz.Round64(x) }
func fmul(a, b float32) float32 { return ftz.Mul(a, b) }
func fdiv(a, b float32) float32 { return ftz.Div(a, b) }

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
