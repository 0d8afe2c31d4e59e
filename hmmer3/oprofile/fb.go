package oprofile

import (
	"math"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Vec is one four-lane float vector of HMMER's striped layout: lane z of
// vector q holds node k = z*Q + q + 1. Forward, Backward, null2 and the
// posterior-decoding sums depend on the order in which lanes and vectors
// are added, so every float kernel keeps this layout.
type Vec [4]float32

// Forward/Backward transition indices within one vector's group of seven
// (TF[q*7+t]); the D->D vectors follow all groups at TF[7*Q+q].
const (
	FBM = iota
	FMM
	FIM
	FDM
	FMD
	FMI
	FII
)

// FBProfile is the float odds score system (match odds, transition
// probabilities) in the striped layout, Q vectors of four lanes.
type FBProfile struct {
	M, Q int
	RF   [][]Vec // RF[x][q]: match odds for residue x
	TF   []Vec   // 7 per q (FBM..FII), then Q D->D vectors
	XF   [4][2]float32
}

// NumVecF is HMMER's number of float vectors for a model of length M.
func NumVecF(M int) int {
	q := (M + 3) / 4
	if q < 2 {
		q = 2
	}
	return q
}

// DD returns the D->D vector of q.
func (p *FBProfile) DD(q int) *Vec { return &p.TF[7*p.Q+q] }

// T returns transition vector t (FBM..FII) of q.
func (p *FBProfile) T(q, t int) *Vec { return &p.TF[7*q+t] }

func (p *FBProfile) convert(gm *profile.Profile) {
	M := gm.M
	Q := NumVecF(M)
	p.M, p.Q = M, Q
	negInf := float32(math.Inf(-1))
	p.RF = make([][]Vec, gm.Abc.Kp)
	for x := range p.RF {
		p.RF[x] = make([]Vec, Q)
		for q := 0; q < Q; q++ {
			for z := 0; z < 4; z++ {
				k := q + 1 + z*Q
				sc := negInf
				if k <= M {
					sc = gm.MSC[x][k]
				}
				p.RF[x][q][z] = easel.SSEExpfFTZ(sc)
			}
		}
	}
	p.TF = make([]Vec, 8*Q)
	for q := 0; q < Q; q++ {
		for t := FBM; t <= FII; t++ {
			var tg, kb int
			switch t {
			case FBM:
				tg, kb = profile.PBM, q
			case FMM:
				tg, kb = profile.PMM, q
			case FIM:
				tg, kb = profile.PIM, q
			case FDM:
				tg, kb = profile.PDM, q
			case FMD:
				tg, kb = profile.PMD, q+1
			case FMI:
				tg, kb = profile.PMI, q+1
			case FII:
				tg, kb = profile.PII, q+1
			}
			for z := 0; z < 4; z++ {
				sc := negInf
				if k := kb + z*Q; k < M {
					sc = gm.TSC[k][tg]
				}
				p.TF[7*q+t][z] = easel.SSEExpfFTZ(sc)
			}
		}
	}
	for q := 0; q < Q; q++ {
		for z := 0; z < 4; z++ {
			sc := negInf
			if k := q + 1 + z*Q; k < M {
				sc = gm.TSC[k][profile.PDD]
			}
			p.TF[7*Q+q][z] = easel.SSEExpfFTZ(sc)
		}
	}
	for s := 0; s < 4; s++ {
		for t := 0; t < 2; t++ {
			p.XF[s][t] = easel.ExpfFTZ(gm.XSC[s][t])
		}
	}
}
