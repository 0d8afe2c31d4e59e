package easel

import "math"

// Easel's esl_sse_expf (esl_sse.c, Easel 0.48) computes four expf lanes
// with Cephes' single-precision method: k = floor(x/ln2 + 1/2), f = x -
// k*ln2 in two pieces, e^f by a degree-7 polynomial, times 2^k built in
// the exponent bits. HMMER uses it for the odds of its optimized Forward
// profile, so every step is a float operation here, in the same order.
var (
	ssePoly = [6]float32{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
		4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}
	sseLn2Hi = float32(0.693359375)
	sseLn2Lo = float32(-2.12194440e-4)
	// 127.5*ln2 minus a little: beyond it 2^k has no float exponent.
	sseMaxLog = float32(88.3762626647949)
	sseMinLog = float32(-88.3762626647949)
	sseLog2e  = float32(1.44269504088896340736) // Easel's eslCONST_LOG2R rounded to float
)

// SSEExpf is one lane of esl_sse_expf under IEEE default arithmetic.
// Like the SIMD code it returns +inf above 88.376 and 0 at or below
// -88.376, and NaN for NaN.
func SSEExpf(x float32) float32 { return sseExpf(x, false) }

// SSEExpfFTZ is one lane of esl_sse_expf inside hmmsearch, whose
// flush-to-zero mode turns every subnormal intermediate and result into
// zero (see ExpfFTZ).
func SSEExpfFTZ(x float32) float32 { return sseExpf(x, true) }

func sseExpf(x float32, ftz bool) float32 {
	if x > sseMaxLog {
		return float32(math.Inf(1))
	}
	if x <= sseMinLog {
		return 0
	}
	if x != x {
		return x
	}
	// Each float32(...) is one rounded SSE operation (and keeps Go from
	// fusing a multiply into the following add).
	// floor(x*log2e + 0.5) the SSE2 way: truncate, then step down by one
	// where truncation went up (negative non-integers).
	fx := flush(float32(flush(float32(x*sseLog2e), ftz)+0.5), ftz)
	tmp := float32(cvtt(fx))
	if tmp > fx {
		tmp--
	}
	fx = tmp
	k := cvtt(fx)

	x = flush(x-flush(float32(fx*sseLn2Hi), ftz), ftz)
	x = flush(x-flush(float32(fx*sseLn2Lo), ftz), ftz)
	z := flush(float32(x*x), ftz)
	y := ssePoly[0]
	for _, c := range ssePoly[1:] {
		y = flush(flush(float32(y*x), ftz)+c, ftz)
	}
	y = flush(flush(float32(y*z), ftz)+x, ftz)
	y = flush(y+1, ftz)
	// 2^k from its exponent bits; k = -127 gives bits 0, i.e. 0.0, as in
	// the C code.
	pow2k := math.Float32frombits(uint32(k+127) << 23)
	return flush(float32(y*pow2k), ftz)
}

func flush(v float32, on bool) float32 {
	if on {
		return Flush32(v)
	}
	return v
}

// cvtt is the SSE2 float-to-int32 truncating conversion: NaN and values
// out of int32 range give the "integer indefinite" 0x80000000.
func cvtt(v float32) int32 {
	if v != v || v >= 2147483648 || v < -2147483648 {
		return math.MinInt32
	}
	return int32(v)
}
