package easel

import "math"

// glibc 2.36's log (sysdeps/ieee754/dbl-64/e_log.c, from ARM's
// optimized-routines), in its FMA build __ieee754_log_fma, which is what
// x86-64 CPUs with FMA and AVX2 run. x = 2^k z, z near 1 in one of 128
// subintervals with a tabulated invc ~ 1/c and logc ~ log(c); then
// log(x) = k ln2 + logc + log1p(z invc - 1), the last by a polynomial.
// Inputs within about 6% of 1 take a separate, more careful polynomial.
// Every fused multiply-add below is one the compiled code fuses.

func f64(u uint64) float64 { return math.Float64frombits(u) }

var (
	logLn2Hi = f64(logConsts[0])
	logLn2Lo = f64(logConsts[1])
	logA     = [5]float64{f64(logConsts[2]), f64(logConsts[3]), f64(logConsts[4]), f64(logConsts[5]), f64(logConsts[6])}
	logB     = func() (b [11]float64) {
		for i := range b {
			b[i] = f64(logConsts[7+i])
		}
		return b
	}()
)

const (
	logOff    = 0x3fe6000000000000
	logNear1  = 0x3fee000000000000 // 1 - 2^-4
	logNear1W = 0x3ff1090000000000 - logNear1
)

// Log is glibc's log(x) for double x, bit for bit.
func Log(x float64) float64 {
	ix := math.Float64bits(x)
	if ix-logNear1 < logNear1W {
		return logNear1Path(x, ix)
	}
	if top := ix >> 48; top-0x10 >= 0x7ff0-0x10 {
		switch {
		case ix<<1 == 0:
			return math.Inf(-1)
		case ix == 0x7ff0000000000000:
			return x
		case top&0x8000 != 0 || top&0x7ff0 == 0x7ff0:
			return math.NaN()
		}
		// Subnormal: scale into the normal range, adjust the exponent.
		ix = math.Float64bits(x*0x1p52) - 52<<52
	}
	tmp := ix - logOff
	i := (tmp >> 45) % 128
	k := int64(tmp) >> 52
	z := f64(ix - tmp&(0xfff<<52))
	invc, logc := f64(logTab[2*i]), f64(logTab[2*i+1])
	kd := float64(int32(k))

	r := math.FMA(z, invc, -1)
	w := math.FMA(kd, logLn2Hi, logc)
	hi := r + w
	lo := math.FMA(kd, logLn2Lo, float64(w-hi)+r)
	r2 := r * r
	p := math.FMA(math.FMA(r, logA[4], logA[3]), r2, math.FMA(r, logA[2], logA[1]))
	y := math.FMA(float64(r*r2), p, math.FMA(r2, logA[0], lo))
	return y + hi
}

// logNear1Path evaluates log(x) for x in [1-2^-4, 1+0x1.09p-4): r = x-1,
// log1p(r) = r - r^2/2 + r^3 p(r), with r^2/2 split exactly into a high
// and a low part.
func logNear1Path(x float64, ix uint64) float64 {
	if ix == 0x3ff0000000000000 {
		return 0
	}
	B := &logB
	r := x - 1
	r2 := r * r
	r3 := r * r2
	p := math.FMA(r2, B[3], math.FMA(r, B[2], B[1]))
	q := math.FMA(r2, B[6], math.FMA(r, B[5], B[4]))
	s := math.FMA(r3, B[10], math.FMA(r2, B[9], math.FMA(r, B[8], B[7])))
	poly := math.FMA(math.FMA(s, r3, q), r3, p)

	// rhi is r with its low 27 bits cleared (r*2^27 is exact).
	rhi := math.FMA(r, 0x1p27, r) - r*0x1p27
	rlo := r - rhi
	rhi2 := rhi * rhi
	hi := math.FMA(rhi2, B[0], r)
	lo := math.FMA(rhi2, B[0], r-hi)
	lo = math.FMA(B[0]*rlo, rhi+r, lo)
	y := math.FMA(poly, r3, lo)
	return hi + y
}
