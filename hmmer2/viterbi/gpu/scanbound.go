package gpu

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// The D chain by a scan (Shape.DScan) regroups sums of D->D scores, so
// it is exact only where no sum HMMER2 or the scan computes can wrap:
// every score the recurrences read finite and within ±scanScoreMax,
// same-row scores at most 0, and real values far from 2^31 (ScanMaxLen).
// viterbi.cu's header and docs/hmm2search.md ("The D chain by a scan")
// give the argument. The conditions are those of the FP32 bound they
// came from (removed, docs/hmm2search.md "FP32 cells"), less its range.
// They are conditions on the whole row (every node's scores, the D->D
// sum of all nodes), so they hold however many warps share a row: the
// multi-warp scan composes the warps' maps with the same sums, grouped
// differently (viterbi.cu, "The scan in groups of several warps").

// scanScoreMax is the largest score magnitude ScanMaxLen accepts (2^24):
// sums of a few of them and of clamped cells stay far from wrapping.
const scanScoreMax = 1 << 24

// scanScores reads what ScanMaxLen needs of p's scores: ok when every
// score the recurrences read is finite, within ±scanScoreMax, each
// same-row score <= 0 and the sum of all D->D scores within
// -scanScoreMax; row is the most one row can add to a path (the largest
// row-crossing transition, entry or loop score plus the largest
// emission score, 0 if none is positive).
func scanScores(p *plan7.Profile) (ok bool, row int64) {
	M := p.M
	ok = true
	finite := func(v int32) int64 {
		if v == -plan7.Infty || v < -scanScoreMax || v > scanScoreMax {
			ok = false
		}
		return int64(v)
	}
	// maxOf is the largest (at least 0) of entries from..to of a node
	// vector, each checked.
	maxOf := func(v []int32, from, to int) int64 {
		m := int64(0)
		for k := from; k <= to; k++ {
			m = max(m, finite(v[k]))
		}
		return m
	}
	sameRowNonPositive := func(v int64) {
		if v > 0 {
			ok = false
		}
	}
	// Special scores. N->N, N->B, E->C and C->T must be finite. E->J,
	// J->J, J->B and C->C may be -INFTY (single-hit and global
	// configurations): a special state's sum cannot wrap (its operands
	// are clamped cells), and J is never reached without E->J.
	x := &p.Xsc
	opt := func(v int32) int64 {
		if v == -plan7.Infty {
			return -plan7.Infty
		}
		return finite(v)
	}
	nloop, nmove := finite(x[plan7.XTN][plan7.Loop]), finite(x[plan7.XTN][plan7.Move])
	eloop, emove := opt(x[plan7.XTE][plan7.Loop]), finite(x[plan7.XTE][plan7.Move])
	cloop, _ := opt(x[plan7.XTC][plan7.Loop]), finite(x[plan7.XTC][plan7.Move])
	jloop, jmove := opt(x[plan7.XTJ][plan7.Loop]), opt(x[plan7.XTJ][plan7.Move])
	for _, v := range []int64{eloop, emove, nmove, jmove} {
		sameRowNonPositive(v)
	}
	// Transitions of nodes 1..M-1 (into node k+1, and node k's I).
	cross := max(int64(0), nloop, jloop, cloop, maxOf(p.Bsc, 1, M))
	for _, s := range []int{plan7.TMM, plan7.TIM, plan7.TDM, plan7.TMI, plan7.TII} {
		cross = max(cross, maxOf(p.Tsc[s], 1, M-1))
	}
	sameRowNonPositive(maxOf(p.Tsc[plan7.TMD], 1, M-1))
	sameRowNonPositive(maxOf(p.Tsc[plan7.TDD], 1, M-1))
	// The scan adds runs of D->D scores in another order.
	tdd := int64(0)
	for k := 1; k < M; k++ {
		tdd += int64(p.Tsc[plan7.TDD][k])
	}
	if tdd < -scanScoreMax {
		ok = false
	}
	sameRowNonPositive(maxOf(p.Esc, 1, M))
	// Emissions: every code the kernel's table holds.
	emit := int64(0)
	for c := 0; c < plan7.MaxCode; c++ {
		emit = max(emit, maxOf(p.Msc[c], 1, M), maxOf(p.Isc[c], 1, M-1))
	}
	// The other transitions only need to be finite.
	for s := range p.Tsc {
		maxOf(p.Tsc[s], 1, M-1)
	}
	return ok, cross + emit
}

// ScanMaxLen is the longest target the kernel with the D chain by a scan
// (Shape.DScan) scores exactly for p: 0 unless every score is finite as
// scanScores requires (so that no regrouped sum can wrap; the build with
// D passes then scores every target), else the length below which no
// real value comes near 2^31.
func ScanMaxLen(p *plan7.Profile) int {
	ok, row := scanScores(p)
	if !ok {
		return 0
	}
	// L*row + C->T plus one more score of at most scanScoreMax stays
	// below 2^31.
	L := int64(1 << 30)
	if row > 0 {
		L = min(L, (math.MaxInt32-2*scanScoreMax)/row)
	}
	return int(L)
}

// longBlocks is the number of leading blocks (S targets each, longest
// first) that hold one of the long longest targets.
func longBlocks(long, S int) int { return (long + S - 1) / S }

// clampMargin is how far above -INFTY ClampFreeMaxLen keeps its lower
// bound on every M cell: four scores of at most scanScoreMax, so that the
// cells and sources one or two scores further down stay above -INFTY
// too (the proof below).
const clampMargin = 4 * scanScoreMax

// ClampFreeMaxLen is the longest target for which no -INFTY clamp that
// the scan build without clamps (Shape.NoClamp) drops can bind for p: 0
// unless scanScores accepts p and the bound holds at length 1.
//
// The bound. With every score within ±scanScoreMax (scanScores), nmove
// <= 0 and L the target's length, let
//
//	low = nmove + min(0, L*nloop) + min bsc + min(0, min msc)
//
// (bsc over nodes 1..M, msc over every residue code and node) and
// require low >= -INFTY + clampMargin. Then, in rows 1..L:
//
//   - N(i) = i*nloop >= low - scanScoreMax > -INFTY: N's clamp never binds.
//   - B(i) >= N(i) + nmove, so B + bsc(k) >= low: B's clamp never binds,
//     and every M cell, which takes the maximum with B + bsc(k) before
//     adding msc, is >= low: M's clamp never binds.
//   - An M->D source M(k-1) + tmd >= low - scanScoreMax > -INFTY, so every D
//     cell of node 2..M is too: its clamp (folded into the source's) never
//     binds. Node 1's source and every rank's first (once a row) keep theirs.
//   - I(i,k) for i >= 2 and k < M is >= M(i-1,k) + tmi + isc >= low -
//     2 scanScoreMax > -INFTY. In row 1 the clamp does bind (the row-0
//     cells are -INFTY): the unclamped value u >= -INFTY - 3 scanScoreMax
//     does not wrap, and where u < -INFTY the true -INFTY, plus one score,
//     is below the other term of each maximum that reads it (row 2's B +
//     bsc >= low for M(k+1), M(1,k) + tmi >= low - scanScoreMax for I(k)),
//     so the maxima do not change.
//   - E >= M + esc >= low - scanScoreMax, so C's term E + emove > -INFTY:
//     C's clamp never binds. J keeps its clamp (E->J may be -INFTY).
//
// Values no real node or E reads (I_M, padding slots, ranks without a
// node) may now wrap, as they may with the clamps. The upper side is
// ScanMaxLen's, so a target within both bounds scores exactly.
func ClampFreeMaxLen(p *plan7.Profile) int {
	if ok, _ := scanScores(p); !ok {
		return 0
	}
	nloop := int64(p.Xsc[plan7.XTN][plan7.Loop])
	room := clampLow(p, 0) - (-plan7.Infty + clampMargin) // what L*nloop may take
	if room < 0 {
		return 0
	}
	L := int64(1 << 30)
	if nloop < 0 {
		L = min(L, room/-nloop)
	}
	return int(L)
}

// clampLow is the bound's low at target length L (ClampFreeMaxLen):
// nmove + min(0, L*nloop) + min bsc + min(0, min msc).
func clampLow(p *plan7.Profile, L int) int64 {
	minB, minMsc := int64(scanScoreMax), int64(0)
	for k := 1; k <= p.M; k++ {
		minB = min(minB, int64(p.Bsc[k]))
		for c := 0; c < plan7.MaxCode; c++ {
			minMsc = min(minMsc, int64(p.Msc[c][k]))
		}
	}
	nloop := int64(p.Xsc[plan7.XTN][plan7.Loop])
	return int64(p.Xsc[plan7.XTN][plan7.Move]) + min(0, int64(L)*nloop) + minB + minMsc
}

// scanBuild is what a kernel of shape s (DScan set) runs for p: the scan
// build's shape and the longest target it takes (0: none; the build with
// D passes then scores every target). The build without clamps is kept
// only where ClampFreeMaxLen covers every target ScanMaxLen does, so
// that it never changes which targets take the scan.
func scanBuild(p *plan7.Profile, s Shape) (Shape, int) {
	n := ScanMaxLen(p)
	if n == 0 {
		return s.int32(), 0
	}
	if s.NoClamp && ClampFreeMaxLen(p) < n {
		s.NoClamp = false
	}
	return s, n
}
