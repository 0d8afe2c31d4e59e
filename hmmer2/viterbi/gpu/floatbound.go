package gpu

import (
	"encoding/binary"
	"math"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// The FP32 kernel (Shape.Float) is exact for a model and a target length
// L when the conditions below hold; docs/hmm2search.md ("FP32 cells")
// and viterbi.cu's header prove it. In short: every real path score (a
// path from the start whose every term is one of the model's finite
// scores) lies in [lo(L), hi(L)] within ±2^24, where float addition of
// integers is exact, every cell a real path reaches is at least lo(L)
// and every value that comes from a -INFTY start or table entry stays far
// below it, rounding included, so it never wins a maximum.

// floatExact is F = 2^24: every integer of magnitude at most F is a
// float, so a float sum of two integers whose sum is within ±F is
// exact.
const floatExact = 1 << 24

// floatRounding bounds what one float addition's rounding adds to a
// value below -2^24 in the kernel: every value there is above -2^33
// (about -5 x INFTY at worst), where half an ulp is at most 2^9.
const floatRounding = 1 << 9

// floatScores are the bounds FloatMaxLen derives from a model's scores.
type floatScores struct {
	ok bool // every score the recurrences read is finite, within ±F, and each same-row score <= 0
	// row is the most one row can add to a path: the largest
	// row-crossing transition, entry or loop score plus the largest
	// emission score (0 if none is positive).
	row int64
	// lo0 is the sum of the negative parts of the scores on the witness
	// paths that bound real cells from below; nloop is N->N.
	lo0, nloop int64
	cmove      int64 // C->T, added once
}

// scanFloatScores reads the bounds of p's scores.
func scanFloatScores(p *plan7.Profile) floatScores {
	M := p.M
	f := floatScores{ok: true}
	finite := func(v int32) int64 {
		if v == -plan7.Infty || v < -floatExact || v > floatExact {
			f.ok = false
		}
		return int64(v)
	}
	// minOf and maxOf are the smallest (at most 0) and largest (at
	// least 0) of entries from..to of a node vector, each checked.
	minOf := func(v []int32, from, to int) int64 {
		m := int64(0)
		for k := from; k <= to; k++ {
			m = min(m, finite(v[k]))
		}
		return m
	}
	maxOf := func(v []int32, from, to int) int64 {
		m := int64(0)
		for k := from; k <= to; k++ {
			m = max(m, finite(v[k]))
		}
		return m
	}
	sameRowNonPositive := func(v int64) {
		if v > 0 {
			f.ok = false
		}
	}
	// Special scores. N->N, N->B, E->C and C->T are on the witness
	// paths and must be finite. E->J, J->J, J->B and C->C may be -INFTY
	// (single-hit and global configurations): a special state sum can
	// not wrap (its operands are clamped cells), and what it gives is a
	// -INFTY value like any other (J is never reached without E->J).
	x := &p.Xsc
	opt := func(v int32) int64 {
		if v == -plan7.Infty {
			return -plan7.Infty
		}
		return finite(v)
	}
	nloop, nmove := finite(x[plan7.XTN][plan7.Loop]), finite(x[plan7.XTN][plan7.Move])
	eloop, emove := opt(x[plan7.XTE][plan7.Loop]), finite(x[plan7.XTE][plan7.Move])
	cloop, cmove := opt(x[plan7.XTC][plan7.Loop]), finite(x[plan7.XTC][plan7.Move])
	jloop, jmove := opt(x[plan7.XTJ][plan7.Loop]), opt(x[plan7.XTJ][plan7.Move])
	for _, v := range []int64{eloop, emove, nmove, jmove} {
		sameRowNonPositive(v)
	}
	eloopLo := int64(0) // E->J on J's witness path, where J is reachable
	if eloop != -plan7.Infty {
		eloopLo = min(eloop, 0)
	}
	// Transitions of nodes 1..M-1 (into node k+1, and node k's I).
	cross := max(int64(0), nloop, jloop, cloop, maxOf(p.Bsc, 1, M))
	for _, s := range []int{plan7.TMM, plan7.TIM, plan7.TDM, plan7.TMI, plan7.TII} {
		cross = max(cross, maxOf(p.Tsc[s], 1, M-1))
	}
	sameRowNonPositive(maxOf(p.Tsc[plan7.TMD], 1, M-1))
	sameRowNonPositive(maxOf(p.Tsc[plan7.TDD], 1, M-1))
	// The D chain's scan (DSCAN) adds runs of D->D scores in another
	// order: their sums must be exact too.
	tdd := int64(0)
	for k := 1; k < M; k++ {
		tdd += int64(p.Tsc[plan7.TDD][k])
	}
	if tdd < -floatExact {
		f.ok = false
	}
	sameRowNonPositive(maxOf(p.Esc, 1, M))
	// Emissions: every code the kernel's table holds.
	emit := int64(0)
	mscMin, iscMin := int64(0), int64(0)
	for c := 0; c < plan7.MaxCode; c++ {
		emit = max(emit, maxOf(p.Msc[c], 1, M), maxOf(p.Isc[c], 1, M-1))
		mscMin = min(mscMin, minOf(p.Msc[c], 1, M))
		iscMin = min(iscMin, minOf(p.Isc[c], 1, M-1))
	}
	// The other transitions only need to be finite (int32 sums of them
	// cannot wrap); their negative parts bound no real cell.
	for s := range p.Tsc {
		minOf(p.Tsc[s], 1, M-1)
	}
	neg := func(v int64) int64 { return min(v, 0) }
	f.row = cross + emit
	f.lo0 = neg(nmove) + minOf(p.Bsc, 1, M) + mscMin + neg(minOf(p.Tsc[plan7.TMI], 1, M-1)) + iscMin +
		neg(minOf(p.Tsc[plan7.TMD], 1, M-1)) + minOf(p.Esc, 1, M) + eloopLo + neg(emove) + neg(cmove)
	f.nloop, f.cmove = nloop, cmove
	return f
}

// FloatMaxLen is the longest target the FP32 kernel scores exactly for
// p: 0 when p has a score the argument does not cover (a -INFTY or huge
// entry, a positive same-row score), so that every target goes to the
// int32 kernel. Empty targets are exact at any length (the kernel
// scores them as HMMER2 does, in int32).
func FloatMaxLen(p *plan7.Profile) int {
	f := scanFloatScores(p)
	if !f.ok {
		return 0
	}
	return f.maxLen()
}

// ScanMaxLen is the longest target the int32 kernel with the D chain by
// a scan (Shape.DScan without Float) scores exactly for p: 0 unless every
// score is finite as FloatMaxLen requires (so that no regrouped sum can
// wrap), else the length below which no real value comes near 2^31.
func ScanMaxLen(p *plan7.Profile) int {
	f := scanFloatScores(p)
	if !f.ok {
		return 0
	}
	// hi(L) = L*row + max(cmove, 0) plus one more score of at most F
	// stays below 2^31.
	L := int64(1 << 30)
	if f.row > 0 {
		L = min(L, (math.MaxInt32-2*floatExact)/f.row)
	}
	return int(L)
}

// maxLen is the largest L (capped at 2^30) with hi(L) <= F, lo(L) >= -F
// and the -INFTY values' bound below -F.
func (f floatScores) maxLen() int {
	const F = floatExact
	L := int64(1 << 30)
	// hi(L) = L*row + max(cmove, 0) <= F.
	if f.row > 0 {
		L = min(L, (F-max(f.cmove, 0))/f.row)
	}
	// lo(L) = L*min(nloop, 0) + lo0 >= -F.
	if f.lo0 < -F {
		return 0
	}
	if f.nloop < 0 {
		L = min(L, (F+f.lo0)/(-f.nloop))
	}
	// A value from -INFTY is at most -INFTY + F + rounding + L*(row +
	// 2*rounding) (two positive additions a row), which must stay below
	// -F - F (below lo(L) even after one more score of at most F).
	L = min(L, (plan7.Infty-3*F-floatRounding)/(f.row+2*floatRounding))
	return int(max(L, 0))
}

// restrictedMaxLen is the length bound of shape s's restricted build
// for p (FP32 cells or the int32 scan; 0: none may run it).
func (s Shape) restrictedMaxLen(p *plan7.Profile) int {
	if s.Float {
		return FloatMaxLen(p)
	}
	return ScanMaxLen(p)
}

// bounds are lo(L) and hi(L), for tests.
func (f floatScores) bounds(L int) (lo, hi int64) {
	return int64(L)*min(f.nloop, 0) + f.lo0, int64(L)*f.row + max(f.cmove, 0)
}

// Float is t with every score as a float32 (the FP32 kernel's tables):
// scores within ±F exactly, -INFTY as the nearest float.
func (t *Tables) Float() *Tables {
	conv := func(b []byte) []byte {
		out := make([]byte, len(b))
		for i := 0; i+4 <= len(b); i += 4 {
			v := int32(binary.LittleEndian.Uint32(b[i:]))
			binary.LittleEndian.PutUint32(out[i:], math.Float32bits(float32(v)))
		}
		return out
	}
	return &Tables{A: conv(t.A), B: conv(t.B), E: conv(t.E), Emis: conv(t.Emis), Xsc: conv(t.Xsc)}
}

// longBlocks is the number of leading blocks (S targets each, longest
// first) that hold one of the long longest targets.
func longBlocks(long, S int) int { return (long + S - 1) / S }
