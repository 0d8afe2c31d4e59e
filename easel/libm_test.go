package easel

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

func TestLogGolden(t *testing.T)  { check64(t, "log", Log) }
func TestExpGolden(t *testing.T)  { check64(t, "exp", Exp) }
func TestLogfGolden(t *testing.T) { check32(t, "logf", Logf) }

// The exp table is mathematics: scale(k) = 2^(k/128) rounded to double,
// tail(k) = 2^(k/128)/scale(k) - 1 rounded. Re-derive it.
func TestExpTable(t *testing.T) {
	for k := 0; k < 128; k++ {
		x := new(big.Float).SetPrec(300).SetMantExp(big.NewFloat(1).SetPrec(300), k)
		for j := 0; j < 7; j++ {
			x.Sqrt(x)
		}
		h, _ := x.Float64()
		q := new(big.Float).SetPrec(300).Quo(x, new(big.Float).SetPrec(300).SetFloat64(h))
		tail, _ := q.Sub(q, big.NewFloat(1)).Float64()
		if expTab[2*k] != math.Float64bits(tail) || expTab[2*k+1]+uint64(k)<<45 != math.Float64bits(h) {
			t.Errorf("exp table entry %d does not match 2^(%d/128)", k, k)
		}
	}
}

// glibc's log, exp and logf are not correctly rounded, and neither is Go's
// math: they must disagree somewhere, or these are plain wrappers.
func TestLibmDiffersFromGo(t *testing.T) {
	nl, ne, nf := 0, 0, 0
	for i := 1; i < 200000; i++ {
		x := float64(i) / 100000
		if Log(x) != math.Log(x) {
			nl++
		}
		if Exp(x*10-10) != math.Exp(x*10-10) {
			ne++
		}
	}
	for u := uint32(0x3f000000); u < 0x40000000; u += 97 {
		x := math.Float32frombits(u)
		if Logf(x) != float32(math.Log(float64(x))) {
			nf++
		}
	}
	if nl == 0 || ne == 0 || nf == 0 {
		t.Errorf("differences from package math: log %d, exp %d, logf %d", nl, ne, nf)
	}
}

func TestLibmSpecials(t *testing.T) {
	inf := math.Inf(1)
	if !math.IsInf(Log(0), -1) || !math.IsNaN(Log(-1)) || Log(inf) != inf || Log(1) != 0 {
		t.Error("Log specials")
	}
	if Exp(math.Inf(-1)) != 0 || Exp(inf) != inf || !math.IsNaN(Exp(math.NaN())) || Exp(0) != 1 || Exp(1000) != inf {
		t.Error("Exp specials")
	}
	if Exp(-720) == 0 || ExpFTZ(-720) != 0 || ExpFTZ(-700) != Exp(-700) {
		t.Error("subnormal exp: kept by Exp, flushed by ExpFTZ")
	}
	if !math.IsInf(float64(Logf(0)), -1) || !math.IsNaN(float64(Logf(-1))) || Logf(1) != 0 {
		t.Error("Logf specials")
	}
}

func ExampleLog() {
	// HMMER's scores are log(p) in double, stored to float.
	p := ExpfFTZ(-2.36553)
	fmt.Printf("%.9g %.9g\n", float32(Log(float64(p))), Logf(p))
	// Output: -2.36553001 -2.36553001
}
