// Package fwdback holds HMMER3's float dynamic programming over the
// striped odds profile: Forward and Backward with sparse rescaling,
// posterior decoding, null2, optimal-accuracy alignment and stochastic
// traceback. Every kernel repeats HMMER 3.3.2's SSE operations lane by
// lane in the same order, so scores agree to the last bit.
package fwdback

import (
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// Special-state cells of a row, HMMER's p7X order.
const (
	XE = iota
	XN
	XJ
	XB
	XC
	XScale
	NXCells
)

// Cells of one striped vector triple (HMMER's p7X_M, D, I).
const (
	cM = 0
	cD = 1
	cI = 2
)

// Matrix is a striped DP matrix (P7_OMX): Q vector triples per row, and
// the special states of every row. A parser matrix keeps one vector row
// and all special rows.
type Matrix struct {
	M, Q, L      int
	full         bool
	dp           []vec // rows * Q * 3
	X            [][NXCells]float32
	TotScale     float32
	HasOwnScales bool

	// Workspace of the domain kernels: each row's posterior scale
	// (Decoding) and the transition masks of optimal accuracy.
	totr  []float32
	mask  []uint32
	ddAll [4]uint32
}

// NewMatrix returns an empty matrix; Forward and friends size it.
func NewMatrix() *Matrix { return &Matrix{} }

func (mx *Matrix) grow(M, L int, full bool) {
	Q := oprofile.NumVecF(M)
	rows := 1
	if full {
		rows = L + 1
	}
	mx.M, mx.Q, mx.L, mx.full = M, Q, L, full
	if need := rows * Q * 3; cap(mx.dp) < need {
		mx.dp = make([]vec, need)
	} else {
		mx.dp = mx.dp[:need]
	}
	if cap(mx.X) < L+1 {
		mx.X = make([][NXCells]float32, L+1)
	} else {
		mx.X = mx.X[:L+1]
	}
}

// row returns row i's vector triples (row 0 for parser matrices).
func (mx *Matrix) row(i int) []vec {
	if !mx.full {
		i = 0
	}
	n := mx.Q * 3
	return mx.dp[i*n : (i+1)*n]
}

// At returns cell s (cM, cD, cI) of node k (1..M) in row i of a full matrix.
func (mx *Matrix) at(i, k, s int) float32 {
	q, z := (k-1)%mx.Q, (k-1)/mx.Q
	return mx.row(i)[q*3+s][z]
}

// flat views vectors as their floats, lane z of vs[j] at 4*j+z: the Go
// kernels index single lanes instead of copying four-lane values.
func flat(vs []vec) []float32 {
	if len(vs) == 0 {
		return nil
	}
	return unsafe.Slice(&vs[0][0], 4*len(vs))
}
