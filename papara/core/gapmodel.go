package core

import (
	"errors"
	"math"
)

// GapModel is PaPaRa's two-state (residue, gap) continuous-time Markov
// model. Its transition matrices give, at every node of the tree, the
// likelihood that an alignment column holds a residue or a gap; a column
// whose gap likelihood wins is a CGAP column at that branch.
//
// PaPaRa diagonalises the rate matrix with JAMA's eigenvalue routine and
// inverts the eigenvectors with a uBLAS LU factorisation. The CGAP test
// compares two products of these numbers, so we repeat the same floating
// point operations in the same order for the 2x2 case (the only one PaPaRa
// uses) rather than using the closed form, which rounds differently.
type GapModel struct {
	GapFreq float64
	evals   [2]float64
	evecs   [2][2]float64
	inv     [2][2]float64
}

// NewGapModel builds the model for a gap frequency (gaps / all characters
// of the reference alignment).
func NewGapModel(gapFreq float64) (*GapModel, error) {
	f0, f1 := gapFreq, 1-gapFreq
	rate := [2][2]float64{{-f0, f0}, {f1, -f1}}
	if rate[0][1] == rate[1][0] {
		// JAMA takes its symmetric (tridiagonal QL) branch here, which we
		// do not reproduce; it needs a gap frequency of exactly 1/2.
		return nil, errors.New("the reference alignment has exactly as many gaps as residues; PaPaRa's gap model is not reproduced for this case")
	}
	m := &GapModel{GapFreq: gapFreq}
	if err := m.eigen(rate); err != nil {
		return nil, err
	}
	if err := m.invert(); err != nil {
		return nil, err
	}
	return m, nil
}

// eigen follows the EISPACK hqr2 algorithm (via JAMA) on a 2x2 matrix,
// which is already in Hessenberg form, so the Householder step is empty and
// the accumulated transformation starts as the identity.
func (m *GapModel) eigen(a [2][2]float64) error {
	const eps = 0x1p-52
	h := a
	v := [2][2]float64{{1, 0}, {0, 1}}
	var d, e [2]float64

	norm := 0.0
	for i := 0; i < 2; i++ {
		for j := max(i-1, 0); j < 2; j++ {
			norm = norm + math.Abs(h[i][j])
		}
	}

	n := 1
	for n >= 0 {
		// Look for a negligible sub-diagonal element.
		l := n
		for l > 0 {
			s := math.Abs(h[l-1][l-1]) + math.Abs(h[l][l])
			if s == 0 {
				s = norm
			}
			if math.Abs(h[l][l-1]) < float64(eps*s) {
				break
			}
			l--
		}
		switch {
		case l == n: // one root
			h[n][n] = h[n][n] + 0
			d[n] = h[n][n]
			e[n] = 0
			n--
		case l == n-1: // two roots
			w := float64(h[n][n-1] * h[n-1][n])
			p := (h[n-1][n-1] - h[n][n]) / 2.0
			q := float64(p*p) + w
			z := math.Sqrt(math.Abs(q))
			h[n][n] = h[n][n] + 0
			h[n-1][n-1] = h[n-1][n-1] + 0
			x := h[n][n]
			if q < 0 {
				return errors.New("gap model: complex eigenvalues")
			}
			if p >= 0 {
				z = p + z
			} else {
				z = p - z
			}
			d[n-1] = x + z
			d[n] = d[n-1]
			if z != 0 {
				d[n] = x - w/z
			}
			e[n-1] = 0
			e[n] = 0
			x = h[n][n-1]
			s := math.Abs(x) + math.Abs(z)
			p = x / s
			q = z / s
			r := math.Sqrt(float64(p*p) + float64(q*q))
			p = p / r
			q = q / r
			for j := n - 1; j < 2; j++ { // row modification
				z = h[n-1][j]
				h[n-1][j] = float64(q*z) + float64(p*h[n][j])
				h[n][j] = float64(q*h[n][j]) - float64(p*z)
			}
			for i := 0; i <= n; i++ { // column modification
				z = h[i][n-1]
				h[i][n-1] = float64(q*z) + float64(p*h[i][n])
				h[i][n] = float64(q*h[i][n]) - float64(p*z)
			}
			for i := 0; i < 2; i++ { // accumulate transformations
				z = v[i][n-1]
				v[i][n-1] = float64(q*z) + float64(p*v[i][n])
				v[i][n] = float64(q*v[i][n]) - float64(p*z)
			}
			n -= 2
		default:
			return errors.New("gap model: eigenvalue iteration needed for a 2x2 matrix")
		}
	}

	if norm == 0 {
		return errors.New("gap model: zero rate matrix")
	}
	// Back-substitute to find the vectors of the upper triangular form.
	for n := 1; n >= 0; n-- {
		p := d[n]
		l := n
		h[n][n] = 1.0
		for i := n - 1; i >= 0; i-- {
			w := h[i][i] - p
			r := 0.0
			for j := l; j <= n; j++ {
				r = r + float64(h[i][j]*h[j][n])
			}
			l = i
			if w != 0 {
				h[i][n] = -r / w
			} else {
				h[i][n] = -r / float64(eps*norm)
			}
			t := math.Abs(h[i][n])
			if float64(float64(eps*t)*t) > 1 {
				for j := i; j <= n; j++ {
					h[j][n] = h[j][n] / t
				}
			}
		}
	}
	// Back transformation to the eigenvectors of the original matrix.
	for j := 1; j >= 0; j-- {
		for i := 0; i < 2; i++ {
			z := 0.0
			for k := 0; k <= j; k++ {
				z = z + float64(v[i][k]*h[k][j])
			}
			v[i][j] = z
		}
	}
	m.evals = d
	m.evecs = v
	return nil
}

// invert computes the inverse of the eigenvector matrix as uBLAS does:
// LU factorisation with partial pivoting (scaling the column by the
// reciprocal of the pivot), then forward and back substitution on the
// row-permuted identity.
func (m *GapModel) invert() error {
	a := m.evecs
	perm := [2]int{0, 1}
	// Column 0: pick the first row of largest magnitude.
	piv, best := 0, 0.0
	for i := 0; i < 2; i++ {
		if u := math.Abs(a[i][0]); u > best {
			piv, best = i, u
		}
	}
	if a[piv][0] == 0 {
		return errors.New("gap model: singular eigenvector matrix")
	}
	if piv != 0 {
		perm[0] = piv
		a[0], a[piv] = a[piv], a[0]
	}
	a[1][0] = a[1][0] * (1 / a[0][0])
	a[1][1] = a[1][1] - float64(a[1][0]*a[0][1])
	if a[1][1] == 0 {
		return errors.New("gap model: singular eigenvector matrix")
	}

	b := [2][2]float64{{1, 0}, {0, 1}}
	for i := 0; i < 2; i++ {
		if perm[i] != i {
			b[i], b[perm[i]] = b[perm[i]], b[i]
		}
	}
	// Unit lower triangle.
	for l := 0; l < 2; l++ {
		if t := b[0][l]; t != 0 {
			b[1][l] = b[1][l] - float64(a[1][0]*t)
		}
	}
	// Upper triangle.
	for l := 1; l >= 0; l-- {
		b[1][l] = b[1][l] / a[1][1]
		if t := b[1][l]; t != 0 {
			b[0][l] = b[0][l] - float64(a[0][1]*t)
		}
	}
	for l := 1; l >= 0; l-- {
		b[0][l] = b[0][l] / a[0][0]
	}
	m.inv = b
	return nil
}

// PMatrix returns the transition probabilities over a branch of length t:
// P = V diag(exp(t*λ)) V⁻¹, multiplied in uBLAS's order.
func (m *GapModel) PMatrix(t float64) [2][2]float64 {
	var ex [2]float64
	for i := 0; i < 2; i++ {
		ex[i] = exactExp(float64(t * m.evals[i]))
	}
	var tmp, p [2][2]float64
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			tmp[i][j] = float64(m.evecs[i][j] * ex[j])
		}
	}
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			p[i][j] = float64(tmp[i][0]*m.inv[0][j]) + float64(tmp[i][1]*m.inv[1][j])
		}
	}
	return p
}
