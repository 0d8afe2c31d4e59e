package viterbi

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// WeeViterbi is P7WeeViterbi(): Hirschberg-style divide and conquer in
// linear memory for a sequence known to hold a single hit (J is
// disallowed). It returns the score, in HMMER2's Scorify'd form scaled
// back to an integer, and the trace.
func WeeViterbi(p *plan7.Profile, dsq []byte) (int32, *Trace, error) {
	M, L := p.M, len(dsq)
	h := p.HMM
	if L < 2 {
		return 0, nil, fmt.Errorf("viterbi: WeeViterbi needs at least 2 residues")
	}
	kassign := make([]int, L+1)
	tassign := make([]State, L+1)
	startlist := make([]int, L+1)
	endlist := make([]int, L+1)
	lpos := 0
	startlist[0], endlist[0] = 1, L
	kassign[1], kassign[L] = 1, M
	tassign[1], tassign[L] = StS, StT
	var retSc int32
	w := newWee(p)
	for lpos >= 0 {
		s1, s3 := startlist[lpos], endlist[lpos]
		k1, t1 := kassign[s1], tassign[s1]
		k3, t3 := kassign[s3], tassign[s3]
		lpos--
		sc, k2, t2, s2, err := w.midpoint(dsq, k1, t1, s1, k3, t3, s3)
		if err != nil {
			return 0, nil, err
		}
		kassign[s2], tassign[s2] = k2, t2
		if t1 == StS && t3 == StT {
			retSc = sc
		}
		if t2 != StN && (s2-s1 > 1 || (s2-s1 == 1 && t1 == StS)) {
			lpos++
			startlist[lpos], endlist[lpos] = s1, s2
		}
		if t2 != StC && (s3-s2 > 1 || (s3-s2 == 1 && t3 == StT)) {
			lpos++
			startlist[lpos], endlist[lpos] = s2, s3
		}
		if t2 == StN {
			for ; s2 >= s1; s2-- {
				kassign[s2], tassign[s2] = 1, StN
			}
		}
		if t2 == StC {
			for ; s2 <= s3; s2++ {
				kassign[s2], tassign[s2] = M, StC
			}
		}
	}

	tr := &Trace{}
	tr.add(StS, 0, 0)
	tr.add(StN, 0, 0)
	for i := 1; i <= L; i++ {
		switch tassign[i] {
		case StM:
			if tr.St[len(tr.St)-1] == StN {
				tr.add(StB, 0, 0)
				if plan7.Prob2Score(h.Begin[kassign[i]], h.P1)+plan7.IntScale <= p.Bsc[kassign[i]] {
					for k := 1; k < kassign[i]; k++ {
						tr.add(StD, int32(k), 0)
					}
				}
			}
			tr.add(StM, int32(kassign[i]), int32(i))
			if i < L && tassign[i+1] == StM && kassign[i+1]-kassign[i] > 1 {
				for k := kassign[i] + 1; k < kassign[i+1]; k++ {
					tr.add(StD, int32(k), 0)
				}
			}
			if i == L || tassign[i+1] == StC {
				// HMMER2 tests the exit of node kassign[i-1] here, not
				// kassign[i]; the quirk is kept. kassign[0] is never
				// assigned (garbage in HMMER2, 0 here).
				if plan7.Prob2Score(h.End[kassign[i-1]], 1.)+plan7.IntScale <= p.Esc[kassign[i-1]] {
					for k := kassign[i] + 1; k <= M; k++ {
						tr.add(StD, int32(k), 0)
					}
				}
				tr.add(StE, 0, 0)
				tr.add(StC, 0, 0)
			}
		case StI:
			tr.add(StI, int32(kassign[i]), int32(i))
		case StN:
			tr.add(StN, 0, int32(i))
		case StC:
			tr.add(StC, 0, int32(i))
		default:
			return 0, nil, fmt.Errorf("viterbi: WeeViterbi assigned state %s to residue %d", tassign[i], i)
		}
	}
	tr.add(StT, 0, 0)
	return retSc, tr, nil
}

// wee holds the two pairs of rolling rows get_wee_midpt() uses.
type wee struct {
	p      *plan7.Profile
	trans  []nodeTrans
	fw, bw [2][]weeCell
	fx, bx [2][nX]int32
}

type weeCell struct{ m, i, d int32 }

func newWee(p *plan7.Profile) *wee {
	w := &wee{p: p, trans: transOf(p)}
	for r := 0; r < 2; r++ {
		w.fw[r] = make([]weeCell, p.M+2)
		w.bw[r] = make([]weeCell, p.M+2)
	}
	return w
}

// midpoint is get_wee_midpt(): the optimal state at the middle residue
// s2 of segment s1..s3, from a forward pass to s2 and a backward pass
// from s3, with the boundary states (k1,t1) and (k3,t3) pinned.
func (w *wee) midpoint(dsq []byte, k1 int, t1 State, s1, k3 int, t3 State, s3 int) (sc int32, k2 int, t2 State, s2 int, err error) {
	p := w.p
	M := p.M
	xsc := &p.Xsc
	tr := w.trans[:M+1]
	s2 = s1 + (s3-s1)/2
	if s3-s1 == 1 && t1 == StS {
		s2 = s1
	}
	if s3-s1 == 1 && t3 == StT {
		s2 = s3
	}
	start := s1
	if t1 == StS {
		start = 0
	}

	// Forward pass from the start state to row s2.
	fw, xm := &w.fw, &w.fx
	cur := start % 2
	xm[cur][xN], xm[cur][xB], xm[cur][xE], xm[cur][xC] = negInf, negInf, negInf, negInf
	for k := k1; k <= k3; k++ {
		fw[cur][k] = weeCell{negInf, negInf, negInf}
	}
	switch t1 {
	case StM:
		fw[cur][k1].m = 0
	case StI:
		fw[cur][k1].i = 0
	case StN, StS:
		xm[cur][xN] = 0
	case StC:
		xm[cur][xC] = 0
	default:
		return 0, 0, 0, 0, fmt.Errorf("viterbi: cannot start a WeeViterbi segment in state %s", t1)
	}
	var s int32
	if t1 == StM {
		r := fw[cur]
		for k := k1 + 1; k <= k3; k++ {
			r[k].d = negInf
			if s = r[k-1].m + tr[k].md; s > negInf {
				r[k].d = s
			}
			if s = r[k-1].d + tr[k].dd; s > r[k].d {
				r[k].d = s
			}
		}
		xm[cur][xE] = negInf
		if s = r[k1].m + p.Esc[k1]; s > negInf {
			xm[cur][xE] = s
		}
	}
	xm[cur][xB] = negInf
	if s = xm[cur][xN] + xsc[plan7.XTN][plan7.Move]; s > negInf {
		xm[cur][xB] = s
	}
	xm[cur][xC] = negInf
	if s = xm[cur][xE] + xsc[plan7.XTE][plan7.Move]; s > negInf {
		xm[cur][xC] = s
	}
	for i := start + 1; i <= s2; i++ {
		cur = i % 2
		prv := 1 - cur
		x := dsq[i-1]
		ms, is := p.Msc[x][:M+1], p.Isc[x][:M+1]
		rc, rp := fw[cur][:M+2], fw[prv][:M+2]
		xc, xp := &xm[cur], &xm[prv]
		xb := xp[xB]
		c := &rc[k1]
		c.m, c.i, c.d = negInf, negInf, negInf
		if k1 < M {
			c.i = negInf
			if s = rp[k1].m + tr[k1].mi; s > negInf {
				c.i = s
			}
			if s = rp[k1].i + tr[k1].ii; s > c.i {
				c.i = s
			}
			if is[k1] != negInf {
				c.i += is[k1]
			} else {
				c.i = negInf
			}
		}
		if s = xb + tr[k1].bm; s > negInf {
			c.m = s
		}
		if ms[k1] != negInf {
			c.m += ms[k1]
		} else {
			c.m = negInf
		}
		for k := k1 + 1; k <= k3; k++ {
			n := &tr[k]
			c, cl, pl := &rc[k], &rc[k-1], &rp[k-1]
			v := int32(negInf)
			if s = pl.m + n.mm; s > negInf {
				v = s
			}
			if s = pl.i + n.im; s > v {
				v = s
			}
			if s = xb + n.bm; s > v {
				v = s
			}
			if s = pl.d + n.dm; s > v {
				v = s
			}
			if ms[k] != negInf {
				v += ms[k]
			} else {
				v = negInf
			}
			c.m = v
			d := int32(negInf)
			iv := int32(negInf)
			if k < M {
				if s = cl.m + n.md; s > negInf {
					d = s
				}
				if s = cl.d + n.dd; s > d {
					d = s
				}
				pk := &rp[k]
				if s = pk.m + n.mi; s > negInf {
					iv = s
				}
				if s = pk.i + n.ii; s > iv {
					iv = s
				}
				if is[k] != negInf {
					iv += is[k]
				} else {
					iv = negInf
				}
			}
			c.d, c.i = d, iv
		}
		xc[xN] = negInf
		if s = xp[xN] + xsc[plan7.XTN][plan7.Loop]; s > negInf {
			xc[xN] = s
		}
		xc[xE] = negInf
		for k := k1; k <= k3 && k <= M; k++ {
			if s = rc[k].m + tr[k].me; s > xc[xE] {
				xc[xE] = s
			}
		}
		xc[xB] = negInf
		if s = xc[xN] + xsc[plan7.XTN][plan7.Move]; s > negInf {
			xc[xB] = s
		}
		xc[xC] = negInf
		if s = xp[xC] + xsc[plan7.XTC][plan7.Loop]; s > negInf {
			xc[xC] = s
		}
		if s = xc[xE] + xsc[plan7.XTE][plan7.Move]; s > xc[xC] {
			xc[xC] = s
		}
	}

	// Backward pass from the end state down to row s2. M and I cells of
	// a row do not include that row's emission until it is left.
	bw, bx := &w.bw, &w.bx
	nxt := s3 % 2
	bx[nxt][xN], bx[nxt][xB], bx[nxt][xE], bx[nxt][xC] = negInf, negInf, negInf, negInf
	for k := k1; k <= k3+1; k++ {
		bw[nxt][k] = weeCell{negInf, negInf, negInf}
	}
	cur = 1 - nxt
	bw[cur][k3+1] = weeCell{negInf, negInf, negInf}
	switch t3 {
	case StM:
		bw[nxt][k3].m = 0
	case StI:
		bw[nxt][k3].i = 0
	case StN:
		bx[nxt][xN] = 0
	case StC:
		bx[nxt][xC] = 0
	case StT:
		bx[nxt][xC] = xsc[plan7.XTC][plan7.Move]
	default:
		return 0, 0, 0, 0, fmt.Errorf("viterbi: cannot end a WeeViterbi segment in state %s", t3)
	}
	if t3 == StT {
		bx[nxt][xE] = bx[nxt][xC] + xsc[plan7.XTE][plan7.Move]
		for k := k3; k >= k1; k-- {
			bw[nxt][k].m = bx[nxt][xE] + tr[k].me
			if s3 != s2 {
				bw[nxt][k].m += p.Msc[dsq[s3-1]][k]
			}
		}
	}
	// Transitions out of node k are stored with node k+1 ("into" form):
	// TMM(k) = tr[k+1].mm, TMD(k) = tr[k+1].md, TDM(k) = tr[k+1].dm,
	// TDD(k) = tr[k+1].dd, TIM(k) = tr[k+1].im; TMI(k), TII(k) at tr[k].
	for i := s3 - 1; i >= s2; i-- {
		cur = i % 2
		nxt = 1 - cur
		var x byte
		if i >= 1 {
			x = dsq[i-1]
		}
		ms, is := p.Msc[x][:M+1], p.Isc[x][:M+1]
		rc, rn := bw[cur][:M+2], bw[nxt][:M+2]
		xc, xn := &bx[cur], &bx[nxt]
		emit := i != s2
		xc[xC] = negInf
		if s = xn[xC] + xsc[plan7.XTC][plan7.Loop]; s > negInf {
			xc[xC] = s
		}
		xc[xB] = negInf
		for k := k1; k <= k3; k++ {
			if s = rn[k].m + tr[k].bm; s > xc[xB] {
				xc[xB] = s
			}
		}
		xc[xE] = negInf
		if s = xc[xC] + xsc[plan7.XTE][plan7.Move]; s > negInf {
			xc[xE] = s
		}
		xc[xN] = negInf
		if s = xc[xB] + xsc[plan7.XTN][plan7.Move]; s > negInf {
			xc[xN] = s
		}
		if s = xn[xN] + xsc[plan7.XTN][plan7.Loop]; s > xc[xN] {
			xc[xN] = s
		}
		xe := xc[xE]
		for k := k3; k >= k1; k-- {
			c := &rc[k]
			if k == M {
				c.m = xe
				c.d, c.i = negInf, negInf
				if emit {
					c.m += ms[k]
				}
				continue
			}
			n1 := &tr[k+1]
			nk := &rn[k]
			nk1 := &rn[k+1]
			v := int32(negInf)
			if s = xe + tr[k].me; s > negInf {
				v = s
			}
			if s = nk1.m + n1.mm; s > v {
				v = s
			}
			if s = nk.i + tr[k].mi; s > v {
				v = s
			}
			if s = rc[k+1].d + n1.md; s > v {
				v = s
			}
			if emit {
				v += ms[k]
			}
			c.m = v
			d := int32(negInf)
			if s = nk1.m + n1.dm; s > negInf {
				d = s
			}
			if s = rc[k+1].d + n1.dd; s > d {
				d = s
			}
			c.d = d
			iv := int32(negInf)
			if s = nk1.m + n1.im; s > negInf {
				iv = s
			}
			if s = nk.i + tr[k].ii; s > iv {
				iv = s
			}
			if emit {
				iv += is[k]
			}
			c.i = iv
		}
	}

	cur = s2 % 2
	max := int32(negInf)
	fr, br := w.fw[cur], bw[cur]
	for k := k1; k <= k3; k++ {
		if s = fr[k].m + br[k].m; s > max {
			k2, t2, max = k, StM, s
		}
		if s = fr[k].i + br[k].i; s > max {
			k2, t2, max = k, StI, s
		}
	}
	if s = w.fx[cur][xN] + bx[cur][xN]; s > max {
		k2, t2, max = 1, StN, s
	}
	if s = w.fx[cur][xC] + bx[cur][xC]; s > max {
		k2, t2, max = M, StC, s
	}
	if t2 == StBogus {
		return 0, 0, 0, 0, fmt.Errorf("viterbi: no path through residues %d..%d", s1, s3)
	}
	return max, k2, t2, s2, nil
}
