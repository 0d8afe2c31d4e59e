package pairhmm

import (
	"math"

	"github.com/hmmgo/hmmgo/internal/ftz"
)

// row holds the per-read-position probabilities of one DP row, in the
// precision of the pass that uses it.
type row[T float32 | float64] struct {
	mm   T    // match -> match
	gapm T    // insertion or deletion -> match: 1 - ph2pr[gcp]
	mx   T    // match -> insertion: ph2pr[ins]
	gcp  T    // insertion -> insertion and deletion -> deletion: ph2pr[gcp]
	my   T    // match -> deletion: ph2pr[del]
	emis [8]T // prior of the read base given haplotype code 0..4
}

// prepareRows computes the rows of one read in precision T, in the same
// arithmetic as GKL's initializeVectors and stripe initialisation.
func prepareRows[T float32 | float64](dst []row[T], tab *tables[T], r *Read, codes []uint8) []row[T] {
	n := len(r.Bases)
	if cap(dst) < n {
		dst = make([]row[T], n)
	}
	dst = dst[:n]
	for i := 0; i < n; i++ {
		p := &dst[i]
		ins, del, gcp := r.InsQuals[i], r.DelQuals[i], r.GCPQuals[i]
		p.mm = tab.matchToMatchProb(ins, del)
		p.gapm = 1 - tab.ph2pr[gcp]
		p.mx = tab.ph2pr[ins]
		p.gcp = tab.ph2pr[gcp]
		p.my = tab.ph2pr[del]
		distm := tab.ph2pr[r.BaseQuals[i]]
		match := 1 - distm
		mismatch := distm / 3 // GATK's tristate correction
		rc := codes[i]
		for hc := uint8(0); hc < 8; hc++ {
			if hc == rc || rc == codeN || hc == codeN {
				p.emis[hc] = match
			} else {
				p.emis[hc] = mismatch
			}
		}
	}
	return dst
}

// forward runs GATK's forward recurrence in double precision (the pass
// for pairs whose float result is below MIN_ACCEPTED) and returns the sum
// of the match and insertion states over the last row, still multiplied
// by the initial constant. Cell (i,j), read position i, haplotype
// position j:
//
//	M = ((M[i-1][j-1]*mm + X[i-1][j-1]*gapm) + Y[i-1][j-1]*gapm) * prior
//	X = M[i-1][j]*mx + X[i-1][j]*gcp          (insertion, from above)
//	Y = M[i][j-1]*my + Y[i][j-1]*gcp          (deletion, from the left)
//
// with Y[0][j] = initial/hapLen. Every product is rounded before the sum
// (the explicit conversions forbid fused multiply-add), in GKL's order, and
// the last row is summed as GKL does: all M left to right, all X left to
// right, then the two totals. The CUDA kernel performs the same
// operations, so the two agree to the bit.
//
// fused selects the fused arithmetic's cell (fusedCell64) instead. m, x,
// y are scratch rows of at least len(hap)+1 elements.
func forward(rows []row[float64], hap []uint8, fused bool, initial float64, m, x, y []float64) float64 {
	h := len(hap)
	m, x, y = m[:h+1], x[:h+1], y[:h+1]
	initY := initial / float64(h)
	for j := range m {
		m[j], x[j], y[j] = 0, 0, initY
	}
	for i := range rows {
		p := &rows[i]
		em := &p.emis
		// Column 0 of rows below the first is all zero; its previous-row
		// values become the diagonal of column 1.
		dM, dX, dY := m[0], x[0], y[0]
		m[0], x[0], y[0] = 0, 0, 0
		var lM, lY float64
		for j := 1; j <= h; j++ {
			uM, uX, uY := m[j], x[j], y[j]
			var cm, cx, cy float64
			if fused {
				cm, cx, cy = fusedCell64(p, em[hap[j-1]&7], dM, dX, dY, uM, uX, lM, lY)
			} else {
				cm, cx, cy = gklCell64(p, em[hap[j-1]&7], dM, dX, dY, uM, uX, lM, lY)
			}
			m[j], x[j], y[j] = cm, cx, cy
			dM, dX, dY = uM, uX, uY
			lM, lY = cm, cy
		}
	}
	return sumLastRow(m, x)
}

// gklCell64 is one cell of the double pass in GKL's order, every product
// rounded before the sum (the conversions forbid fused multiply-add). It
// returns M, X and Y of cell (i,j) from the diagonal (d*), the cell above
// (u*) and the cell to the left (l*).
func gklCell64(p *row[float64], prior, dM, dX, dY, uM, uX, lM, lY float64) (cm, cx, cy float64) {
	cm = (float64(dM*p.mm) + float64(dX*p.gapm) + float64(dY*p.gapm)) * prior
	cx = float64(uM*p.mx) + float64(uX*p.gcp)
	cy = float64(lM*p.my) + float64(lY*p.gcp)
	return
}

// forwardFloat is the float pass of forward, in flush-to-zero mode as GKL
// runs it (its initNative sets MXCSR's FTZ bit, which spares the CPU the
// microcode assists that subnormal results take on many x86 cores): every
// product that would be subnormal is zero (ftz.Mul). Sums need no such
// rule: every value is a non-negative normal number or zero, so a sum is
// too. The SIMD kernels (FTZ set for their duration) and the CUDA kernel
// (--ftz=true) perform the same operations, so all three agree to the
// bit.
func forwardFloat(rows []row[float32], hap []uint8, initial float32, m, x, y []float32) float32 {
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
			cm := ftz.Mul(ftz.Mul(dM, mm)+ftz.Mul(dX, gapm)+ftz.Mul(dY, gapm), em[hap[j-1]&7])
			cx := ftz.Mul(uM, mx) + ftz.Mul(uX, gcp)
			cy := ftz.Mul(lM, my) + ftz.Mul(lY, gcp)
			m[j], x[j], y[j] = cm, cx, cy
			dM, dX, dY = uM, uX, uY
			lM, lY = cm, cy
		}
	}
	return sumLastRow(m, x)
}

// sumLastRow sums the last row as GKL does: all M left to right, all X
// left to right, then the two totals.
func sumLastRow[T float32 | float64](m, x []T) T {
	var sumM, sumX T
	for j := 1; j < len(m); j++ {
		sumM += m[j]
	}
	for j := 1; j < len(x); j++ {
		sumX += x[j]
	}
	return sumM + sumX
}

// forwardScaled is the last resort for pairs whose likelihood is below the
// double range (log10 below about -615 with GATK's 2^1020 offset, where GKL
// returns -inf or a subnormal with few significant bits). It is the double
// recurrence with each row rescaled by a power of two, which is exact, so
// the result is what the double pass would give with an unbounded
// exponent. It returns log10 of the likelihood. fused selects the fused
// arithmetic's cell (fusedCell64) instead of GKL's.
func forwardScaled(rows []row[float64], hap []uint8, fused bool, m, x, y []float64) float64 {
	h := len(hap)
	m, x, y = m[:h+1], x[:h+1], y[:h+1]
	initY := initial64 / float64(h)
	for j := range m {
		m[j], x[j], y[j] = 0, 0, initY
	}
	scale := 0 // the stored rows are the true values times 2^scale, over initial64
	for i := range rows {
		p := &rows[i]
		em := &p.emis
		dM, dX, dY := m[0], x[0], y[0]
		m[0], x[0], y[0] = 0, 0, 0
		var lM, lY, big float64
		for j := 1; j <= h; j++ {
			uM, uX, uY := m[j], x[j], y[j]
			var cm, cx, cy float64
			if fused {
				cm, cx, cy = fusedCell64(p, em[hap[j-1]&7], dM, dX, dY, uM, uX, lM, lY)
			} else {
				cm, cx, cy = gklCell64(p, em[hap[j-1]&7], dM, dX, dY, uM, uX, lM, lY)
			}
			m[j], x[j], y[j] = cm, cx, cy
			dM, dX, dY = uM, uX, uY
			lM, lY = cm, cy
			big = math.Max(big, math.Max(cm, math.Max(cx, cy)))
		}
		if big == 0 {
			return math.Inf(-1)
		}
		// Bring the row's largest value back near 2^1000 before it can
		// lose bits in the subnormal range (or, in principle, overflow).
		if _, e := math.Frexp(big); e < 900 || e > 1010 {
			k := 1000 - e
			for j := range m {
				m[j] = math.Ldexp(m[j], k)
				x[j] = math.Ldexp(x[j], k)
				y[j] = math.Ldexp(y[j], k)
			}
			scale += k
		}
	}
	var sumM, sumX float64
	for j := 1; j <= h; j++ {
		sumM += m[j]
	}
	for j := 1; j <= h; j++ {
		sumX += x[j]
	}
	return math.Log10(sumM+sumX) - log10Initial64 - float64(scale)*math.Log10(2)
}
