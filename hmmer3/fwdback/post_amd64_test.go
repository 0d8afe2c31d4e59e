package fwdback

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// TestFlushLikeSSE checks fmul's flush-to-zero against the SSE unit
// (through the decoding kernel, which multiplies with FTZ on) on products
// at and around the threshold, where x86's tininess-after-rounding rule
// differs from rounding to float32 first.
func TestFlushLikeSSE(t *testing.T) {
	if simd.Best < simd.SSE {
		t.Skip("no SSE kernels on this machine")
	}
	rng := rand.New(rand.NewSource(3))
	var as, bs []float32
	as = append(as, math.Float32frombits(0x3f7fffff)) // (1-2^-24) * FLT_MIN = 2^-126 - 2^-150: flushed
	bs = append(bs, math.Float32frombits(0x00800000))
	for len(as) < 40000 {
		// a*b within a few ulps of FLT_MIN.
		a := float32(math.Ldexp(1+rng.Float64(), -rng.Intn(100)))
		b := float32(0x1p-126 / float64(a) * (1 + (rng.Float64()-0.5)*1e-6))
		as, bs = append(as, a, wildFloat(rng)), append(bs, b, wildFloat(rng))
	}
	n := len(as) / 4 * 4
	f, b, want := make([]vec, n/4*3), make([]vec, n/4*3), make([]float32, n)
	for j := 0; j < n; j++ {
		f[j/4*3][j%4], b[j/4*3][j%4] = as[j], bs[j]
		want[j] = fmul(fmul(as[j], bs[j]), 1)
	}
	p := make([]vec, len(f))
	decodeRowsSSE(asVec4(f), asVec4(b), asVec4(p), n/4, &[]float32{1}[0], 1)
	flushed := 0
	for j := 0; j < n; j++ {
		got := p[j/4*3][j%4]
		if !sameF(got, want[j]) {
			t.Fatalf("%g * %g: SSE %g (%08x), fmul %g (%08x)", as[j], bs[j], got, math.Float32bits(got), want[j], math.Float32bits(want[j]))
		}
		if got == 0 && as[j] != 0 && bs[j] != 0 {
			flushed++
		}
	}
	if flushed == 0 {
		t.Fatal("no product was flushed: the test is not reaching the threshold")
	}
	if got := fmul(as[0], bs[0]); got != 0 {
		t.Fatalf("(1-2^-24) * FLT_MIN = %g, want 0 as SSE gives", got)
	}
}
