package search

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// log2DblMax is HMMER2's sreLOG2(DBL_MAX), the score beyond which a
// P-value is taken as exactly 0 (or 1 for its negative).
var log2DblMax = math.Log(math.MaxFloat64) * 1.44269504

// dblEpsilonCut is -log(-log(DBL_EPSILON)), ExtremeValueP's lower cut.
var dblEpsilonCut = -1. * math.Log(-1.*math.Log(0x1p-52))

// PValue is HMMER2's PValue(): the Bayesian bound 1/(1+2^sc), improved
// by the EVD tail when the model is calibrated.
func PValue(h *plan7.HMM, sc float32) float64 {
	var pval float64
	switch {
	case float64(sc) >= log2DblMax:
		pval = 0
	case float64(sc) <= -1.*log2DblMax:
		pval = 1
	default:
		pval = 1. / (1. + math.Exp(float64(sc)*0.69314718))
	}
	if h != nil && h.HasStats {
		if p2 := ExtremeValueP(sc, h.Mu, h.Lambda); p2 < pval {
			pval = p2
		}
	}
	return pval
}

// ExtremeValueP is P(S > x) under an extreme value distribution, with
// HMMER2's float/double mix and its cut-offs near 0 and 1.
func ExtremeValueP(x, mu, lambda float32) float64 {
	lx := lambda * (x - mu) // float, as in HMMER2
	if float64(lx) <= dblEpsilonCut {
		return 1.0
	}
	if float64(lx) >= 2.3*308 {
		return 0.0
	}
	y := math.Exp(-1. * float64(lambda) * float64(x-mu))
	if y < 1e-7 {
		return y
	}
	return 1.0 - math.Exp(-1.*y)
}

// gammln is squid's Gammln(): ln Gamma(x) by Lanczos' approximation.
func gammln(x float64) float64 {
	cof := [11]float64{
		4.694580336184385e+04,
		-1.560605207784446e+05,
		2.065049568014106e+05,
		-1.388934775095388e+05,
		5.031796415085709e+04,
		-9.601592329182778e+03,
		8.785855930895250e+02,
		-3.155153906098611e+01,
		2.908143421162229e-01,
		-2.319827630494973e-04,
		1.251639670050933e-10,
	}
	xx := x - 1.0
	tmp := xx + 11.0
	tx := tmp
	value := 1.0
	for i := 10; i >= 0; i-- {
		value += cof[i] / tmp
		tmp -= 1.0
	}
	value = math.Log(value)
	tx += 0.5
	value += 0.918938533 + float64((xx+0.5)*math.Log(tx)) - tx
	return value
}

// incompleteGamma is squid's IncompleteGamma(): Q(a,x), the chi-square
// tail probability with 2a degrees of freedom at 2x.
func incompleteGamma(a, x float64) float64 {
	if x > a+1 {
		nu0, de0, nu1, de1 := 0., 1., 1., x
		oldp := nu1
		for iter := 1; iter < 100; iter++ {
			fi := float64(iter)
			nu0 = nu1 + float64((fi-a)*nu0)
			de0 = de1 + float64((fi-a)*de0)
			nu1 = float64(x*nu0) + float64(fi*nu1)
			de1 = float64(x*de0) + float64(fi*de1)
			if de1 != 0 {
				nu0 /= de1
				de0 /= de1
				nu1 /= de1
				de1 = 1
			}
			if math.Abs((nu1-oldp)/nu1) < 1.e-7 {
				return nu1 * math.Exp(float64(a*math.Log(x))-x-gammln(a))
			}
			oldp = nu1
		}
		return math.NaN()
	}
	p := 1. / a
	val := p
	for iter := 1; iter < 10000; iter++ {
		val *= x / (a + float64(iter))
		p += val
		if math.Abs(val/p) < 1.e-7 {
			return 1. - p*math.Exp(float64(a*math.Log(x))-x-gammln(a))
		}
	}
	return math.NaN()
}
