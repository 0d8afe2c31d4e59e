package easel

import (
	"fmt"
	"testing"
)

// The first numbers of Easel's fast generator, printed by a small C
// program linked against Easel 0.48 (esl_randomness_CreateFast).
func TestRandomMatchesEasel(t *testing.T) {
	r := NewRandom(42)
	for i, want := range []float64{0x1.9cbd554p-4, 0x1.aec6308ap-1, 0x1.35b5e084p-1, 0x1.f8f7db6p-5, 0x1.0cffe8cp-1} {
		if got := r.Float64(); got != want {
			t.Fatalf("draw %d = %x, Easel %x", i, got, want)
		}
	}
	r.Init(7)
	if got, want := r.Float64(), 0x1.394cca1p-2; got != want {
		t.Fatalf("after reseeding with 7: %x, Easel %x", got, want)
	}
	if r.Seed() != 7 {
		t.Fatal("Seed must report the last seed")
	}
}

func TestSurvivalMatchesEasel(t *testing.T) {
	for _, c := range []struct{ got, want float64 }{
		{GumbelSurv(10.0, -8.5, 0.72), 0x1.b897a8f88p-20},
		{GumbelSurv(-20.0, -8.5, 0.72), 1},
		{ExpSurv(20.0, -4.5, 0.72), 0x1.77077fc81f8f3p-26},
		{ExpSurv(-5, -4.5, 0.72), 1},
		{ExpLogSurv(-5, -4.5, 0.72), 0},
	} {
		if c.got != c.want {
			t.Errorf("got %x, Easel %x", c.got, c.want)
		}
	}
}

func TestFSumIsKahan(t *testing.T) {
	v := []float32{1, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8}
	var plain float32
	for _, x := range v {
		plain += x
	}
	if plain != 1 || FSum(v) == 1 {
		t.Fatalf("plain %v, Kahan %v: compensation lost", plain, FSum(v))
	}
}

func TestFNormAndChoose(t *testing.T) {
	p := []float32{0, 0}
	FNorm(p)
	if p[0] != 0.5 || p[1] != 0.5 {
		t.Fatalf("all-zero vector must become uniform, got %v", p)
	}
	r := NewRandom(1)
	counts := [3]int{}
	for i := 0; i < 30000; i++ {
		counts[FChoose(r, []float32{0.2, 0.3, 0.5})]++
	}
	if counts[0] < 5500 || counts[0] > 6500 || counts[2] < 14000 || counts[2] > 16000 {
		t.Fatalf("FChoose frequencies %v", counts)
	}
}

func TestSingleLinkage(t *testing.T) {
	// 0-1-2 chained, 3 alone, 4-5 linked: three clusters, numbered in
	// Easel's order (the first cluster holds item 0).
	links := map[[2]int]bool{{0, 1}: true, {1, 2}: true, {4, 5}: true}
	a, n := SingleLinkage(6, func(x, y int) bool { return links[[2]int{min(x, y), max(x, y)}] })
	if n != 3 || a[0] != a[1] || a[1] != a[2] || a[4] != a[5] || a[3] == a[0] || a[3] == a[4] || a[0] != 0 {
		t.Fatalf("clusters %v (n=%d)", a, n)
	}
}

func ExampleRandom() {
	r := NewRandom(42)
	fmt.Printf("%.6f\n", r.Float64())
	// Output: 0.100766
}
