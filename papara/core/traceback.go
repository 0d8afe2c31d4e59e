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

// aligner holds the traceback matrix and one branch's columns between
// calls.
type aligner struct {
	s, si []int
	tb    []uint8
	state []uint32
	cgap  []bool
}

// loadBranch copies the states and CGAP flags of a branch.
func (a *aligner) loadBranch(br *Branches, edge int) {
	a.state = grow(a.state, br.Len)
	a.cgap = grow(a.cgap, br.Len)
	for i := range a.state {
		a.state[i], a.cgap[i] = br.At(edge, i)
	}
}

// alignPaPaRa is PaPaRa 2.5's full aligner (align_freeshift_pvec): the
// same DP as the scoring kernels, computed with plain integers, with a
// traceback from the best cell of the last row or last column. It returns
// the score and the trace (from the end backwards). Tie-breaking follows
// PaPaRa: the diagonal beats a gap state, the left gap beats the upper one,
// extension needs to be strictly better than opening, and the end cell is
// the first maximum in row-major order.
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
	a.loadBranch(br, edge)
	states, cgaps := a.state, a.cgap
	best, bestA, bestB := small, 0, 0
	for ib := 0; ib < n; ib++ {
		bc := m.States[q[ib]]
		lastSL, lastSC, lastDiag := small, 0, 0
		row := tb[ib*L : (ib+1)*L]
		lastRow := ib == n-1
		for ia := 0; ia < L; ia++ {
			var flags uint8
			ac, cgap := states[ia], cgaps[ia]
			sm := lastDiag
			if ac&bc != 0 {
				sm += pr.Match
			}
			lastDiag = s[ia]
			var open, stay int
			if cgap {
				open, stay = lastSC, lastSL
				sm += pr.MatchCGap
			} else {
				open, stay = lastSC+pr.GapOpen, lastSL+pr.GapExtend
			}
			sl := open
			if stay > open {
				sl = stay
				flags |= tbLeftStay
			}
			lastSL = sl
			suOpen, suExt := lastDiag+pr.GapOpen, si[ia]+pr.GapExtend
			su := suOpen
			if suExt > suOpen {
				su = suExt
				flags |= tbUpStay
			}
			si[ia] = su
			var sc int
			switch {
			case su > sl && su > sm:
				sc = su
				flags |= tbFromUp
			case sl >= su && sl > sm:
				sc = sl
				flags |= tbFromLeft
			default:
				sc = sm
			}
			lastSC = sc
			s[ia] = sc
			row[ia] = flags
			if (ia == L-1 || lastRow) && sc > best {
				best, bestA, bestB = sc, ia, ib
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
