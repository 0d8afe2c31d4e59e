package pairhmm

import (
	"fmt"
	"math"

	"github.com/hmmgo/hmmgo/internal/ftz"
)

// Arith selects the floating-point arithmetic of the recurrence. Both
// compute GATK's model (same priors, caps, transition probabilities,
// initial constants, float pass and double recomputation below
// MIN_ACCEPTED); they differ in how a cell's products and sums round.
type Arith uint8

const (
	// ArithGKL is GKL's arithmetic: twelve separately rounded products
	// and sums a cell, in GKL's order, so results equal GATK's to the bit.
	ArithGKL Arith = iota
	// ArithFused is the same model with fused multiply-adds, eight
	// operations a cell (fusedCell gives the order). Results differ from
	// GKL's in the last bits of the float pass (far inside 1e-4 in log10)
	// and are identical on every back end that supports it.
	ArithFused
)

func (a Arith) String() string {
	switch a {
	case ArithGKL:
		return "gkl"
	case ArithFused:
		return "fused"
	}
	return fmt.Sprintf("Arith(%d)", uint8(a))
}

// ParseArith returns the arithmetic called name ("" means gkl).
func ParseArith(name string) (Arith, error) {
	switch name {
	case "", "gkl":
		return ArithGKL, nil
	case "fused":
		return ArithFused, nil
	}
	return 0, fmt.Errorf("pairhmm: unknown arithmetic %q (want gkl or fused)", name)
}

// The fused cell, defined once here; pairhmm.cu (PH_FUSED=1) and every
// fused CPU kernel perform exactly these operations, each rounded once,
// with fma(a, b, c) = a*b + c rounded once:
//
//	M = fma(X[i-1][j-1] + Y[i-1][j-1], gapm, M[i-1][j-1]*mm) * prior
//	X = fma(M[i-1][j], mx, X[i-1][j]*gcp)
//	Y = fma(M[i][j-1], my, Y[i][j-1]*gcp)
//
// Eight operations instead of GKL's twelve. The sum of the insertion and
// deletion states comes first because both take the same gap-to-match
// probability; the add and the product M*mm are independent, so the
// longest dependency chain of M is three operations. In the float pass
// every result that would be subnormal is zero (flush-to-zero, tininess
// after rounding, as the SSE unit and sm_90 apply it to FMA as to MUL);
// the double pass flushes nothing. The last row is summed as in GKL's
// arithmetic (all M, all X, then the two totals).

// fma32 returns a*b + c rounded once to float32, with results below
// FLT_MIN flushed to zero (the fused cell's rule). Go has no float32 FMA,
// and float32(math.FMA(a, b, c)) rounds twice (to float64, then to
// float32), which differs from one rounding exactly when the float64
// result s lands on a midpoint between two floats: elsewhere the exact
// value and s lie on the same side of every midpoint (midpoints are
// float64 numbers and rounding is monotonic), so they round alike. The
// flush threshold is such a midpoint too. So s is used unless its low 29
// bits say midpoint, or it is in float32's subnormal range, where the
// grid is coarser; those rare cases take fma32Slow.
func fma32(a, b, c float32) float32 {
	if s := math.FMA(float64(a), float64(b), float64(c)); fma32Safe(s) {
		return float32(s)
	}
	return fma32Slow(a, b, c)
}

// fma32Safe reports whether a float64 FMA result s rounds to float32 as
// the exact value would, with nothing to flush: s is zero (then exact),
// or at least FLT_MIN in magnitude and not a float32 midpoint.
func fma32Safe(s float64) bool {
	b := math.Float64bits(s)
	return b&(1<<29-1) != 1<<28 && (b&^(1<<63)-1 >= 0x3810000000000000-1)
}

// fma32Slow is fma32 for every input: the product of two 24-bit
// significands is exact in float64; the float64 sum s and its exact error
// e (TwoSum) give s + e = a*b + c exactly; s is then rounded to odd (moved
// one ulp towards e when inexact and even), and a value rounded to odd
// with 53 bits rounds correctly to 24 bits (53 >= 24 + 2).
func fma32Slow(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	v := s - p
	e := (p - (s - v)) + (cc - v)
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 && !math.IsInf(s, 0) && !math.IsNaN(e) {
		// s and e have opposite signs when s is above the exact value;
		// adding one to the bits moves s away from zero.
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	// s rounded to odd is below ftz's threshold exactly when a*b + c is
	// (the threshold has 25 significant bits, an even 53-bit significand,
	// so no inexact value rounds to odd onto it).
	return ftz.Round64(s)
}

// forwardFloatFused is forwardFloat in the fused arithmetic.
func forwardFloatFused(rows []row[float32], hap []uint8, initial float32, m, x, y []float32) float32 {
	h := len(hap)
	m, x, y = m[:h+1], x[:h+1], y[:h+1]
	initY := initial / float32(h)
	for j := range m {
		m[j], x[j], y[j] = 0, 0, initY
	}
	for i := range rows {
		p := &rows[i]
		mm, gapm, mx, gcp, my := p.mm, p.gapm, p.mx, p.gcp, p.my
		em := &p.emis
		dM, dX, dY := m[0], x[0], y[0]
		m[0], x[0], y[0] = 0, 0, 0
		var lM, lY float32
		for j := 1; j <= h; j++ {
			uM, uX, uY := m[j], x[j], y[j]
			// dX + dY: non-negative normal numbers or zeros, so the sum
			// needs no flush.
			// fma32 by hand (the call does not inline): three float64
			// FMAs, and fma32Slow only for a result that may round
			// differently once more.
			t, pm := dX+dY, ftz.Mul(dM, mm)
			px, py := ftz.Mul(uX, gcp), ftz.Mul(lY, gcp)
			fm := math.FMA(float64(t), float64(gapm), float64(pm))
			fx := math.FMA(float64(uM), float64(mx), float64(px))
			fy := math.FMA(float64(lM), float64(my), float64(py))
			var sm, cx, cy float32
			if fma32Safe(fm) && fma32Safe(fx) && fma32Safe(fy) {
				sm, cx, cy = float32(fm), float32(fx), float32(fy)
			} else {
				sm, cx, cy = fma32Slow(t, gapm, pm), fma32Slow(uM, mx, px), fma32Slow(lM, my, py)
			}
			cm := ftz.Mul(sm, em[hap[j-1]&7])
			m[j], x[j], y[j] = cm, cx, cy
			dM, dX, dY = uM, uX, uY
			lM, lY = cm, cy
		}
	}
	return sumLastRow(m, x)
}

// fusedCell64 is one cell of the fused double pass (math.FMA rounds
// once). It returns M, X and Y of cell (i,j) from the diagonal (d*), the
// cell above (u*) and the cell to the left (l*).
func fusedCell64(p *row[float64], prior, dM, dX, dY, uM, uX, lM, lY float64) (cm, cx, cy float64) {
	cm = math.FMA(dX+dY, p.gapm, dM*p.mm) * prior
	cx = math.FMA(uM, p.mx, uX*p.gcp)
	cy = math.FMA(lM, p.my, lY*p.gcp)
	return
}

// goFusedLaneKernel is the portable float pass in the fused arithmetic;
// simdFusedLaneKernels has the generated ones (AVX2, AVX-512).
var goFusedLaneKernel = laneKernel{name: "go", width: maxLaneWidth, fused: true, run: func(_ *laneKernel, b *laneBatch, hap []uint8, out []float32) {
	b.s.grow(len(hap) + 1)
	for l := range b.reads {
		out[l] = forwardFloatFused(b.reads[l].rows32, hap, initial32, b.s.m32, b.s.x32, b.s.y32)
	}
}}
