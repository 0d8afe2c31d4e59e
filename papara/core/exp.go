package core

import "math"

// The gap model needs exp(t*λ) for branch lengths t. PaPaRa 2.5 calls the
// C library's exp (glibc), which rounds to the nearest double in all but
// astronomically rare cases; Go's math.Exp is off by one unit in the last
// place for about one argument in eight. The CGAP decision compares two
// products of these values, so we compute exp in double-double precision
// and round once, which reproduces glibc's results.

// ln2Hi + ln2Lo is ln 2 to about 107 bits.
const (
	ln2Hi = 0x1.62e42fefa39efp-1
	ln2Lo = 0x1.abc9e3b39803fp-56
)

// dd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	e := (a - (s - bb)) + (b - bb)
	return dd{s, e}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func ddMulFloat(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func ddDivFloat(a dd, b float64) dd {
	q1 := a.hi / b
	p := twoProd(q1, b)
	r := ddAdd(a, dd{-p.hi, -p.lo})
	q2 := r.hi / b
	return quickTwoSum(q1, q2)
}

// exactExp returns exp(x) rounded to the nearest double.
func exactExp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x == 0:
		return 1
	case x > 709.79:
		return math.Inf(1)
	case x < -745.2:
		return 0
	}
	// x = k*ln2 + r with |r| <= ln2/2, r carried in double-double.
	k := math.Round(x / math.Ln2)
	r := ddAdd(dd{x, 0}, ddMulFloat(dd{ln2Hi, ln2Lo}, -k))
	// Shrink r by 2^-8 so the Taylor series converges in few terms, then
	// square the result back up 8 times.
	r = dd{math.Ldexp(r.hi, -8), math.Ldexp(r.lo, -8)}
	sum := dd{1, 0}
	term := dd{1, 0}
	for n := 1; n <= 14; n++ {
		term = ddDivFloat(ddMul(term, r), float64(n))
		sum = ddAdd(sum, term)
	}
	for i := 0; i < 8; i++ {
		sum = ddMul(sum, sum)
	}
	// Round hi+lo once, then scale by 2^k (exact unless subnormal).
	v := sum.hi + sum.lo
	return math.Ldexp(v, int(k))
}
