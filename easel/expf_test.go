package easel

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

func TestExpfGolden(t *testing.T)     { check32(t, "expf", Expf) }
func TestExpfFTZGolden(t *testing.T)  { check32(t, "expf_ftz", ExpfFTZ) }
func TestExpfSSE2Golden(t *testing.T) { check32(t, "expf_sse2", ExpfSSE2) }

// The table must be 2^(i/32) correctly rounded: recompute it as five
// nested square roots of 2^i in 200-bit arithmetic.
func TestExpfTable(t *testing.T) {
	for i, v := range expfPow2 {
		x := new(big.Float).SetPrec(200).SetMantExp(big.NewFloat(1).SetPrec(200), i)
		for j := 0; j < 5; j++ {
			x.Sqrt(x)
		}
		want, _ := x.Float64()
		if v != want {
			t.Errorf("2^(%d/32): table %x, want %x", i, v, want)
		}
	}
}

// The FMA and SSE2 variants of glibc's expf differ on exactly two float
// inputs (found by comparing all 2^32); these pin both down.
func TestExpfVariantsDiffer(t *testing.T) {
	for _, c := range []struct{ x, fma, sse2 uint32 }{
		{0x4202422f, 0x56fc9f1c, 0x56fc9f1b},
		{0xc27c65d9, 0x11fa2993, 0x11fa2992},
	} {
		x := math.Float32frombits(c.x)
		if got := math.Float32bits(Expf(x)); got != c.fma {
			t.Errorf("Expf(%g) = %08x, want %08x", x, got, c.fma)
		}
		if got := math.Float32bits(ExpfSSE2(x)); got != c.sse2 {
			t.Errorf("ExpfSSE2(%g) = %08x, want %08x", x, got, c.sse2)
		}
	}
}

// Expf is not correctly rounded: it must differ from float32(math.Exp)
// somewhere in a dense sample, or the emulation has collapsed into a
// plain exp.
func TestExpfNotCorrectlyRounded(t *testing.T) {
	n := 0
	for u := uint32(0xc0000000); u < 0xc1000000; u += 7 {
		x := math.Float32frombits(u)
		if Expf(x) != float32(math.Exp(float64(x))) {
			n++
		}
	}
	if n == 0 {
		t.Error("Expf agrees with a correctly rounded exp everywhere sampled")
	}
}

func TestExpfSpecials(t *testing.T) {
	if Expf(float32(math.Inf(-1))) != 0 || !math.IsInf(float64(Expf(float32(math.Inf(1)))), 1) {
		t.Error("infinities")
	}
	if x := Expf(float32(math.NaN())); x == x {
		t.Error("NaN")
	}
	if Expf(0) != 1 || Expf(float32(math.Copysign(0, -1))) != 1 {
		t.Error("exp(0) != 1")
	}
	if Expf(-95) == 0 || ExpfFTZ(-95) != 0 {
		t.Error("subnormal result: kept by Expf, flushed by ExpfFTZ")
	}
}

func TestFlush32(t *testing.T) {
	if Flush32(0x1p-127) != 0 || Flush32(0x1p-126) != 0x1p-126 || Flush32(-1) != -1 {
		t.Error("Flush32")
	}
	if b := math.Float32bits(Flush32(-0x1p-140)); b != 0x80000000 {
		t.Errorf("Flush32 keeps the sign: got %08x", b)
	}
}

func ExampleExpfFTZ() {
	// A model file stores -ln(p) with five decimals; HMMER reads it back
	// with expf in single precision.
	p := ExpfFTZ(-float32(2.36553))
	fmt.Printf("%.9g %08x\n", p, math.Float32bits(p))
	// Output: 0.0938995183 3dc04e64
}

func BenchmarkExpf(b *testing.B) {
	x := float32(-2.36553)
	var s float32
	for i := 0; i < b.N; i++ {
		s += Expf(x)
	}
	_ = s
}
