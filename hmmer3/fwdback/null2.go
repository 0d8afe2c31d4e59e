package fwdback

import (
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// Null2ByExpectation computes the null2 odds ratios of a domain envelope
// from its posterior matrix pp (p7_Null2_ByExpectation), into null2[0..Kp-1].
// It uses pp's row 0 as scratch space, as HMMER does.
func Null2ByExpectation(om *oprofile.Profile, pp *Matrix, null2 []float32) {
	Q := pp.Q
	Ld := pp.L
	row0 := pp.row(0)
	copy(row0, pp.row(1))
	if Ld >= 2 {
		n := 3 * Q
		sumRows(row0, pp.dp[2*n:(Ld+1)*n], Q, Ld-1)
	}
	null2FromSums(om, pp, null2)
}

// null2FromSums finishes Null2ByExpectation once pp's row 0 holds the
// sums of the M and I vectors of rows 1..L.
func null2FromSums(om *oprofile.Profile, pp *Matrix, null2 []float32) {
	Ld := pp.L
	xN, xC, xJ := pp.X[1][XN], pp.X[1][XC], pp.X[1][XJ]
	for i := 2; i <= Ld; i++ {
		xN += pp.X[i][XN]
		xC += pp.X[i][XC]
		xJ += pp.X[i][XJ]
	}
	norm := float32(1.0 / float64(float32(Ld)))
	null2Sum(om, pp.row(0), xN, xC, xJ, norm, null2)
}

// sumRowsGo is the portable row sum: the M and I vectors of each row of
// src, in order, added into acc (acc = row + acc).
func sumRowsGo(acc, src []vec, Q, rows int) {
	n := 12 * Q
	af, sf := flat(acc)[:n], flat(src)[:rows*n]
	for r := 0; r < rows; r++ {
		sr := sf[r*n : (r+1)*n]
		for j := 0; j+12 <= n; j += 12 {
			for z := j; z < j+4; z++ {
				af[z] = sr[z] + af[z]
				af[z+8] = sr[z+8] + af[z+8]
			}
		}
	}
}

// Null2ByTrace computes null2 odds ratios from the emitting states of
// trace positions zstart..zend (p7_Null2_ByTrace). As in HMMER, an insert
// state counts as a use of its node's match emissions. wrk's row 0 is
// scratch space.
func Null2ByTrace(om *oprofile.Profile, tr *hits.Trace, zstart, zend int, wrk *Matrix, null2 []float32) {
	Q := oprofile.NumVecF(om.M)
	if len(wrk.dp) < 3*Q {
		wrk.grow(om.M, 0, false)
	}
	row0 := wrk.dp[:3*Q]
	for q := range row0 {
		row0[q] = vec{}
	}
	var xN, xC, xJ float32
	Ld := 0
	for z := zstart; z <= zend; z++ {
		if tr.I[z] == 0 {
			continue
		}
		Ld++
		if k := tr.K[z]; k > 0 {
			q, r := (k-1)%Q, (k-1)/Q
			row0[q*3+cM][r] += 1.0
			continue
		}
		switch tr.St[z] {
		case hits.StN:
			xN += 1.0
		case hits.StC:
			xC += 1.0
		case hits.StJ:
			xJ += 1.0
		}
	}
	norm := float32(1.0 / float64(float32(Ld)))
	null2Sum(om, row0, xN, xC, xJ, norm, null2)
}

// null2Sum scales the usage counts by norm and takes the usage-weighted
// sum of emission odds for each residue, then fills the degenerate and
// special codes.
func null2Sum(om *oprofile.Profile, row0 []vec, xN, xC, xJ, norm float32, null2 []float32) {
	Q := len(row0) / 3
	abc := om.Abc
	var buf [32]vec
	sums := buf[:0]
	if abc.K <= len(buf) {
		sums = buf[:abc.K]
	}
	// At the avx2 level one kernel scales the row and sums every residue
	// (null2Sums); otherwise the row is scaled here and each residue's sum
	// taken on its own. The products and sums are the same.
	wide := null2Sums(row0, om.FB.RF, Q, norm, sums)
	if !wide {
		sv := splat(norm)
		for q := 0; q < Q; q++ {
			row0[q*3+cM] = vmul(row0[q*3+cM], sv)
			row0[q*3+cI] = vmul(row0[q*3+cI], sv)
		}
	}
	xN = fmul(xN, norm)
	xC = fmul(xC, norm)
	xJ = fmul(xJ, norm)
	xfactor := xN + xC + xJ
	for x := 0; x < abc.K; x++ {
		if wide {
			null2[x] = hsum(sums[x]) + xfactor
		} else {
			null2[x] = hsum(null2Dot(row0, om.FB.RF[x], Q)) + xfactor
		}
	}
	abc.FAvgScVec(null2)
	null2[abc.K] = 1.0
	null2[abc.Kp-2] = 1.0
	null2[abc.Kp-1] = 1.0
}

// null2DotGo is the portable null2 emission sum of one residue: over the
// Q vectors, s = s + M*rf, then s = s + I (insert odds are 1), per lane.
func null2DotGo(row, rf []vec, Q int) vec {
	var s vec
	rw, ef := flat(row)[:12*Q], flat(rf)[:4*Q]
	for z := 0; z < 4; z++ {
		sz := float32(0)
		for q, j := 0, z; q < Q; q, j = q+1, j+12 {
			sz += fmul(rw[j], ef[4*q+z])
			sz += rw[j+8]
		}
		s[z] = sz
	}
	return s
}
