package msvfilter

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// randomProfile makes a byte profile with arbitrary costs and bias, the
// extremes (cost 0 and 255) included, to exercise saturation and overflow.
func randomProfile(rng *rand.Rand, M, Kp int) *oprofile.MSVProfile {
	return randomProfileBias(rng, M, Kp, uint8(rng.Intn(30)))
}

// randomProfileBias is randomProfile with the given bias.
func randomProfileBias(rng *rand.Rand, M, Kp int, bias uint8) *oprofile.MSVProfile {
	p := &oprofile.MSVProfile{M: M, Scale: float32(3 / math.Ln2), Base: 190}
	p.Bias = bias
	p.TBM = uint8(10 + rng.Intn(60))
	p.TEC = 3
	p.TJB = uint8(5 + rng.Intn(40))
	p.RBV = make([][]uint8, Kp)
	p.SBV = make([][]int8, Kp)
	n := (M+7)/8*8 + 8
	p.Padded = make([][]byte, Kp)
	for x := 0; x < Kp; x++ {
		p.RBV[x] = make([]uint8, M+1)
		p.SBV[x] = make([]int8, M+1)
		p.Padded[x] = make([]byte, n)
		for k := 1; k <= M; k++ {
			var c int
			switch rng.Intn(10) {
			case 0:
				c = 255
			case 1:
				c = 0
			default:
				c = int(p.Bias) + rng.Intn(40) - 10
			}
			c = max(0, min(255, c))
			p.RBV[x][k] = uint8(c)
			p.SBV[x][k] = int8(uint8(max(0, int(p.Bias)+127-c)) ^ 127)
			p.Padded[x][k] = uint8(c)
		}
		for k := M + 1; k < n; k++ {
			p.Padded[x][k] = 255
		}
	}
	p.Stripe()
	return p
}

// TestKernelsMatchReference runs every kernel this machine has (generic
// SWAR, SSE2, AVX2) against the scalar reference on random profiles,
// costs 0 and 255 and every bias included, so that saturation, the SSV
// overflow and fallback paths and MSV's row overflow all occur. Models
// span 1 to 15 SSV bands (1 to 3 with AVX-512's 64 lanes, every band
// width up to 16) and sequences include the empty one.
func TestKernelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 3000; trial++ {
		M := 1 + rng.Intn(70)
		if trial%10 == 0 {
			M = 1 + rng.Intn(2600)
		}
		p := randomProfile(rng, M, 29)
		dsq := make([]byte, rng.Intn(300))
		for i := range dsq {
			dsq[i] = byte(rng.Intn(29))
		}
		want := RefScore(dsq, p)
		for _, l := range simd.Available() {
			if got := scoreWith(l, dsq, p); math.Float32bits(want) != math.Float32bits(got) {
				t.Fatalf("trial %d (M=%d L=%d bias=%d): %s kernel %v, reference %v", trial, M, len(dsq), p.Bias, l, got, want)
			}
		}
	}
}

// TestKernelPathsCovered checks that the random profiles above reach each
// of the reference's outcomes: an SSV score, an SSV overflow, and the
// full MSV program (with and without overflow), so a kernel cannot pass
// by never meeting one.
func TestKernelPathsCovered(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var ssvScore, ssvInf, msvScore, msvInf int
	for trial := 0; trial < 3000; trial++ {
		M := 1 + rng.Intn(70)
		if trial%10 == 0 {
			M = 1 + rng.Intn(1700)
		}
		p := randomProfile(rng, M, 29)
		dsq := make([]byte, rng.Intn(300))
		for i := range dsq {
			dsq[i] = byte(rng.Intn(29))
		}
		sc, ok := ssv(dsq, p)
		switch {
		case ok && math.IsInf(float64(sc), 1):
			ssvInf++
		case ok:
			ssvScore++
		case math.IsInf(float64(msvDP(dsq, p)), 1):
			msvInf++
		default:
			msvScore++
		}
	}
	t.Logf("SSV score %d, SSV overflow %d, MSV score %d, MSV overflow %d", ssvScore, ssvInf, msvScore, msvInf)
	if ssvScore == 0 || ssvInf == 0 || msvScore == 0 || msvInf == 0 {
		t.Errorf("a path is never exercised: SSV score %d, SSV overflow %d, MSV score %d, MSV overflow %d", ssvScore, ssvInf, msvScore, msvInf)
	}
}

func TestSWARMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 3000; trial++ {
		M := 1 + rng.Intn(70)
		p := randomProfile(rng, M, 29)
		dsq := make([]byte, rng.Intn(300))
		for i := range dsq {
			dsq[i] = byte(rng.Intn(29))
		}
		want, got := RefScore(dsq, p), Score(dsq, p)
		if math.Float32bits(want) != math.Float32bits(got) {
			t.Fatalf("trial %d (M=%d L=%d bias=%d): swar %v, reference %v", trial, M, len(dsq), p.Bias, got, want)
		}
	}
}

func FuzzKernelsMatchReference(f *testing.F) {
	f.Add(int64(1), []byte{1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, seed int64, dsq []byte) {
		rng := rand.New(rand.NewSource(seed))
		p := randomProfile(rng, 1+rng.Intn(100), 29)
		for i := range dsq {
			dsq[i] %= 29
		}
		w := RefScore(dsq, p)
		for _, l := range simd.Available() {
			if g := scoreWith(l, dsq, p); math.Float32bits(w) != math.Float32bits(g) {
				t.Fatalf("%s kernel %v, reference %v", l, g, w)
			}
		}
	})
}
