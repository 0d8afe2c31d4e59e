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
	if xE > 1.0e4 {
		s.xN = fdiv(s.xN, xE)
		s.xC = fdiv(s.xC, xE)
		s.xJ = fdiv(s.xJ, xE)
		s.xB = fdiv(s.xB, xE)
		s.totScale = float32(float64(s.totScale) + easel.Log(float64(xE)))
		s.xE = 1
		return ftz64(1.0 / float64(xE))
	}
	return 1
}

// score is Forward's final score and range check for a target of length L.
func (s *fwdSpecials) score(L int, xf *[4][2]float32) (float32, error) {
	xC := s.xC
	if math.IsNaN(float64(xC)) || (L > 0 && xC == 0) || math.IsInf(float64(xC), 1) {
		return 0, ErrRange
	}
	return float32(float64(s.totScale) + easel.Log(float64(fmul(xC, xf[profile.XC][profile.Move])))), nil
}

// ForwardPair returns the Forward parser scores (and errors) of targets
// a and b: what Forward(a, oma, ox, false) and Forward(b, omb, ox, false)
// return, bit for bit. oma and omb must be one model (the same FB.TF and
// FB.RF) in each target's length configuration: only their special
// transitions FB.XF may differ. The rows both targets have run on the
// paired kernel; the longer target's remaining rows run on the single one.
func ForwardPair(a, b []byte, oma, omb *oprofile.Profile, pm *PairMatrix) (sa float32, ea error, sb float32, eb error) {
	if oma.FB.Q != omb.FB.Q || oma.M != omb.M {
		panic("fwdback: ForwardPair of two different models")
	}
	if !usePair() || len(a) == 0 || len(b) == 0 {
		sa, ea = Forward(a, oma, pm.ox, false)
		sb, eb = Forward(b, omb, pm.ox, false)
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
