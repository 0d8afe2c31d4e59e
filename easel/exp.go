package easel

import "math"

// glibc 2.36's exp (sysdeps/ieee754/dbl-64/e_exp.c), FMA build
// __ieee754_exp_fma: x = k ln2/128 + r, exp(x) = 2^(k/128) exp(r), the
// power from a 128-entry table (scale and tail), exp(r) - 1 by a
// polynomial; results near overflow and underflow take a careful path.

var (
	expInvLn2N   = f64(expConsts[0])
	expNegLn2HiN = f64(expConsts[1])
	expNegLn2LoN = f64(expConsts[2])
	expC         = [4]float64{f64(expConsts[3]), f64(expConsts[4]), f64(expConsts[5]), f64(expConsts[6])}
	expShift     = f64(expConsts[7])
)

// Exp is glibc's exp(x) for double x, bit for bit, in IEEE default
// arithmetic (results below 2^-1022 are subnormal); see ExpFTZ.
func Exp(x float64) float64 { return exp(x, false) }

// ExpFTZ is exp as hmmsearch gets it, with the SSE flush-to-zero mode
// on: a result below 2^-1022 (x < about -708.4) is 0. E-values of hits
// stronger than about 1e-308 therefore print as 0 in HMMER.
func ExpFTZ(x float64) float64 { return exp(x, true) }

func exp(x float64, ftz bool) float64 {
	ux := math.Float64bits(x)
	abstop := uint32(ux>>52) & 0x7ff
	special := false
	if abstop-0x3c9 >= 0x408-0x3c9 { // |x| < 2^-54 or |x| >= 512
		if abstop < 0x3c9 {
			return 1 + x
		}
		if abstop >= 0x409 {
			switch {
			case ux == 0xfff0000000000000:
				return 0
			case abstop == 0x7ff:
				return 1 + x
			case ux>>63 != 0:
				return 0
			default:
				return math.Inf(1)
			}
		}
		special = true
	}
	kd := math.FMA(x, expInvLn2N, expShift)
	ki := math.Float64bits(kd)
	kd -= expShift
	r := math.FMA(kd, expNegLn2HiN, x)
	r = math.FMA(kd, expNegLn2LoN, r)
	idx := 2 * (ki % 128)
	top := ki << 45
	tail := f64(expTab[idx])
	sbits := expTab[idx+1] + top
	r2 := r * r
	tmp := math.FMA(math.FMA(r, expC[1], expC[0]), r2, tail+r)
	tmp = math.FMA(r2*r2, math.FMA(r, expC[3], expC[2]), tmp)
	if special {
		return expSpecial(tmp, sbits, ki, ftz)
	}
	scale := f64(sbits)
	return math.FMA(scale, tmp, scale)
}

// expSpecial finishes when 2^k overflows or underflows the exponent:
// scale by 2^1009 afterwards, or for small results round once more in
// the normal range before scaling down by 2^-1022.
func expSpecial(tmp float64, sbits, ki uint64, ftz bool) float64 {
	if ki&0x80000000 == 0 {
		scale := f64(sbits - 1009<<52)
		return 0x1p1009 * math.FMA(scale, tmp, scale)
	}
	scale := f64(sbits + 1022<<52)
	st := scale * tmp
	y := scale + st
	if y < 1 {
		lo := float64(scale-y) + st
		hi := 1 + y
		lo = float64(float64(1-hi)+y) + lo
		y = float64(lo+hi) - 1
		if y == 0 {
			y = 0
		}
	}
	y *= 0x1p-1022
	if ftz && y != 0 && math.Abs(y) < 0x1p-1022 {
		return 0
	}
	return y
}
