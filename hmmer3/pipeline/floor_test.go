package pipeline

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// gumbelFloor may only skip scores whose computed P-value exceeds p, and
// must sit close under the crossing so that it skips nearly all of them.
func TestGumbelFloor(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, p := range []float64{1e-300, 1e-10, 1e-5, 1e-3, 0.02, 0.5, 0.99} {
		for _, lambda := range []float64{0.01, 0.693147, 5} {
			for _, mu := range []float64{-10, 0, 20} {
				floor := gumbelFloor(p, mu, lambda)
				margin := 0.01 + 0.01/lambda
				for range 2000 {
					x := floor - rng.Float64()*margin*20
					if P := easel.GumbelSurv(x, mu, lambda); !(P > p) {
						t.Fatalf("p %g lambda %g mu %g: score %g under the floor %g has P %g", p, lambda, mu, x, floor, P)
					}
				}
				if x := math.Nextafter(floor, math.Inf(-1)); !(easel.GumbelSurv(x, mu, lambda) > p) {
					t.Fatalf("p %g lambda %g mu %g: just under the floor P <= p", p, lambda, mu)
				}
				if P := easel.GumbelSurv(floor+2*margin, mu, lambda); P > p {
					t.Errorf("p %g lambda %g mu %g: floor %g is more than a margin under the crossing (P %g there)", p, lambda, mu, floor, P)
				}
			}
		}
	}
	if f := gumbelFloor(1, 0, 0.69); !math.IsInf(f, -1) {
		t.Errorf("with F1 = 1 nothing may be skipped; floor %g", f)
	}
}

// msvFloorNats may only skip scores that bits() puts below the floor,
// for float32 score differences near it and far from it.
func TestMSVFloorNats(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, floor := range []float64{-999, -20, -0.3, 0, 1.7, 12.25, 999, math.Inf(-1), 5000} {
		lo := msvFloorNats(floor)
		skipped := 0
		for range 200_000 {
			var d float32
			switch rng.Intn(3) {
			case 0: // near the bound
				d = float32(floor*math.Ln2 + rng.NormFloat64()*1e-3)
			case 1:
				d = float32(rng.NormFloat64() * 50)
			default: // anywhere
				d = float32(rng.NormFloat64() * 1e5)
			}
			usc, null := d, float32(0)
			if float64(usc-null) < lo {
				skipped++
				if sc := float64(bits(usc, null)); !(sc < floor) {
					t.Fatalf("floor %v: skipped d=%v, whose bits %v are not below it", floor, d, sc)
				}
			}
		}
		if skipped == 0 && floor > -999 && floor < 999 {
			t.Errorf("floor %v: skipped nothing", floor)
		}
	}
}

// The process-wide null scores by length are bg.NullOne's after
// bg.SetLength, whatever the model's background, and growing the table
// while it is read changes none of them.
func TestNullTable(t *testing.T) {
	bg := profile.NewBackground(alphabet.New(alphabet.Amino))
	compo := make([]float32, bg.Abc.K)
	for i := range compo {
		compo[i] = 1 / float32(len(compo))
	}
	bg.SetFilter(150, compo)
	w := &worker{}
	for _, L := range []int{1, 2, 3, 400, 4095, 4096, 70_000, 17, 250_000} {
		bg.SetLength(L)
		if got, want := w.nullOne(L), bg.NullOne(L); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("L=%d: %v, want %v", L, got, want)
		}
	}
}

// leastMSV may only leave out scores that fail the MSV pass's floor
// test, float64(score-nullsc) < floorNats, for scores at the bound, near
// it and far from it, and must sit close under the bound.
func TestLeastMSV(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, floor := range []float64{-999, -20, 0, 1.7, 12.25, 999, math.Inf(-1)} {
		floorNats := msvFloorNats(floor)
		for range 20_000 {
			null := float32(-rng.ExpFloat64() * 20)
			least := leastMSV(floorNats, null)
			bound := floorNats + float64(null)
			var u float32
			switch rng.Intn(3) {
			case 0: // within a few float32 steps of the bound
				u = float32(bound)
				for range rng.Intn(8) {
					u = math.Nextafter32(u, float32(math.Inf(rng.Intn(2)*2-1)))
				}
			case 1:
				u = float32(bound + rng.NormFloat64()*1e-3)
			default:
				u = float32(rng.NormFloat64() * 1e4)
			}
			if !(float64(u-null) < floorNats) && !(u >= least) {
				t.Fatalf("floor %v, null %v: score %v passes the floor test but is under the least %v", floor, null, u, least)
			}
			if !math.IsInf(floorNats, -1) && float64(least) < bound-0.01*(1+math.Abs(bound)) {
				t.Fatalf("floor %v, null %v: least %v is far under the bound %v", floor, null, least, bound)
			}
		}
	}
	if least := leastMSV(math.Inf(-1), -3); !math.IsInf(float64(least), -1) {
		t.Errorf("with no floor every score must be listed; least %v", least)
	}
}
