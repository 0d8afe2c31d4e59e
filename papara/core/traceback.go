package core

// Trace operations, listed from the end of the alignment to its start (as
// PaPaRa's traceback produces them).
const (
	opMatch  = 0 // reference column and read residue aligned
	opDelete = 1 // reference column, gap in the read
	opInsert = 2 // read residue between reference columns
)

// traceback flags per DP cell
const (
	tbLeftStay = 1 << iota // the gap-from-left state extends
	tbUpStay               // the gap-from-above state extends
	tbFromLeft             // the cell's score comes from the left gap state
	tbFromUp               // the cell's score comes from the above gap state
)

// aligner holds the traceback matrix and per-branch tables between calls.
type aligner struct {
	s, si      []int
	tb         []uint8
	state      []uint32
	cgap       []bool
	open, ext  []int
	inc        []int
	incOf      map[uint32][]int
	incForEdge int
}

// loadBranch copies the states and CGAP flags of a branch and the gap
// penalties of its columns (waived on CGAP columns).
func (a *aligner) loadBranch(br *Branches, edge int, pr Params) {
	L := br.Len
	a.state = grow(a.state, L)
	a.cgap = grow(a.cgap, L)
	a.open = grow(a.open, L)
	a.ext = grow(a.ext, L)
	for i := 0; i < L; i++ {
		a.state[i], a.cgap[i] = br.At(edge, i)
		if a.cgap[i] {
			a.open[i], a.ext[i] = 0, 0
		} else {
			a.open[i], a.ext[i] = pr.GapOpen, pr.GapExtend
		}
	}
	a.incOf = map[uint32][]int{}
}

// matchInc returns the match increments of every column for a read
// residue with parsimony state bc (Match if it is in the column's state
// set, plus MatchCGap on CGAP columns).
func (a *aligner) matchInc(bc uint32, pr Params) []int {
	if v, ok := a.incOf[bc]; ok {
		return v
	}
	v := make([]int, len(a.state))
	for i, ac := range a.state {
		if ac&bc != 0 {
			v[i] = pr.Match
		}
		if a.cgap[i] {
			v[i] += pr.MatchCGap
		}
	}
	a.incOf[bc] = v
	return v
}

// alignPaPaRa is PaPaRa 2.5's full aligner (align_freeshift_pvec): the
// same DP as the scoring kernels, computed with plain integers, with a
// traceback from the best cell of the last row or last column. It returns
// the score and the trace (from the end backwards). Tie-breaking follows
// PaPaRa: the diagonal beats a gap state, the left gap beats the upper one,
// extension must be strictly better than opening, and the end cell is the
// first maximum in row-major order.
func (a *aligner) alignPaPaRa(br *Branches, edge int, m *Model, q []uint8, pr Params, trace []uint8) (int, []uint8) {
	const small = -32000
	L, n := br.Len, len(q)
	if cap(a.s) < L {
		a.s, a.si = make([]int, L), make([]int, L)
	}
	s, si := a.s[:L], a.si[:L]
	for i := range s {
		s[i], si[i] = 0, 0
	}
	if cap(a.tb) < L*n {
		a.tb = make([]uint8, L*n)
	}
	tb := a.tb[:L*n]
	a.loadBranch(br, edge, pr)
	openC, extC := a.open[:L], a.ext[:L]
	best, bestA, bestB := small, 0, 0
	for ib := 0; ib < n; ib++ {
		inc := a.matchInc(m.States[q[ib]], pr)[:L]
		lastSL, lastSC, lastDiag := small, 0, 0
		row := tb[ib*L : (ib+1)*L]
		for ia := 0; ia < L; ia++ {
			// Branch-free: the comparisons are data dependent and would
			// mispredict; x>>63 of a difference is -1 when it is negative.
			sm := lastDiag + inc[ia]
			lastDiag = s[ia]
			open := lastSC + openC[ia]
			d := open - (lastSL + extC[ia]) // < 0: extending the left gap is strictly better
			sl := open - d&(d>>63)
			lastSL = sl
			suOpen := lastDiag + pr.GapOpen
			e := suOpen - (si[ia] + pr.GapExtend)
			su := suOpen - e&(e>>63)
			si[ia] = su
			sc := max(sm, sl, su)
			flags := uint8(uint64(d)>>63) | uint8(uint64(e)>>63)<<1 |
				uint8((uint64(su-sl-1)&uint64(sm-sl))>>63)<<2 | // sl >= su && sl > sm
				uint8((uint64(sl-su)&uint64(sm-su))>>63)<<3 // su > sl && su > sm
			lastSC = sc
			s[ia] = sc
			row[ia] = flags
		}
		// Candidate end cells in PaPaRa's scan order: the last column of
		// every row, then (in the last row) every column.
		if ib < n-1 {
			if s[L-1] > best {
				best, bestA, bestB = s[L-1], L-1, ib
			}
		} else {
			for ia := 0; ia < L; ia++ {
				if s[ia] > best {
					best, bestA, bestB = s[ia], ia, ib
				}
			}
		}
	}

	trace = trace[:0]
	ia, ib := L-1, n-1
	for ia > bestA {
		trace = append(trace, opDelete)
		ia--
	}
	for ib > bestB {
		trace = append(trace, opInsert)
		ib--
	}
	inL, inU := false, false
	for ia >= 0 && ib >= 0 {
		f := tb[ib*L+ia]
		if !inL && !inU {
			inL = f&tbFromLeft != 0
			inU = f&tbFromUp != 0
			if !inL && !inU {
				trace = append(trace, opMatch)
				ia--
				ib--
			}
		}
		if inU {
			trace = append(trace, opInsert)
			ib--
			inU = f&tbUpStay != 0
		} else if inL {
			trace = append(trace, opDelete)
			ia--
			inL = f&tbLeftStay != 0
		}
	}
	for ; ia >= 0; ia-- {
		trace = append(trace, opDelete)
	}
	for ; ib >= 0; ib-- {
		trace = append(trace, opInsert)
	}
	return best, trace
}
