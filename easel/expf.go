// Package easel holds the pieces of the C math library and of Easel that
// HMMER's numbers depend on, reproduced bit for bit: glibc 2.36's expf,
// logf, log and exp as Debian's hmmsearch gets them on x86-64 CPUs with
// FMA (the run-time variants *_fma), and Easel's SSE expf.
//
// None of glibc's functions is correctly rounded and neither is Go's
// math package, and they disagree: Go's float32(math.Exp) differs from
// expf on about 0.06% of floats, math.Log from log on about 7% of
// doubles in (0,2), math.Exp from exp on about 13%, float32(math.Log)
// from logf on about 0.008% of floats. HMMER reads every model
// probability as expf(-(float)atof(tok)) and takes logs of them, so
// those last bits reach its scores. This package therefore follows
// glibc's algorithms operation by operation, fused multiply-adds where
// the compiled code fuses them.
//
// hmmsearch runs with the SSE flush-to-zero bit set (and denormals-are-
// zero clear): any float or double result that would be subnormal is 0.
// The *FTZ variants and Flush32 give those results; the plain functions
// keep IEEE default arithmetic.
package easel

import "math"

// glibc 2.36 computes expf (sysdeps/ieee754/flt-32/e_expf.c, from ARM's
// optimized-routines) as exp(x) = 2^(k/32) * 2^(r/32): k is x*32/ln2
// rounded to an integer, 2^(k/32) comes from a 32-entry table with k/32's
// integer part added to the exponent bits, and 2^(r/32) is a cubic in r,
// all in double, rounded once to float at the end.
const (
	expfInvLn2N = 0x1.71547652b82fep+5 // 32/ln 2
	expfShift   = 0x1.8p+52            // adding it rounds a double to an integer
	expfC0      = 0x1.c6af84b912394p-20
	expfC1      = 0x1.ebfce50fac4f3p-13
	expfC2      = 0x1.62e42ff0c52d6p-6

	// Beyond these the result is inf or (nearly) zero; the comparisons are
	// glibc's, in float.
	expfOverflow    = float32(0x1.62e42ep6)  // above: +inf
	expfUnderflow   = float32(-0x1.9fe368p6) // below: 0
	expfMayUnderflw = float32(-0x1.9d1d9ep6) // below: smallest subnormal
)

// expfPow2 holds 2^(i/32), i = 0..31, correctly rounded to double (the
// test recomputes them with math/big). glibc's table stores each with i
// shifted out of the exponent, which is the same once i is added back.
var expfPow2 = [32]float64{
	0x1p+00, 0x1.059b0d3158574p+00, 0x1.0b5586cf9890fp+00, 0x1.11301d0125b51p+00,
	0x1.172b83c7d517bp+00, 0x1.1d4873168b9aap+00, 0x1.2387a6e756238p+00, 0x1.29e9df51fdee1p+00,
	0x1.306fe0a31b715p+00, 0x1.371a7373aa9cbp+00, 0x1.3dea64c123422p+00, 0x1.44e086061892dp+00,
	0x1.4bfdad5362a27p+00, 0x1.5342b569d4f82p+00, 0x1.5ab07dd485429p+00, 0x1.6247eb03a5585p+00,
	0x1.6a09e667f3bcdp+00, 0x1.71f75e8ec5f74p+00, 0x1.7a11473eb0187p+00, 0x1.82589994cce13p+00,
	0x1.8ace5422aa0dbp+00, 0x1.93737b0cdc5e5p+00, 0x1.9c49182a3f09p+00, 0x1.a5503b23e255dp+00,
	0x1.ae89f995ad3adp+00, 0x1.b7f76f2fb5e47p+00, 0x1.c199bdd85529cp+00, 0x1.cb720dcef9069p+00,
	0x1.d5818dcfba487p+00, 0x1.dfc97337b9b5fp+00, 0x1.ea4afa2a490dap+00, 0x1.f50765b6e454p+00,
}

// expfTab[i] is the bit pattern of 2^(i/32) minus i<<47, so that adding
// k<<47 for any k with k%32 == i yields 2^(k/32) directly.
var expfTab = func() (t [32]uint64) {
	for i, v := range expfPow2 {
		t[i] = math.Float64bits(v) - uint64(i)<<47
	}
	return t
}()

// Expf is glibc 2.36's expf on x86-64 as hmmsearch gets it on CPUs with
// FMA and AVX2 (glibc's run-time choice __expf_fma, confirmed in gdb on
// Debian's hmmsearch): the same algorithm as ExpfSSE2 but with four of
// its multiply-adds fused. The two differ on a handful of inputs; Expf
// agrees with the FMA build on all 2^32 of them.
//
// It uses IEEE default arithmetic (subnormal results are kept); see
// ExpfFTZ for the flush-to-zero mode hmmsearch runs in.
func Expf(x float32) float32 {
	if y, special := expfSpecial(x); special {
		return y
	}
	xd := float64(x)
	// The FMA build fuses x*InvLn2N into both the rounding and the
	// remainder, so the product is never rounded on its own.
	kdShifted := math.FMA(expfInvLn2N, xd, expfShift)
	ki := math.Float64bits(kdShifted)
	kd := kdShifted - expfShift
	r := math.FMA(expfInvLn2N, xd, -kd)
	s := math.Float64frombits(expfTab[ki%32] + ki<<47)
	z := math.FMA(expfC0, r, expfC1)
	r2 := r * r
	y := math.FMA(expfC2, r, 1)
	y = math.FMA(z, r2, y)
	return float32(y * s)
}

// ExpfSSE2 is glibc 2.36's generic expf (__expf_sse2), the variant glibc
// picks on x86-64 CPUs without FMA or AVX2 (or with
// GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2). Every double operation is
// rounded separately; the explicit conversions stop Go from fusing them
// on architectures that would.
func ExpfSSE2(x float32) float32 {
	if y, special := expfSpecial(x); special {
		return y
	}
	xd := float64(x)
	z := float64(expfInvLn2N * xd)
	kd := float64(z + expfShift)
	ki := math.Float64bits(kd)
	kd -= expfShift
	r := z - kd
	s := math.Float64frombits(expfTab[ki%32] + ki<<47)
	p := float64(expfC0*r) + expfC1
	r2 := float64(r * r)
	y := float64(expfC2*r) + 1
	y = float64(p*r2) + y
	return float32(y * s)
}

// expfSpecial handles |x| >= 88, infinities and NaN as glibc does; for
// the rest of that range (88 <= |x| < the limits) it returns false and
// the main path computes the value.
func expfSpecial(x float32) (float32, bool) {
	bits := math.Float32bits(x)
	if (bits>>20)&0x7ff < 0x42b { // |x| < 88: the common case
		return 0, false
	}
	switch {
	case bits == 0xff800000: // -inf
		return 0, true
	case (bits>>20)&0x7ff >= 0x7f8: // +inf, NaN
		return x + x, true
	case x > expfOverflow:
		return float32(math.Inf(1)), true
	case x < expfUnderflow:
		return 0, true
	case x < expfMayUnderflw:
		// glibc returns 0x1.4p-75f squared, which rounds to the smallest
		// subnormal (and to 0 under flush-to-zero).
		return math.Float32frombits(1), true
	}
	return 0, false
}

// ExpfFTZ is Expf as seen inside hmmsearch, which sets the SSE
// flush-to-zero bit (impl_Init; confirmed: MXCSR has FZ set, DAZ clear,
// when hmmsearch reads its models): a result that would be subnormal
// comes back as zero. Model probabilities are ExpfFTZ(-float32(v)).
func ExpfFTZ(x float32) float32 { return Flush32(Expf(x)) }

// Flush32 returns x, or a zero of the same sign if x is subnormal: what
// an SSE instruction producing x gives with MXCSR.FZ set.
func Flush32(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}

// Flush64 is Flush32 for doubles: a subnormal becomes a zero of the same
// sign, as SSE arithmetic gives it in flush-to-zero mode.
func Flush64(x float64) float64 {
	if b := math.Float64bits(x); b&0x7ff0000000000000 == 0 {
		return math.Float64frombits(b & (1 << 63))
	}
	return x
}
