package core

// Equation 1 of the 2012 paper (--scoring paper), minimised:
//
//	CG_i        = 3 if column i is CGAP, else 0
//	(GPOE, GPE) = (4, 1), or (0, 0) on CGAP columns
//	M_ij        = 0 if the read residue is in the ancestral state set, else 3
//	I_ij        = S_i,j-1 + 3
//	D_ij        = min(S_i-1,j + GPOE_i, D_i-1,j + GPE_i)
//	S_ij        = min(S_i-1,j-1 + M_ij + CG_i, D_ij, I_ij)
//
// The paper leaves the borders open; we align the whole read and let it
// start and end anywhere on the reference: S_i,-1 = 0, S_-1,j = 3(j+1),
// and the score is the minimum of the last row (the leftmost one wins).
// Ties inside prefer the diagonal, then the deletion, then the insertion,
// and a deletion run is extended only when that is strictly cheaper.
const (
	paperOpen     = 4
	paperExtend   = 1
	paperMismatch = 3
	paperCGap     = 3
	paperInsert   = 3
	paperInf      = 1 << 29
)

// paperDP runs Equation 1 for one read and one branch. With tb != nil it
// records traceback flags (L*n) and returns the end column as well.
func paperDP(br *Branches, edge int, m *Model, q []uint8, s, d []int32, tb []uint8) (score int32, endCol int) {
	L, n := br.Len, len(q)
	for i := 0; i < L; i++ {
		s[i] = 0 // row -1
	}
	for j := 0; j < n; j++ {
		bc := m.States[q[j]]
		diag := int32(paperInsert * j) // S_-1,j-1
		left := int32(paperInsert * (j + 1))
		dl := int32(paperInf)
		for i := 0; i < L; i++ {
			ac, cg := br.At(edge, i)
			var flags uint8
			sm := diag
			if ac&bc == 0 {
				sm += paperMismatch
			}
			gpoe, gpe := int32(paperOpen), int32(paperExtend)
			if cg {
				sm += paperCGap
				gpoe, gpe = 0, 0
			}
			dv := left + gpoe
			if e := dl + gpe; e < dv {
				dv = e
				flags |= tbLeftStay
			}
			above := s[i]
			ins := above + paperInsert
			v := sm
			switch {
			case dv < v && dv <= ins:
				v = dv
				flags |= tbFromLeft
			case ins < v && ins < dv:
				v = ins
				flags |= tbFromUp
			}
			diag = above
			s[i] = v
			left, dl = v, dv
			if tb != nil {
				tb[j*L+i] = flags
			}
		}
	}
	score, endCol = paperInf, 0
	for i := 0; i < L; i++ {
		if s[i] < score {
			score, endCol = s[i], i
		}
	}
	return score, endCol
}

func (c *CPUScorer) scorePaper(job *Job, b Block, res *Results) {
	L := job.Branches.Len
	c.paperState = grow(c.paperState, 2*L)
	q0, q1 := b.Reads(job)
	for e := b.Start; e < b.End; e++ {
		for qi := q0; qi < q1; qi++ {
			sc, _ := paperDP(job.Branches, e, job.Model, job.Queries[qi].CStates, c.paperState[:L], c.paperState[L:], nil)
			res.Offer(qi, e, -sc)
		}
	}
}

// alignPaper aligns one read to one branch under Equation 1 and returns
// the score and the trace (from the end backwards).
func (a *aligner) alignPaper(br *Branches, edge int, m *Model, q []uint8, trace []uint8) (int, []uint8) {
	L, n := br.Len, len(q)
	s := make([]int32, 2*L)
	if cap(a.tb) < L*n {
		a.tb = make([]uint8, L*n)
	}
	tb := a.tb[:L*n]
	score, end := paperDP(br, edge, m, q, s[:L], s[L:], tb)
	trace = trace[:0]
	ia, ib := L-1, n-1
	for ; ia > end; ia-- {
		trace = append(trace, opDelete)
	}
	inD := false
	for ia >= 0 && ib >= 0 {
		f := tb[ib*L+ia]
		switch {
		case inD || f&tbFromLeft != 0:
			trace = append(trace, opDelete)
			ia--
			inD = f&tbLeftStay != 0
		case f&tbFromUp != 0:
			trace = append(trace, opInsert)
			ib--
		default:
			trace = append(trace, opMatch)
			ia--
			ib--
		}
	}
	for ; ia >= 0; ia-- {
		trace = append(trace, opDelete)
	}
	for ; ib >= 0; ib-- {
		trace = append(trace, opInsert)
	}
	return int(score), trace
}
