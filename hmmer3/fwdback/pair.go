package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// Two targets share each 256-bit register of the paired Forward row
// kernel, one per 128-bit half, each half performing HMMER's four-lane
// SSE operations for its own target (AVX2's eight lanes cannot widen the
// stripe itself: that would change HMMER's order of additions). The row
// specials stay per target, in Go, as in Forward.

// pvec is a paired vector: target A's four lanes, then target B's.
type pvec = [8]float32

// PairMatrix is the workspace of ForwardPair and ForwardQuad: one paired
// or quad parser row, and one single row for the target that outlasts
// the others.
type PairMatrix struct {
	dp     []pvec // Q triples (M, D, I)
	quad   []qvec // Q triples (M, D, I)
	single []vec
	ox     *Matrix // Forward's, when the paired kernel does not run

	// Keep[j], when set, receives the special rows of ForwardPair's or
	// ForwardQuad's target j (ForwardPair: a is 0, b is 1) as Forward's
	// parser matrix holds them, with their TotScale: what Backward and
	// DomainDecoding read of a parser matrix, so that a target passing the
	// Forward filter needs no second Forward. It has no cell row.
	Keep [4]*Matrix
}

// NewPairMatrix returns an empty workspace; ForwardPair and ForwardQuad
// size it.
func NewPairMatrix() *PairMatrix { return &PairMatrix{ox: NewMatrix()} }

// PairKernel reports whether ForwardPair runs the paired kernel (else
// it is two Forward calls).
func PairKernel() bool { return usePair() }

// usePair reports whether the paired kernel runs (AVX2 machines; tests
// may lower level).
func usePair() bool { return level >= simd.AVX2 }

// fwdSpecials are one target's special states between Forward rows.
type fwdSpecials struct {
	xE, xN, xJ, xB, xC float32
	totScale           float32
	keep               *Matrix // where row records the rows, when set
	i                  int     // the last row computed
}

func newSpecials(xf *[4][2]float32) fwdSpecials {
	return fwdSpecials{xN: 1, xB: xf[profile.XN][profile.Move]}
}

// row takes row i's E sum and updates the specials as Forward does; it
// returns the factor the row's cells must be multiplied by, 1 when the
// row is not rescaled.
func (s *fwdSpecials) row(xE float32, xf *[4][2]float32) float32 {
	xfN, xfC, xfJ, xfE := xf[profile.XN], xf[profile.XC], xf[profile.XJ], xf[profile.XE]
	s.xE = xE
	s.xN = fmul(s.xN, xfN[profile.Loop])
	s.xC = fmul(s.xC, xfC[profile.Loop]) + fmul(xE, xfE[profile.Move])
	s.xJ = fmul(s.xJ, xfJ[profile.Loop]) + fmul(xE, xfE[profile.Loop])
	s.xB = fmul(s.xJ, xfJ[profile.Move]) + fmul(s.xN, xfN[profile.Move])
	inv, scale := float32(1), float32(1)
	if xE > 1.0e4 {
		s.xN = fdiv(s.xN, xE)
		s.xC = fdiv(s.xC, xE)
		s.xJ = fdiv(s.xJ, xE)
		s.xB = fdiv(s.xB, xE)
		s.totScale = float32(float64(s.totScale) + easel.Log(float64(xE)))
		s.xE = 1
		inv, scale = ftz64(1.0/float64(xE)), xE
	}
	s.i++
	if s.keep != nil {
		s.keep.X[s.i] = [NXCells]float32{XE: s.xE, XN: s.xN, XJ: s.xJ, XB: s.xB, XC: s.xC, XScale: scale}
	}
	return inv
}

// keepIn makes ox (when set) a parser matrix of model size M and length
// L without its cell row, with Forward's row 0; row records each next
// row there and score the scale total.
func (s *fwdSpecials) keepIn(ox *Matrix, M, L int) {
	if ox == nil {
		return
	}
	ox.sizeSpecials(M, L)
	ox.X[0] = [NXCells]float32{XN: 1, XB: s.xB, XScale: 1.0}
	s.keep = ox
}

// sizeSpecials makes mx a parser matrix of model size M and length L
// holding special rows only: no kernel may run on its cells.
func (mx *Matrix) sizeSpecials(M, L int) {
	mx.M, mx.Q, mx.L, mx.full = M, oprofile.NumVecF(M), L, false
	mx.dp = mx.dp[:0]
	if cap(mx.X) < L+1 {
		mx.X = make([][NXCells]float32, L+1, withHeadroom(L+1))
	} else {
		mx.X = mx.X[:L+1]
	}
	mx.HasOwnScales, mx.TotScale = true, 0
}

// KeepSpecials makes mx a parser matrix holding src's special rows,
// TotScale and HasOwnScales (src a Forward or Backward matrix, parser or
// full), without a cell row: what Backward and DomainDecoding read of a
// Forward parser, and what DomainDecoding reads of a Backward one.
func (mx *Matrix) KeepSpecials(src *Matrix) {
	mx.sizeSpecials(src.M, src.L)
	copy(mx.X, src.X[:src.L+1])
	mx.HasOwnScales, mx.TotScale = src.HasOwnScales, src.TotScale
}

// score is Forward's final score and range check for a target of length
// L; it completes the kept rows.
func (s *fwdSpecials) score(L int, xf *[4][2]float32) (float32, error) {
	xC := s.xC
	if math.IsNaN(float64(xC)) || (L > 0 && xC == 0) || math.IsInf(float64(xC), 1) {
		return 0, ErrRange
	}
	if s.keep != nil {
		s.keep.TotScale = s.totScale
	}
	return float32(float64(s.totScale) + easel.Log(float64(fmul(xC, xf[profile.XC][profile.Move])))), nil
}

// ForwardPair returns the Forward parser scores (and errors) of targets
// a and b: what Forward(a, oma, ox, false) and Forward(b, omb, ox, false)
// return, bit for bit. oma and omb must be one model (the same FB.TF and
// FB.RF) in each target's length configuration: only their special
// transitions FB.XF may differ. The rows both targets have run on the
// paired kernel; the longer target's remaining rows run on the single one.
// pm.Keep[0] and pm.Keep[1], when set, receive a's and b's special rows.
func ForwardPair(a, b []byte, oma, omb *oprofile.Profile, pm *PairMatrix) (sa float32, ea error, sb float32, eb error) {
	return pm.forwardPair(a, b, oma, omb, pm.Keep[0], pm.Keep[1])
}

// forwardPair is ForwardPair keeping the targets' rows in ka and kb
// (when set).
func (pm *PairMatrix) forwardPair(a, b []byte, oma, omb *oprofile.Profile, ka, kb *Matrix) (sa float32, ea error, sb float32, eb error) {
	if oma.FB.Q != omb.FB.Q || oma.M != omb.M {
		panic("fwdback: ForwardPair of two different models")
	}
	if !usePair() || len(a) == 0 || len(b) == 0 {
		sa, ea = pm.forward(a, oma, ka)
		sb, eb = pm.forward(b, omb, kb)
		return
	}
	fb := &oma.FB
	Q, all4 := fb.Q, oma.M < 100
	if n := 3 * Q; cap(pm.dp) < n {
		pm.dp = make([]pvec, n)
		pm.single = make([]vec, n)
	} else {
		pm.dp, pm.single = pm.dp[:n], pm.single[:n]
	}
	dp := pm.dp
	clear(dp)
	xfa, xfb := &oma.FB.XF, &omb.FB.XF
	A, B := newSpecials(xfa), newSpecials(xfb)
	A.keepIn(ka, oma.M, len(a))
	B.keepIn(kb, omb.M, len(b))
	n := min(len(a), len(b))
	var xB, xEv, inv pvec
	for i := 0; i < n; i++ {
		xB = pvec{A.xB, A.xB, A.xB, A.xB, B.xB, B.xB, B.xB, B.xB}
		fwdRowPairAVX2(&dp[0], &dp[0], asVec4(fb.TF), &[2]*[4]float32{asVec4(fb.RF[a[i]]), asVec4(fb.RF[b[i]])}, Q, &xB, all4, &xEv)
		ia := A.row((xEv[0]+xEv[1])+(xEv[2]+xEv[3]), xfa)
		ib := B.row((xEv[4]+xEv[5])+(xEv[6]+xEv[7]), xfb)
		if ia != 1 || ib != 1 {
			inv = pvec{ia, ia, ia, ia, ib, ib, ib, ib}
			scaleRowPairAVX2(&dp[0], len(dp), &inv)
		}
	}

	// The longer target goes on alone from its half of the paired row.
	rest, s, xf, h := a, &A, xfa, 0
	if len(b) > len(a) {
		rest, s, xf, h = b, &B, xfb, 4
	}
	if len(rest) > n {
		row := pm.single
		for j := range row {
			copy(row[j][:], dp[j][h:h+4])
		}
		pm.forwardAlone(row, rest[n:], fb, all4, s, xf)
	}
	sa, ea = A.score(len(a), xfa)
	sb, eb = B.score(len(b), xfb)
	return
}

// forward is Forward's parser of one target, its rows kept in keep when
// set.
func (pm *PairMatrix) forward(d []byte, om *oprofile.Profile, keep *Matrix) (float32, error) {
	sc, err := Forward(d, om, pm.ox, false)
	if keep != nil {
		keep.KeepSpecials(pm.ox)
	}
	return sc, err
}

// forwardAlone runs the Forward rows of residues on one target's row
// (taken out of a paired or quad row), updating its specials s.
func (pm *PairMatrix) forwardAlone(row []vec, residues []byte, fb *oprofile.FBProfile, all4 bool, s *fwdSpecials, xf *[4][2]float32) {
	tw := pm.ox.wide(fb.TF, fb.Q)
	for _, x := range residues {
		xE := hsum(forwardRowW(row, row, fb.TF, tw, fb.RF[x], fb.Q, s.xB, all4))
		if inv := s.row(xE, xf); inv != 1 {
			scaleRow(row, inv)
		}
	}
}

// ForwardBatch sets sc[i] and errs[i] to the Forward parser score and
// error of dsqs[i] with om configured for that target's length
// (ReconfigLength; om itself is not changed), four targets at a time on
// the quad kernel and two on the paired one where they run.
func ForwardBatch(dsqs [][]byte, om *oprofile.Profile, sc []float32, errs []error, pm *PairMatrix) {
	oma, omb := *om, *om
	i := 0
	if useQuad() {
		var (
			ds  [4][]byte
			oms [4]*oprofile.Profile
			cfg [4]oprofile.Profile
			s4  [4]float32
			e4  [4]error
		)
		for ; i+3 < len(dsqs); i += 4 {
			for j := range ds {
				ds[j], cfg[j], oms[j] = dsqs[i+j], *om, &cfg[j]
				cfg[j].ReconfigLength(len(ds[j]))
			}
			ForwardQuad(&ds, &oms, pm, &s4, &e4)
			copy(sc[i:i+4], s4[:])
			copy(errs[i:i+4], e4[:])
		}
	}
	if usePair() {
		for ; i+1 < len(dsqs); i += 2 {
			oma.ReconfigLength(len(dsqs[i]))
			omb.ReconfigLength(len(dsqs[i+1]))
			sc[i], errs[i], sc[i+1], errs[i+1] = ForwardPair(dsqs[i], dsqs[i+1], &oma, &omb, pm)
		}
	}
	for ; i < len(dsqs); i++ {
		oma.ReconfigLength(len(dsqs[i]))
		sc[i], errs[i] = Forward(dsqs[i], &oma, pm.ox, false)
	}
}
