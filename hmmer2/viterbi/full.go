package viterbi

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// Special-state columns of the matrix (HMMER2's XMB..XMN).
const (
	xB = iota
	xE
	xC
	xJ
	xN
	nX
)

// Matrix is a full (L+1) x (M+1) Viterbi matrix, kept and grown between
// sequences like HMMER2's dpmatrix_s.
type Matrix struct {
	M, L  int
	cells []weeCell // (L+1)*(M+1) M, I, D values, row-major
	xmx   []int32   // (L+1)*nX special states
	row   int       // M+1
}

func (mx *Matrix) resize(L, M int) {
	mx.M, mx.L, mx.row = M, L, M+1
	n := (L + 1) * (M + 1)
	if n > cap(mx.cells) {
		mx.cells = make([]weeCell, n)
	}
	mx.cells = mx.cells[:n]
	if (L+1)*nX > cap(mx.xmx) {
		mx.xmx = make([]int32, (L+1)*nX)
	}
	mx.xmx = mx.xmx[:(L+1)*nX]
}

// Fill runs the full Viterbi recursion of HMMER2's default (portably
// optimised) P7Viterbi() on dsq (codes of residues 1..L) and returns the
// integer score. The matrix is kept for Traceback.
func (mx *Matrix) Fill(p *plan7.Profile, dsq []byte) int32 {
	M, L := p.M, len(dsq)
	mx.resize(L, M)
	W := mx.row
	xmx := mx.xmx
	xmx[xN] = 0
	xmx[xB] = p.Xsc[plan7.XTN][plan7.Move]
	xmx[xE], xmx[xC], xmx[xJ] = negInf, negInf, negInf
	for k := 0; k <= M; k++ {
		mx.cells[k] = weeCell{negInf, negInf, negInf}
	}
	tr := transOf(p)[:M+1]
	xsc := &p.Xsc
	for i := 1; i <= L; i++ {
		rc := mx.cells[i*W : i*W+W]
		rp := mx.cells[(i-1)*W : i*W]
		xmb := xmx[(i-1)*nX+xB]
		ms := p.Msc[dsq[i-1]][:M+1]
		is := p.Isc[dsq[i-1]][:M+1]
		rc[0] = weeCell{negInf, negInf, negInf}
		mprev, dprev := int32(negInf), int32(negInf) // M(i,k-1), D(i,k-1)
		xme := int32(negInf)
		for k := 1; k <= M; k++ {
			n := &tr[k]
			pl := &rp[k-1]
			v := pl.m + n.mm
			if s := pl.i + n.im; s > v {
				v = s
			}
			if s := pl.d + n.dm; s > v {
				v = s
			}
			if s := xmb + n.bm; s > v {
				v = s
			}
			v += ms[k]
			if v < negInf {
				v = negInf
			}
			d := dprev + n.dd
			if s := mprev + n.md; s > d {
				d = s
			}
			if d < negInf {
				d = negInf
			}
			iv := int32(negInf) // HMMER2 never computes I_M
			if k < M {
				pk := &rp[k]
				iv = pk.m + n.mi
				if s := pk.i + n.ii; s > iv {
					iv = s
				}
				iv += is[k]
				if iv < negInf {
					iv = negInf
				}
			}
			rc[k] = weeCell{v, iv, d}
			if s := v + n.me; s > xme {
				xme = s
			}
			mprev, dprev = v, d
		}

		x := xmx[i*nX : i*nX+nX]
		xp := xmx[(i-1)*nX : i*nX]
		x[xN], x[xE], x[xJ], x[xB], x[xC] = specials(xsc, xp[xN], xp[xJ], xp[xC], xme)
	}
	return xmx[L*nX+xC] + xsc[plan7.XTC][plan7.Move]
}

func (mx *Matrix) m(i, k int) int32 { return mx.cells[i*mx.row+k].m }
func (mx *Matrix) ins(i, k int) int32 {
	return mx.cells[i*mx.row+k].i
}
func (mx *Matrix) d(i, k int) int32 { return mx.cells[i*mx.row+k].d }
func (mx *Matrix) x(i, s int) int32 { return mx.xmx[i*nX+s] }

// Traceback recovers the optimal path from a filled matrix exactly as
// P7ViterbiTrace() does, including which predecessor wins a tie and the
// "wing unfolding" that writes B->D1..Dk and Dk..DM->E paths out as
// delete states. It returns nil when the alignment is impossible.
func (mx *Matrix) Traceback(p *plan7.Profile, dsq []byte) (*Trace, error) {
	h := p.HMM
	M, N := p.M, mx.L
	tr := &Trace{}
	tr.add(StT, 0, 0)
	tr.add(StC, 0, 0)
	i := N
	k := 0
	fail := func() (*Trace, error) {
		return nil, fmt.Errorf("viterbi: traceback failed at residue %d, node %d", i, k)
	}
	for tr.St[len(tr.St)-1] != StS {
		last := len(tr.St) - 1
		switch tr.St[last] {
		case StM: // M connects from i-1,k-1, or B
			sc := mx.m(i+1, k+1) - p.Msc[dsq[i]][k+1]
			switch {
			case sc <= negInf:
				return nil, nil
			case sc == mx.x(i, xB)+p.Bsc[k+1]:
				if plan7.Prob2Score(h.Begin[k+1], h.P1)+1*plan7.IntScale <= p.Bsc[k+1] {
					for k > 0 {
						tr.add(StD, int32(k), 0)
						k--
					}
				}
				tr.add(StB, 0, 0)
			case sc == mx.m(i, k)+p.Tsc[plan7.TMM][k]:
				tr.add(StM, int32(k), int32(i))
				k--
				i--
			case sc == mx.ins(i, k)+p.Tsc[plan7.TIM][k]:
				tr.add(StI, int32(k), int32(i))
				i--
			case sc == mx.d(i, k)+p.Tsc[plan7.TDM][k]:
				tr.add(StD, int32(k), 0)
				k--
			default:
				return fail()
			}
		case StD: // D connects from M, D
			v := mx.d(i, k+1)
			switch {
			case v <= negInf:
				return nil, nil
			case v == mx.m(i, k)+p.Tsc[plan7.TMD][k]:
				tr.add(StM, int32(k), int32(i))
				k--
				i--
			case v == mx.d(i, k)+p.Tsc[plan7.TDD][k]:
				tr.add(StD, int32(k), 0)
				k--
			default:
				return fail()
			}
		case StI: // I connects from M, I
			sc := mx.ins(i+1, k) - p.Isc[dsq[i]][k]
			switch {
			case sc <= negInf:
				return nil, nil
			case sc == mx.m(i, k)+p.Tsc[plan7.TMI][k]:
				tr.add(StM, int32(k), int32(i))
				k--
				i--
			case sc == mx.ins(i, k)+p.Tsc[plan7.TII][k]:
				tr.add(StI, int32(k), int32(i))
				i--
			default:
				return fail()
			}
		case StN: // N connects from S, N
			switch {
			case i == 0 && mx.x(i, xN) == 0:
				tr.add(StS, 0, 0)
			case i > 0 && mx.x(i+1, xN) == mx.x(i, xN)+p.Xsc[plan7.XTN][plan7.Loop]:
				tr.add(StN, 0, 0)
				tr.Pos[last] = int32(i) // the first N does not emit
				i--
			default:
				return fail()
			}
		case StB: // B connects from N, J
			v := mx.x(i, xB)
			switch {
			case v <= negInf:
				return nil, nil
			case v == mx.x(i, xN)+p.Xsc[plan7.XTN][plan7.Move]:
				tr.add(StN, 0, 0)
			case v == mx.x(i, xJ)+p.Xsc[plan7.XTJ][plan7.Move]:
				tr.add(StJ, 0, 0)
			default:
				return fail()
			}
		case StE: // E connects from any M; k is set here
			v := mx.x(i, xE)
			if v <= negInf {
				return nil, nil
			}
			for k = M; k >= 1; k-- {
				if v == mx.m(i, k)+p.Esc[k] {
					if plan7.Prob2Score(h.End[k], 1.)+1*plan7.IntScale <= p.Esc[k] {
						for dk := M; dk > k; dk-- {
							tr.add(StD, int32(dk), 0)
						}
					}
					tr.add(StM, int32(k), int32(i))
					k--
					i--
					break
				}
			}
			if k < 0 {
				return fail()
			}
			if k == 0 && tr.St[len(tr.St)-1] != StM {
				return fail()
			}
		case StC: // C comes from C, E
			v := mx.x(i, xC)
			switch {
			case v <= negInf:
				return nil, nil
			case v == mx.x(i-1, xC)+p.Xsc[plan7.XTC][plan7.Loop]:
				tr.add(StC, 0, 0)
				tr.Pos[last] = int32(i) // the first C does not emit
				i--
			case v == mx.x(i, xE)+p.Xsc[plan7.XTE][plan7.Move]:
				tr.add(StE, 0, 0)
			default:
				return fail()
			}
		case StJ: // J connects from E, J
			v := mx.x(i, xJ)
			switch {
			case v <= negInf:
				return nil, nil
			case v == mx.x(i-1, xJ)+p.Xsc[plan7.XTJ][plan7.Loop]:
				tr.add(StJ, 0, 0)
				tr.Pos[last] = int32(i) // the first J does not emit
				i--
			case v == mx.x(i, xE)+p.Xsc[plan7.XTE][plan7.Loop]:
				tr.add(StE, 0, 0)
			default:
				return fail()
			}
		default:
			return fail()
		}
	}
	tr.reverse()
	return tr, nil
}
