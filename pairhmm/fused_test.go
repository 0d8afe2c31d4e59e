package pairhmm

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/hmmgo/hmmgo/internal/ftz"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// exactFMA32 is a*b + c computed exactly with big.Float and rounded once
// to float32 (nearest, ties to even, subnormals kept), then flushed as
// fma32 specifies: zero when the exact value rounds, with an unbounded
// exponent, below FLT_MIN.
func exactFMA32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetFloat64(float64(c)))
	if v, _ := x.Float64(); math.Abs(v) < ftz.FlushBelow {
		// v is within an ulp of float64 of x, and the threshold has
		// 25 significant bits: compare exactly to be sure.
		t := new(big.Float).SetFloat64(ftz.FlushBelow)
		if new(big.Float).Abs(x).Cmp(t) < 0 {
			return float32(math.Copysign(0, v))
		}
	}
	f, _ := x.Float32()
	return f
}

// naiveFMA32 rounds twice (to float64, then to float32): the shortcut
// fma32 must not take.
func naiveFMA32(a, b, c float32) float32 {
	return ftz.Round64(math.FMA(float64(a), float64(b), float64(c)))
}

func TestFMA32(t *testing.T) {
	check := func(a, b, c float32) bool {
		want := exactFMA32(a, b, c)
		for _, f := range []func(a, b, c float32) float32{fma32, fma32Slow} {
			if got := f(a, b, c); math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("fma32 (or fma32Slow)(%x, %x, %x) = %x, exact %x", a, b, c, got, want)
				return false
			}
		}
		return true
	}
	rng := rand.New(rand.NewPCG(9, 3))
	randFloat := func(lo, hi int) float32 {
		m := 1 + rng.Float64()
		if rng.IntN(2) == 0 {
			m = -m
		}
		return float32(math.Ldexp(m, lo+rng.IntN(hi-lo+1)))
	}
	for i := 0; i < 200000; i++ {
		a, b := randFloat(-70, 70), randFloat(-70, 70)
		// c near a*b in magnitude (cancellation) or anywhere.
		var c float32
		if i%2 == 0 {
			c = float32(float64(a) * float64(b) * (-1 + 0x1p-20*rng.Float64()))
		} else {
			c = randFloat(-140, 140)
		}
		if !check(a, b, c) {
			return
		}
	}
	// Double rounding: a*b = 2^k (1 - 2^-46) beside c with an odd
	// significand and an ulp of 2^(k+1). In float64 the sum lands exactly
	// half-way between two floats and ties away from c; the exact value
	// is just below the half-way point, so the answer is c.
	a := float32(1 + 0x1p-23)
	naiveWrong := 0
	for k := -100; k <= 100; k += 3 {
		b := float32(math.Ldexp(1-0x1p-23, k))
		for _, m := range []float64{1 + 0x1p-23, 1 + 3*0x1p-23, 2 - 0x1p-23} {
			for _, sign := range []float64{1, -1} {
				c := float32(sign * math.Ldexp(m, k+24))
				bb := b * float32(sign)
				if !check(a, bb, c) {
					return
				}
				if naiveFMA32(a, bb, c) != exactFMA32(a, bb, c) {
					naiveWrong++
				}
			}
		}
	}
	if naiveWrong == 0 {
		t.Error("no double-rounding case among the adversarial inputs: the test has lost its teeth")
	}
	// Results at the flush threshold: a*b + c around FLT_MIN.
	for i := 0; i < 100000; i++ {
		a := randFloat(-64, -62)
		b := randFloat(-64, -62)
		c := float32(-float64(a)*float64(b)) + float32(math.Ldexp(float64(rng.IntN(5)-2), -126-rng.IntN(3)))
		if !check(a, b, c) {
			return
		}
	}
	t.Logf("the double-rounding shortcut was wrong in %d adversarial cases", naiveWrong)
}

func TestParseArith(t *testing.T) {
	for _, a := range []Arith{ArithGKL, ArithFused} {
		if got, err := ParseArith(a.String()); got != a || err != nil {
			t.Errorf("ParseArith(%q) = %v, %v", a, got, err)
		}
	}
	if a, err := ParseArith(""); a != ArithGKL || err != nil {
		t.Errorf(`ParseArith("") = %v, %v`, a, err)
	}
	if _, err := ParseArith("fma"); err == nil {
		t.Error("unknown arithmetic accepted")
	}
	if err := NewCPU(CPUOptions{Arith: ArithFused, Kernel: "avx512"}).Compute(nil, nil); (err == nil) != (runtime.GOARCH == "amd64" && simd.Best >= simd.AVX512) {
		t.Errorf("fused arithmetic with the avx512 kernel on a CPU of level %v: %v", simd.Best, err)
	}
	if err := NewCPU(CPUOptions{Arith: ArithFused, Kernel: "sse"}).Compute(nil, nil); err == nil {
		t.Error("fused arithmetic accepted with an sse kernel, which it lacks")
	}
	if got := NewCPU(CPUOptions{Arith: ArithFused, Kernel: "go", Threads: 2}).Name(); got != "cpu/go, fused arithmetic (2 threads)" {
		t.Errorf("name %q", got)
	}
	if k := fusedLaneKernels.best(simd.Generic); k.name != "go" || !k.fused {
		t.Errorf("auto capped at Generic: %s", k.name)
	}
	for _, k := range fusedLaneKernels.available() {
		if !k.fused {
			t.Errorf("fused kernel %s computes GKL's arithmetic", k.name)
		}
	}
}

// TestFusedReferenceSets holds the fused arithmetic to the rule on
// tiny, 10s and 1m: every pair within 1e-4 (log10) of the double-precision
// reference, finite where it is finite. It also counts how many pairs
// differ from GKL's arithmetic at all.
func TestFusedReferenceSets(t *testing.T) {
	for _, ds := range datasets {
		if testing.Short() && ds.name == "1m" {
			continue
		}
		groups := loadGroups(t, testutil.SharedData(t, ds.input))
		ref := readTSV(t, testutil.SharedData(t, ds.reference))
		res, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Arith: ArithFused, Kernel: "go"})})
		if err != nil {
			t.Fatal(err)
		}
		gkl, err := ComputeGroups(groups, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, old := flatten(res), flatten(gkl)
		if len(got) != len(ref) {
			t.Fatalf("%s: %d results, reference has %d", ds.name, len(got), len(ref))
		}
		worst, worstGKL, differ := 0.0, 0.0, 0
		for i, row := range ref {
			want := parseNum(t, row[8])
			d := math.Abs(got[i] - want)
			if !(d <= 1e-4) {
				t.Errorf("%s pair %s: fused %v, reference %v", ds.name, row[0], got[i], want)
			}
			worst = max(worst, d)
			worstGKL = max(worstGKL, math.Abs(old[i]-want))
			if got[i] != old[i] {
				differ++
			}
		}
		t.Logf("%s: %d pairs, largest difference to the reference %.2g (gkl arithmetic %.2g), %d pairs differ from gkl",
			ds.name, len(got), worst, worstGKL, differ)
	}
}

// TestFusedSynthetic: the synthetic cases of TestSyntheticAgainstReference
// (low qualities, long reads and haplotypes, double and rescaled passes)
// in the fused arithmetic.
func TestFusedSynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for _, c := range syntheticCases {
		g := c.group(rng)
		res, err := ComputeGroups([]Group{g}, Options{Backend: NewCPU(CPUOptions{Arith: ArithFused})})
		if err != nil {
			t.Fatal(err)
		}
		checkSynthetic(t, c.name+"/fused", c, g, res[0])
	}
}

// TestFusedKernelsIdentical: every generated fused kernel this CPU runs
// gives the portable fused kernel's raw sums, bit for bit, with every
// strip height, on mixed lengths, hard cases (low qualities: results near
// the flush threshold) and 10s; and the same likelihoods through the
// backend, 1m included.
func TestFusedKernelsIdentical(t *testing.T) {
	ks := fusedLaneKernels.available()[1:]
	if len(ks) == 0 {
		t.Skip("no AVX2 on this CPU: only the portable fused kernel can run")
	}
	groups := append(append(mixedGroups(5), hardGroups(6)...), loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))...)
	want := rawSums(goFusedLaneKernel, groups)
	for _, k := range ks {
		for strip := 1; strip <= k.maxStrip; strip++ {
			kk := k
			kk.strip = strip
			sameRaw(t, fmt.Sprintf("fused %s strip %d", k.name, strip), want, rawSums(kk, groups), "go", k.name)
		}
		groups := append(groups, loadGroups(t, testutil.SharedData(t, "PairHMM/1m.in.gz"))...)
		a, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Arith: ArithFused, Kernel: "go"})})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Arith: ArithFused, Kernel: k.name})})
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, "fused "+k.name, b, a)
		t.Logf("fused %s: %d raw sums identical, strips 1..%d", k.name, len(want), k.maxStrip)
	}
}
