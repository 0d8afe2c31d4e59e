package viterbi

import (
	"sync"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// Lanes is the number of sequences the batch kernel advances together,
// one per lane (ClawHMMER's "one sequence per stream element"): eight
// int32 lanes fill one AVX2 register.
const Lanes = 8

// laneTables is a profile laid out for the lane kernel. Node k's
// transitions into k (from k-1), its entry/exit scores and its
// emission scores for every residue sit together, so that one node's
// data is a few cache lines that all lanes share.
type laneTables struct {
	M int
	// trans[k] for k = 1..M: scores of M(k-1)->M, I(k-1)->M, D(k-1)->M,
	// B->M(k), M(k-1)->D, D(k-1)->D, M(k)->I, I(k)->I, M(k)->E.
	trans []nodeTrans
	// emit[k*emitStride + x] is the match emission of residue x at k,
	// emit[k*emitStride + insOffset + x] the insert emission.
	emit []int32
	xsc  [4][2]int32
}

type nodeTrans struct {
	mm, im, dm, bm, md, dd, mi, ii, me int32
	_                                  [7]int32 // pad to 64 bytes
}

const (
	insOffset  = 24
	emitStride = 48
)

func newLaneTables(p *plan7.Profile) *laneTables {
	M := p.M
	t := &laneTables{M: M, trans: make([]nodeTrans, M+1), emit: make([]int32, (M+1)*emitStride), xsc: p.Xsc}
	for k := 1; k <= M; k++ {
		n := &t.trans[k]
		n.mm = p.Tsc[plan7.TMM][k-1]
		n.im = p.Tsc[plan7.TIM][k-1]
		n.dm = p.Tsc[plan7.TDM][k-1]
		n.bm = p.Bsc[k]
		n.md = p.Tsc[plan7.TMD][k-1]
		n.dd = p.Tsc[plan7.TDD][k-1]
		n.me = p.Esc[k]
		if k < M {
			n.mi = p.Tsc[plan7.TMI][k]
			n.ii = p.Tsc[plan7.TII][k]
		} else {
			n.mi, n.ii = negInf, negInf
		}
		for x := 0; x < plan7.MaxCode; x++ {
			t.emit[k*emitStride+x] = p.Msc[x][k]
			if k < M {
				t.emit[k*emitStride+insOffset+x] = p.Isc[x][k]
			} else {
				t.emit[k*emitStride+insOffset+x] = negInf
			}
		}
	}
	return t
}

// laneState is the DP state of Lanes sequences: the previous row of
// M, I and D for every node, lane-interleaved (cell k of lane w at
// k*Lanes+w), each lane's special states, and where each lane is in its
// sequence.
type laneState struct {
	mmx, imx, dmx []int32
	x             laneSpecials
	seq           [Lanes][]byte
	base          [Lanes]*byte // &seq[w][0], for the assembly kernel
	pos           [Lanes]int64 // next residue of each lane
}

// laneSpecials is laid out for the assembly kernel (offsets in
// kernel_amd64.s): special states per lane, the special transition
// scores, and a scratch row of residues.
type laneSpecials struct {
	xn, xb, xc, xj, xe [Lanes]int32
	// xsc: N loop, N move, E loop, E move, C loop, C move, J loop, J move
	xsc [8]int32
	res [Lanes]byte
}

func newLaneState(t *laneTables) *laneState {
	n := (t.M + 1) * Lanes
	s := &laneState{mmx: make([]int32, n), imx: make([]int32, n), dmx: make([]int32, n)}
	x := &t.xsc
	s.x.xsc = [8]int32{
		x[plan7.XTN][plan7.Loop], x[plan7.XTN][plan7.Move],
		x[plan7.XTE][plan7.Loop], x[plan7.XTE][plan7.Move],
		x[plan7.XTC][plan7.Loop], x[plan7.XTC][plan7.Move],
		x[plan7.XTJ][plan7.Loop], x[plan7.XTJ][plan7.Move],
	}
	return s
}

// reset puts lane w at row 0 of sequence seq.
func (s *laneState) reset(w int, t *laneTables, seq []byte) {
	for k := 0; k <= t.M; k++ {
		s.mmx[k*Lanes+w], s.imx[k*Lanes+w], s.dmx[k*Lanes+w] = negInf, negInf, negInf
	}
	s.x.xn[w] = 0
	s.x.xb[w] = t.xsc[plan7.XTN][plan7.Move]
	s.x.xe[w], s.x.xc[w], s.x.xj[w] = negInf, negInf, negInf
	s.seq[w], s.base[w], s.pos[w] = seq, &seq[0], 0
}

// rowsGeneric advances every lane by n residues: for each row, the M,
// I, D cells of all nodes (rowGeneric) then the special states. It is
// the portable form of the kernel; rowsAVX2 does the same arithmetic.
func rowsGeneric(t *laneTables, s *laneState, n int) {
	var res [Lanes]byte
	for r := 0; r < n; r++ {
		for w := 0; w < Lanes; w++ {
			res[w] = s.seq[w][s.pos[w]]
			s.pos[w]++
		}
		rowGeneric(t, s, &res)
		x := &s.x
		for w := 0; w < Lanes; w++ {
			x.xn[w], x.xe[w], x.xj[w], x.xb[w], x.xc[w] = specials(&t.xsc, x.xn[w], x.xj[w], x.xc[w], x.xe[w])
		}
	}
}

// rowGeneric advances every lane by one residue (res) through the
// M, I, D cells of all nodes and leaves each lane's best M->E score in
// s.x.xe. It is the portable form of the kernel; the per-node operations
// and their order are exactly those of Matrix.Fill.
func rowGeneric(t *laneTables, s *laneState, res *[Lanes]byte) {
	M := t.M
	var mPrev, iPrev, dPrev, mCur, dCur, xe [Lanes]int32
	for w := 0; w < Lanes; w++ {
		mPrev[w], iPrev[w], dPrev[w] = negInf, negInf, negInf // row i-1, node 0
		mCur[w], dCur[w] = negInf, negInf                     // row i, node 0
		xe[w] = negInf
	}
	xb := s.x.xb
	var rm, ri [Lanes]int
	for w := 0; w < Lanes; w++ {
		rm[w] = int(res[w])
		ri[w] = int(res[w]) + insOffset
	}
	for k := 1; k <= M; k++ {
		n := &t.trans[k]
		em := t.emit[k*emitStride : k*emitStride+emitStride]
		cell := s.mmx[k*Lanes : k*Lanes+Lanes]
		icell := s.imx[k*Lanes : k*Lanes+Lanes]
		dcell := s.dmx[k*Lanes : k*Lanes+Lanes]
		for w := 0; w < Lanes; w++ {
			oldM, oldI, oldD := cell[w], icell[w], dcell[w]
			v := mPrev[w] + n.mm
			if x := iPrev[w] + n.im; x > v {
				v = x
			}
			if x := dPrev[w] + n.dm; x > v {
				v = x
			}
			if x := xb[w] + n.bm; x > v {
				v = x
			}
			v += em[rm[w]&63]
			if v < negInf {
				v = negInf
			}
			d := dCur[w] + n.dd
			if x := mCur[w] + n.md; x > d {
				d = x
			}
			if d < negInf {
				d = negInf
			}
			iv := oldM + n.mi
			if x := oldI + n.ii; x > iv {
				iv = x
			}
			iv += em[ri[w]&63]
			if iv < negInf {
				iv = negInf
			}
			if x := v + n.me; x > xe[w] {
				xe[w] = x
			}
			cell[w], icell[w], dcell[w] = v, iv, d
			mPrev[w], iPrev[w], dPrev[w] = oldM, oldI, oldD
			mCur[w], dCur[w] = v, d
		}
	}
	// I_M does not exist; the kernel's arithmetic at M is kept out of
	// the matrix like Matrix.Fill keeps it.
	for w := 0; w < Lanes; w++ {
		s.imx[M*Lanes+w] = negInf
	}
	s.x.xe = xe
}

// transCache holds each profile's per-node transition records, built
// once: the scalar DP routines read them too.
var transCache sync.Map // *plan7.Profile -> []nodeTrans

// transOf returns p's transition records (laneTables.trans layout).
func transOf(p *plan7.Profile) []nodeTrans {
	if t, ok := transCache.Load(p); ok {
		return t.([]nodeTrans)
	}
	t := newLaneTables(p).trans
	transCache.Store(p, t)
	return t
}
