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
	p                  *plan7.Profile
	fm, fi, fd, bm, bi [2][]int32
	bd                 [2][]int32
	fx, bx             [2][nX]int32
}

func newWee(p *plan7.Profile) *wee {
	w := &wee{p: p}
	for r := 0; r < 2; r++ {
		for _, a := range []*[2][]int32{&w.fm, &w.fi, &w.fd, &w.bm, &w.bi, &w.bd} {
			a[r] = make([]int32, p.M+2)
		}
	}
	return w
}

// midpoint is get_wee_midpt(): the optimal state at the middle residue
// s2 of segment s1..s3, from a forward pass to s2 and a backward pass
// from s3, with the boundary states (k1,t1) and (k3,t3) pinned.
func (w *wee) midpoint(dsq []byte, k1 int, t1 State, s1, k3 int, t3 State, s3 int) (sc int32, k2 int, t2 State, s2 int, err error) {
	p := w.p
	M := p.M
	tsc := &p.Tsc
	xsc := &p.Xsc
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
	mm, im, dm, xm := &w.fm, &w.fi, &w.fd, &w.fx
	cur := start % 2
	xm[cur][xN], xm[cur][xB], xm[cur][xE], xm[cur][xC] = negInf, negInf, negInf, negInf
	for k := k1; k <= k3; k++ {
		mm[cur][k], im[cur][k], dm[cur][k] = negInf, negInf, negInf
	}
	switch t1 {
	case StM:
		mm[cur][k1] = 0
	case StI:
		im[cur][k1] = 0
	case StN, StS:
		xm[cur][xN] = 0
	case StC:
		xm[cur][xC] = 0
	default:
		return 0, 0, 0, 0, fmt.Errorf("viterbi: cannot start a WeeViterbi segment in state %s", t1)
	}
	var s int32
	if t1 == StM {
		for k := k1 + 1; k <= k3; k++ {
			dm[cur][k] = negInf
			if s = mm[cur][k-1] + tsc[plan7.TMD][k-1]; s > negInf {
				dm[cur][k] = s
			}
			if s = dm[cur][k-1] + tsc[plan7.TDD][k-1]; s > dm[cur][k] {
				dm[cur][k] = s
			}
		}
		xm[cur][xE] = negInf
		if s = mm[cur][k1] + p.Esc[k1]; s > negInf {
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
		mm[cur][k1], im[cur][k1], dm[cur][k1] = negInf, negInf, negInf
		if k1 < M {
			im[cur][k1] = negInf
			if s = mm[prv][k1] + tsc[plan7.TMI][k1]; s > negInf {
				im[cur][k1] = s
			}
			if s = im[prv][k1] + tsc[plan7.TII][k1]; s > im[cur][k1] {
				im[cur][k1] = s
			}
			if p.Isc[x][k1] != negInf {
				im[cur][k1] += p.Isc[x][k1]
			} else {
				im[cur][k1] = negInf
			}
		}
		if s = xm[prv][xB] + p.Bsc[k1]; s > negInf {
			mm[cur][k1] = s
		}
		if p.Msc[x][k1] != negInf {
			mm[cur][k1] += p.Msc[x][k1]
		} else {
			mm[cur][k1] = negInf
		}
		for k := k1 + 1; k <= k3; k++ {
			mm[cur][k] = negInf
			if s = mm[prv][k-1] + tsc[plan7.TMM][k-1]; s > negInf {
				mm[cur][k] = s
			}
			if s = im[prv][k-1] + tsc[plan7.TIM][k-1]; s > mm[cur][k] {
				mm[cur][k] = s
			}
			if s = xm[prv][xB] + p.Bsc[k]; s > mm[cur][k] {
				mm[cur][k] = s
			}
			if s = dm[prv][k-1] + tsc[plan7.TDM][k-1]; s > mm[cur][k] {
				mm[cur][k] = s
			}
			if p.Msc[x][k] != negInf {
				mm[cur][k] += p.Msc[x][k]
			} else {
				mm[cur][k] = negInf
			}
			dm[cur][k] = negInf
			if k < M {
				if s = mm[cur][k-1] + tsc[plan7.TMD][k-1]; s > negInf {
					dm[cur][k] = s
				}
				if s = dm[cur][k-1] + tsc[plan7.TDD][k-1]; s > dm[cur][k] {
					dm[cur][k] = s
				}
			}
			im[cur][k] = negInf
			if k < M {
				if s = mm[prv][k] + tsc[plan7.TMI][k]; s > negInf {
					im[cur][k] = s
				}
				if s = im[prv][k] + tsc[plan7.TII][k]; s > im[cur][k] {
					im[cur][k] = s
				}
				if p.Isc[x][k] != negInf {
					im[cur][k] += p.Isc[x][k]
				} else {
					im[cur][k] = negInf
				}
			}
		}
		xm[cur][xN] = negInf
		if s = xm[prv][xN] + xsc[plan7.XTN][plan7.Loop]; s > negInf {
			xm[cur][xN] = s
		}
		xm[cur][xE] = negInf
		for k := k1; k <= k3 && k <= M; k++ {
			if s = mm[cur][k] + p.Esc[k]; s > xm[cur][xE] {
				xm[cur][xE] = s
			}
		}
		xm[cur][xB] = negInf
		if s = xm[cur][xN] + xsc[plan7.XTN][plan7.Move]; s > negInf {
			xm[cur][xB] = s
		}
		xm[cur][xC] = negInf
		if s = xm[prv][xC] + xsc[plan7.XTC][plan7.Loop]; s > negInf {
			xm[cur][xC] = s
		}
		if s = xm[cur][xE] + xsc[plan7.XTE][plan7.Move]; s > xm[cur][xC] {
			xm[cur][xC] = s
		}
	}

	// Backward pass from the end state down to row s2. M and I cells of
	// a row do not include that row's emission until it is left.
	bm, bi, bd, bx := &w.bm, &w.bi, &w.bd, &w.bx
	nxt := s3 % 2
	bx[nxt][xN], bx[nxt][xB], bx[nxt][xE], bx[nxt][xC] = negInf, negInf, negInf, negInf
	for k := k1; k <= k3+1; k++ {
		bm[nxt][k], bi[nxt][k], bd[nxt][k] = negInf, negInf, negInf
	}
	cur = 1 - nxt
	bm[cur][k3+1], bi[cur][k3+1], bd[cur][k3+1] = negInf, negInf, negInf
	switch t3 {
	case StM:
		bm[nxt][k3] = 0
	case StI:
		bi[nxt][k3] = 0
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
			bm[nxt][k] = bx[nxt][xE] + p.Esc[k]
			if s3 != s2 {
				bm[nxt][k] += p.Msc[dsq[s3-1]][k]
			}
		}
	}
	for i := s3 - 1; i >= s2; i-- {
		cur = i % 2
		nxt = 1 - cur
		var x byte
		if i >= 1 {
			x = dsq[i-1]
		}
		bx[cur][xC] = negInf
		if s = bx[nxt][xC] + xsc[plan7.XTC][plan7.Loop]; s > negInf {
			bx[cur][xC] = s
		}
		bx[cur][xB] = negInf
		for k := k1; k <= k3; k++ {
			if s = bm[nxt][k] + p.Bsc[k]; s > bx[cur][xB] {
				bx[cur][xB] = s
			}
		}
		bx[cur][xE] = negInf
		if s = bx[cur][xC] + xsc[plan7.XTE][plan7.Move]; s > negInf {
			bx[cur][xE] = s
		}
		bx[cur][xN] = negInf
		if s = bx[cur][xB] + xsc[plan7.XTN][plan7.Move]; s > negInf {
			bx[cur][xN] = s
		}
		if s = bx[nxt][xN] + xsc[plan7.XTN][plan7.Loop]; s > bx[cur][xN] {
			bx[cur][xN] = s
		}
		for k := k3; k >= k1; k-- {
			if k == M {
				bm[cur][k] = bx[cur][xE]
				bd[cur][k], bi[cur][k] = negInf, negInf
				if i != s2 {
					bm[cur][k] += p.Msc[x][k]
				}
				continue
			}
			bm[cur][k] = negInf
			if s = bx[cur][xE] + p.Esc[k]; s > negInf {
				bm[cur][k] = s
			}
			if s = bm[nxt][k+1] + tsc[plan7.TMM][k]; s > bm[cur][k] {
				bm[cur][k] = s
			}
			if s = bi[nxt][k] + tsc[plan7.TMI][k]; s > bm[cur][k] {
				bm[cur][k] = s
			}
			if s = bd[cur][k+1] + tsc[plan7.TMD][k]; s > bm[cur][k] {
				bm[cur][k] = s
			}
			if i != s2 {
				bm[cur][k] += p.Msc[x][k]
			}
			bd[cur][k] = negInf
			if s = bm[nxt][k+1] + tsc[plan7.TDM][k]; s > negInf {
				bd[cur][k] = s
			}
			if s = bd[cur][k+1] + tsc[plan7.TDD][k]; s > bd[cur][k] {
				bd[cur][k] = s
			}
			bi[cur][k] = negInf
			if s = bm[nxt][k+1] + tsc[plan7.TIM][k]; s > negInf {
				bi[cur][k] = s
			}
			if s = bi[nxt][k] + tsc[plan7.TII][k]; s > bi[cur][k] {
				bi[cur][k] = s
			}
			if i != s2 {
				bi[cur][k] += p.Isc[x][k]
			}
		}
	}

	cur = s2 % 2
	max := int32(negInf)
	for k := k1; k <= k3; k++ {
		if s = w.fm[cur][k] + bm[cur][k]; s > max {
			k2, t2, max = k, StM, s
		}
		if s = w.fi[cur][k] + bi[cur][k]; s > max {
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
