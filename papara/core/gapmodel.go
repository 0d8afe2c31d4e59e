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
	m := &GapModel{GapFreq: gapFreq}
	if rate[0][1] == rate[1][0] {
		// A symmetric matrix (gap frequency exactly 1/2): JAMA uses its
		// Householder tridiagonalisation and QL iteration instead.
		m.eigenSymmetric(rate)
	} else if err := m.eigen(rate); err != nil {
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

// hypot is Boost's hypot (used by JAMA's QL iteration).
func hypot(x, y float64) float64 {
	x, y = math.Abs(x), math.Abs(y)
	if y > x {
		x, y = y, x
	}
	if float64(x*0x1p-52) >= y {
		return x
	}
	r := y / x
	return x * math.Sqrt(1+float64(r*r))
}

// eigenSymmetric follows JAMA's symmetric branch (EISPACK tred2 and tql2)
// for a 2x2 matrix.
func (m *GapModel) eigenSymmetric(a [2][2]float64) {
	const n = 2
	const eps = 0x1p-52
	v := a
	var d, e [n]float64

	// tred2: Householder reduction to tridiagonal form.
	for j := 0; j < n; j++ {
		d[j] = v[n-1][j]
	}
	for i := n - 1; i > 0; i-- {
		scale, h := 0.0, 0.0
		for k := 0; k < i; k++ {
			scale = scale + math.Abs(d[k])
		}
		if scale == 0 {
			e[i] = d[i-1]
			for j := 0; j < i; j++ {
				d[j] = v[i-1][j]
				v[i][j] = 0
				v[j][i] = 0
			}
		} else {
			for k := 0; k < i; k++ {
				d[k] /= scale
				h += float64(d[k] * d[k])
			}
			f := d[i-1]
			g := math.Sqrt(h)
			if f > 0 {
				g = -g
			}
			e[i] = scale * g
			h = h - float64(f*g)
			d[i-1] = f - g
			for j := 0; j < i; j++ {
				e[j] = 0
			}
			for j := 0; j < i; j++ {
				f = d[j]
				v[j][i] = f
				g = e[j] + float64(v[j][j]*f)
				for k := j + 1; k <= i-1; k++ {
					g += float64(v[k][j] * d[k])
					e[k] += float64(v[k][j] * f)
				}
				e[j] = g
			}
			f = 0
			for j := 0; j < i; j++ {
				e[j] /= h
				f += float64(e[j] * d[j])
			}
			hh := f / (h + h)
			for j := 0; j < i; j++ {
				e[j] -= float64(hh * d[j])
			}
			for j := 0; j < i; j++ {
				f = d[j]
				g = e[j]
				for k := j; k <= i-1; k++ {
					v[k][j] -= float64(f*e[k]) + float64(g*d[k])
				}
				d[j] = v[i-1][j]
				v[i][j] = 0
			}
		}
		d[i] = h
	}
	for i := 0; i < n-1; i++ {
		v[n-1][i] = v[i][i]
		v[i][i] = 1
		h := d[i+1]
		if h != 0 {
			for k := 0; k <= i; k++ {
				d[k] = v[k][i+1] / h
			}
			for j := 0; j <= i; j++ {
				g := 0.0
				for k := 0; k <= i; k++ {
					g += float64(v[k][i+1] * v[k][j])
				}
				for k := 0; k <= i; k++ {
					v[k][j] -= float64(g * d[k])
				}
			}
		}
		for k := 0; k <= i; k++ {
			v[k][i+1] = 0
		}
	}
	for j := 0; j < n; j++ {
		d[j] = v[n-1][j]
		v[n-1][j] = 0
	}
	v[n-1][n-1] = 1
	e[0] = 0

	// tql2: symmetric tridiagonal QL.
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	e[n-1] = 0
	f, tst1 := 0.0, 0.0
	for l := 0; l < n; l++ {
		tst1 = max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		mm := l
		for mm < n {
			if math.Abs(e[mm]) <= float64(eps*tst1) {
				break
			}
			mm++
		}
		if mm > l {
			for iter := 0; iter < 100; iter++ {
				g := d[l]
				p := (d[l+1] - g) / float64(2.0*e[l])
				r := hypot(p, 1.0)
				if p < 0 {
					r = -r
				}
				d[l] = e[l] / (p + r)
				d[l+1] = e[l] * (p + r)
				dl1 := d[l+1]
				h := g - d[l]
				for i := l + 2; i < n; i++ {
					d[i] -= h
				}
				f = f + h
				p = d[mm]
				c, c2, c3 := 1.0, 1.0, 1.0
				el1 := e[l+1]
				s, s2 := 0.0, 0.0
				for i := mm - 1; i >= l; i-- {
					c3 = c2
					c2 = c
					s2 = s
					g = float64(c * e[i])
					h = float64(c * p)
					r = hypot(p, e[i])
					e[i+1] = float64(s * r)
					s = e[i] / r
					c = p / r
					p = float64(c*d[i]) - float64(s*g)
					d[i+1] = h + float64(s*(float64(c*g)+float64(s*d[i])))
					for k := 0; k < n; k++ {
						h = v[k][i+1]
						v[k][i+1] = float64(s*v[k][i]) + float64(c*h)
						v[k][i] = float64(c*v[k][i]) - float64(s*h)
					}
				}
				p = float64(float64(float64(float64(-s*s2)*c3)*el1)*e[l]) / dl1
				e[l] = float64(s * p)
				d[l] = float64(c * p)
				if math.Abs(e[l]) <= float64(eps*tst1) {
					break
				}
			}
		}
		d[l] = d[l] + f
		e[l] = 0
	}
	// Sort eigenvalues (and vectors) in ascending order.
	for i := 0; i < n-1; i++ {
		k, p := i, d[i]
		for j := i + 1; j < n; j++ {
			if d[j] < p {
				k, p = j, d[j]
			}
		}
		if k != i {
			d[k] = d[i]
			d[i] = p
			for j := 0; j < n; j++ {
				v[j][i], v[j][k] = v[j][k], v[j][i]
			}
		}
	}
	m.evals = d
	m.evecs = v
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
