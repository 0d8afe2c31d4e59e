package viterbi

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// RAMLimitMB is HMMER2's RAMLIMIT: above this many megabytes a full
// Viterbi matrix is not allocated and the linear-memory path is taken.
const RAMLimitMB = 32

// padN is the row over-allocation hmm2search's matrices grow by.
const padN = 25

// matrixStructBytes is sizeof(struct dpmatrix_s) on a 64-bit build
// (eight pointers, four ints), part of P7ViterbiSize()'s estimate.
const matrixStructBytes = 80

// ViterbiSizeMB is P7ViterbiSize(): HMMER2's estimate, in whole MB, of a
// full Viterbi matrix for L residues and M nodes on a 64-bit machine.
func ViterbiSizeMB(L, M int) int {
	mb := float32(matrixStructBytes)
	mb = float32(float64(mb) + 3.*float64(float32(L+1))*float64(float32(M+2))*4)
	mb = float32(float64(mb) + 4.*float64(float32(L+1))*8)
	mb = float32(float64(mb) + 5.*float64(float32(L+1))*4)
	mb = float32(float64(mb) / 1048576.)
	return int(mb)
}

// Space tracks the allocated size of hmm2search's reusable DP matrix so
// that the choice between P7Viterbi() and P7SmallViterbi() is made as
// HMMER2 makes it: the matrix only grows (by 25 rows of slack), and a
// problem is too big when growing would exceed RAMLimitMB.
type Space struct {
	MaxN, MaxM int
}

// NewSpace is the state of a freshly created matrix for an M-node model
// (CreatePlan7Matrix(1, M, 25, 0)).
func NewSpace(M int) Space { return Space{MaxN: 1, MaxM: M} }

// OK is P7ViterbiSpaceOK().
func (s Space) OK(L, M int) bool {
	newM, newN := s.MaxM, s.MaxN
	if M > s.MaxM {
		newM = M
	}
	if L > s.MaxN {
		newN = L + padN
	}
	return ViterbiSizeMB(newN, newM) <= RAMLimitMB
}

// grow records a full P7Viterbi() on L residues (ResizePlan7Matrix).
func (s *Space) grow(L, M int) {
	if L > s.MaxN {
		s.MaxN = L + padN
	}
	if M > s.MaxM {
		s.MaxM = M
	}
}

// Align returns the Viterbi score and traceback of one sequence exactly
// as hmm2search computes them: P7Viterbi() when the matrix fits,
// otherwise P7SmallViterbi(). sp is updated the same way HMMER2's reused
// matrix is. The trace is nil when no alignment is possible.
func Align(p *plan7.Profile, dsq []byte, mx *Matrix, sp *Space) (int32, *Trace, error) {
	L := len(dsq)
	if sp.OK(L, p.M) {
		sp.grow(L, p.M)
		sc := mx.Fill(p, dsq)
		tr, err := mx.Traceback(p, dsq)
		return sc, tr, err
	}
	return SmallViterbi(p, dsq, mx, sp)
}

// AdvanceSpace records what Align does to the matrix size for a
// sequence of length L when only its score is needed. HMMER2 also
// grows the matrix while aligning the single-hit segments of sequences
// too big for a full matrix; those segments are known only after the
// linear-memory alignment, which is skipped for non-hits here. That can
// change the full/linear-memory choice only for a later hit whose length
// is within 25 residues of the RAMLimitMB boundary, and there only the
// tie-breaking of equal-scoring paths; HMMER2's own threads keep one
// matrix each, so its choice in that window already varies between runs.
func AdvanceSpace(L, M int, sp *Space) {
	if sp.OK(L, M) {
		sp.grow(L, M)
	}
}

// SmallViterbi is P7SmallViterbi(): the linear-memory parsing Viterbi
// splits the sequence into single-hit segments, each aligned with the
// full Viterbi when it fits and with the divide-and-conquer WeeViterbi
// otherwise, and the pieces are joined into one trace.
func SmallViterbi(p *plan7.Profile, dsq []byte, mx *Matrix, sp *Space) (int32, *Trace, error) {
	L := len(dsq)
	sc, ctr := ParsingViterbi(p, dsq)
	if ctr == nil {
		return sc, nil, nil
	}
	ndom := len(ctr.St)/2 - 1
	sub := make([]*Trace, ndom)
	for d := 0; d < ndom; d++ {
		from, to := int(ctr.Pos[2*d+1]), int(ctr.Pos[2*d+2])
		seg := dsq[from:to]
		var tr *Trace
		var err error
		if sp.OK(len(seg), p.M) {
			sp.grow(len(seg), p.M)
			mx.Fill(p, seg)
			tr, err = mx.Traceback(p, seg)
		} else {
			_, tr, err = WeeViterbi(p, seg)
		}
		if err != nil {
			return sc, nil, err
		}
		if tr == nil {
			return sc, nil, fmt.Errorf("viterbi: no alignment for segment %d..%d", from+1, to)
		}
		sub[d] = tr
	}
	tr := &Trace{}
	tr.add(StS, 0, 0)
	tr.add(StN, 0, 0)
	for pos := 1; pos <= int(ctr.Pos[1]); pos++ {
		tr.add(StN, 0, int32(pos))
	}
	for d := 0; d < ndom; d++ {
		off := ctr.Pos[2*d+1]
		t := sub[d]
		for t2 := 2; t2 < len(t.St)-2; t2++ {
			pos := int32(0)
			if t.Pos[t2] > 0 {
				pos = t.Pos[t2] + off
			}
			tr.add(t.St[t2], t.Node[t2], pos)
		}
		if d == ndom-1 {
			tr.add(StC, 0, 0)
		} else {
			tr.add(StJ, 0, 0)
			for pos := ctr.Pos[2*d+2] + 1; pos <= ctr.Pos[2*(d+1)+1]; pos++ {
				tr.add(StJ, 0, pos)
			}
		}
	}
	for pos := int(ctr.Pos[2*ndom]) + 1; pos <= L; pos++ {
		tr.add(StC, 0, int32(pos))
	}
	tr.add(StT, 0, 0)
	return sc, tr, nil
}

// ParsingViterbi is P7ParsingViterbi(): a two-row Viterbi that carries
// trace pointers to find where each pass through the model begins and
// ends. It returns the score and a collapsed trace S,(B,E)*,T whose Pos
// gives the B and E positions (the segment is B.Pos+1..E.Pos).
func ParsingViterbi(p *plan7.Profile, dsq []byte) (int32, *Trace) {
	M, L := p.M, len(dsq)
	// One record per node keeps the twelve values a cell needs together
	// (and the loop's live pointers few enough to stay in registers).
	type cell struct{ m, i, d, mt, it, dt int32 }
	rows := [2][]cell{make([]cell, M+1), make([]cell, M+1)}
	var xmx, xtr [2][nX]int32
	btr := make([]int32, L+1)
	etr := make([]int32, L+1)
	xmx[0][xN] = 0
	xmx[0][xB] = p.Xsc[plan7.XTN][plan7.Move]
	btr[0] = 0
	xmx[0][xE], xmx[0][xC], xmx[0][xJ] = negInf, negInf, negInf
	etr[0] = -1
	for k := 0; k <= M; k++ {
		rows[0][k].m, rows[0][k].i, rows[0][k].d = negInf, negInf, negInf
	}
	xsc := &p.Xsc
	trans := transOf(p)
	cur := 0
	var sc int32
	for i := 1; i <= L; i++ {
		cur = i % 2
		prv := 1 - cur
		x := dsq[i-1]
		ms, is := p.Msc[x][:M+1], p.Isc[x][:M+1]
		rc, rp := rows[cur][:M+1], rows[prv][:M+1]
		tr := trans[:M+1]
		xb := xmx[prv][xB]
		rc[0].m, rc[0].i, rc[0].d = negInf, negInf, negInf
		for k := 1; k <= M; k++ {
			n := &tr[k]
			c, cl := &rc[k], &rc[k-1]
			pl := &rp[k-1]
			v := int32(negInf)
			vt := c.mt // HMMER2 leaves the pointer stale when nothing wins
			if sc = pl.m + n.mm; sc > negInf {
				v, vt = sc, pl.mt
			}
			if sc = pl.i + n.im; sc > v {
				v, vt = sc, pl.it
			}
			if sc = xb + n.bm; sc > v {
				v, vt = sc, int32(i-1)
			}
			if sc = pl.d + n.dm; sc > v {
				v, vt = sc, pl.dt
			}
			if ms[k] != negInf {
				v += ms[k]
			} else {
				v = negInf
			}
			c.m, c.mt = v, vt

			d := int32(negInf)
			dt := c.dt
			if sc = cl.m + n.md; sc > negInf {
				d, dt = sc, cl.mt
			}
			if sc = cl.d + n.dd; sc > d {
				d, dt = sc, cl.dt
			}
			c.d, c.dt = d, dt

			if k < M {
				pk := &rp[k]
				iv := int32(negInf)
				it := c.it
				if sc = pk.m + n.mi; sc > negInf {
					iv, it = sc, pk.mt
				}
				if sc = pk.i + n.ii; sc > iv {
					iv, it = sc, pk.it
				}
				if is[k] != negInf {
					iv += is[k]
				} else {
					iv = negInf
				}
				c.i, c.it = iv, it
			}
		}
		xc, xp := &xmx[cur], &xmx[prv]
		xtc, xtp := &xtr[cur], &xtr[prv]
		xc[xN] = negInf
		if sc = xp[xN] + xsc[plan7.XTN][plan7.Loop]; sc > negInf {
			xc[xN] = sc
		}
		xc[xE] = negInf
		for k := 1; k <= M; k++ {
			if sc = rc[k].m + tr[k].me; sc > xc[xE] {
				xc[xE], etr[i] = sc, rc[k].mt
			}
		}
		xc[xJ] = negInf
		if sc = xp[xJ] + xsc[plan7.XTJ][plan7.Loop]; sc > negInf {
			xc[xJ], xtc[xJ] = sc, xtp[xJ]
		}
		if sc = xc[xE] + xsc[plan7.XTE][plan7.Loop]; sc > xc[xJ] {
			xc[xJ], xtc[xJ] = sc, int32(i)
		}
		xc[xB] = negInf
		if sc = xc[xN] + xsc[plan7.XTN][plan7.Move]; sc > negInf {
			xc[xB], btr[i] = sc, 0
		}
		if sc = xc[xJ] + xsc[plan7.XTJ][plan7.Move]; sc > xc[xB] {
			xc[xB], btr[i] = sc, xtc[xJ]
		}
		xc[xC] = negInf
		if sc = xp[xC] + xsc[plan7.XTC][plan7.Loop]; sc > negInf {
			xc[xC], xtc[xC] = sc, xtp[xC]
		}
		if sc = xc[xE] + xsc[plan7.XTE][plan7.Move]; sc > xc[xC] {
			xc[xC], xtc[xC] = sc, int32(i)
		}
	}
	sc = xmx[cur][xC] + xsc[plan7.XTC][plan7.Move]

	// Collapsed traceback: C points at the last E, E at its B, B at the
	// previous E (or 0).
	tr := &Trace{}
	tr.add(StT, 0, 0)
	i := xtr[L%2][xC]
	for i > 0 {
		tr.add(StE, 0, i)
		i = etr[i]
		tr.add(StB, 0, i)
		i = btr[i]
	}
	tr.add(StS, 0, 0)
	tr.reverse()
	return sc, tr
}
