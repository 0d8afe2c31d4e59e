package easel

import "math"

// glibc 2.36's logf (sysdeps/ieee754/flt-32/e_logf.c), FMA build
// __logf_fma: x = 2^k z, z in one of 16 subintervals with tabulated
// invc and logc, log(x) = k ln2 + logc + log1p(z invc - 1) with a cubic,
// all in double and rounded to float once.

var (
	logfLn2 = f64(logfData[32])
	logfA   = [3]float64{f64(logfData[33]), f64(logfData[34]), f64(logfData[35])}
)

// Logf is glibc's logf(x), bit for bit.
func Logf(x float32) float32 {
	ix := math.Float32bits(x)
	if ix == 0x3f800000 {
		return 0
	}
	if ix-0x00800000 >= 0x7f800000-0x00800000 {
		switch {
		case ix<<1 == 0:
			return float32(math.Inf(-1))
		case ix == 0x7f800000:
			return x
		case ix&0x80000000 != 0 || ix<<1 >= 0xff000000:
			return float32(math.NaN())
		}
		// Subnormal: scale into the normal range, adjust the exponent.
		ix = math.Float32bits(x*0x1p23) - 23<<23
	}
	tmp := ix - 0x3f330000
	i := (tmp >> 19) % 16
	k := int32(tmp) >> 23
	z := float64(math.Float32frombits(ix - tmp&0xff800000))
	invc, logc := f64(logfData[2*i]), f64(logfData[2*i+1])

	r := math.FMA(z, invc, -1)
	y0 := math.FMA(float64(k), logfLn2, logc)
	r2 := r * r
	y := math.FMA(logfA[1], r, logfA[2])
	y = math.FMA(logfA[0], r2, y)
	y = math.FMA(y, r2, r+y0)
	return float32(y)
}
