package pairhmm

import (
	"math"
	"math/big"
	"sync"
)

// GKL builds its double tables with glibc's pow, which rounds (almost
// always) correctly; Go's math.Pow is off by an ulp for about half of the
// entries. The double tables only feed the rare double-precision
// recomputation and are built once, so 10^y is computed here with 160-bit
// arithmetic and rounded once. Together with math.Log1p (the same fdlibm
// algorithm as glibc's log1p) this reproduces GKL's double tables except
// three low-quality entries (TestTablesMatchGKL lists them).

const bigPrec = 160

var (
	bigConstOnce sync.Once
	bigLn2       *big.Float
	bigLn10      *big.Float
)

func newBig() *big.Float { return new(big.Float).SetPrec(bigPrec) }

// bigAtanh sums x + x^3/3 + x^5/5 + ... for |x| <= 1/3.
func bigAtanh(x *big.Float) *big.Float {
	sum := newBig().Set(x)
	x2 := newBig().Mul(x, x)
	pow := newBig().Set(x)
	term := newBig()
	eps := newBig().SetMantExp(big.NewFloat(1), -bigPrec-8)
	for n := int64(3); ; n += 2 {
		pow.Mul(pow, x2)
		term.Quo(pow, newBig().SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || newBig().Abs(term).Cmp(eps) < 0 {
			return sum
		}
	}
}

func bigConsts() {
	bigConstOnce.Do(func() {
		third := newBig().Quo(newBig().SetInt64(1), newBig().SetInt64(3))
		ninth := newBig().Quo(newBig().SetInt64(1), newBig().SetInt64(9))
		bigLn2 = newBig().Mul(newBig().SetInt64(2), bigAtanh(third))
		// ln 10 = 3 ln 2 + ln(5/4), ln(5/4) = 2 atanh(1/9)
		bigLn10 = newBig().Mul(newBig().SetInt64(3), bigLn2)
		bigLn10.Add(bigLn10, newBig().Mul(newBig().SetInt64(2), bigAtanh(ninth)))
	})
}

// bigExp returns e^z for moderate z.
func bigExp(z *big.Float) *big.Float {
	bigConsts()
	kf, _ := newBig().Quo(z, bigLn2).Float64()
	k := math.Round(kf)
	r := newBig().Sub(z, newBig().Mul(newBig().SetFloat64(k), bigLn2))
	sum := newBig().SetInt64(1)
	term := newBig().SetInt64(1)
	eps := newBig().SetMantExp(big.NewFloat(1), -bigPrec-8)
	for n := int64(1); n < 400; n++ {
		term.Mul(term, r)
		term.Quo(term, newBig().SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || newBig().Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

// exp10 returns 10^y correctly rounded to double.
func exp10(y float64) float64 {
	if math.IsInf(y, -1) {
		return 0
	}
	bigConsts()
	z := newBig().Mul(newBig().SetFloat64(y), bigLn10)
	f, _ := bigExp(z).Float64()
	return f
}
