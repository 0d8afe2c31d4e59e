// Package vitfilter is HMMER3's second filter: local Viterbi in signed
// saturating 16-bit arithmetic, bit-identical to p7_ViterbiFilter.
//
// HMMER evaluates D->D paths lazily (Farrar's "lazy F"), skipping them
// on rows where they provably cannot change any M cell of the next row;
// computing the whole D->D chain every row therefore gives the same
// scores, and is what this reference does.
package vitfilter

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

const negInf = -32768

// adds is a saturating 16-bit add; -32768 is not absorbing, exactly as
// in SSE2's paddsw.
func adds(a, b int16) int16 {
	s := int32(a) + int32(b)
	if s > 32767 {
		return 32767
	}
	if s < -32768 {
		return -32768
	}
	return int16(s)
}

func max16(a, b int16) int16 {
	if a > b {
		return a
	}
	return b
}

// Score returns the Viterbi filter score of dsq in nats, +Inf on 16-bit
// overflow, -Inf when no path scores above the floor.
func Score(dsq []byte, om *oprofile.VitProfile) float32 {
	M := om.M
	mPrev := make([]int16, M+1)
	iPrev := make([]int16, M+1)
	dPrev := make([]int16, M+1)
	mCur := make([]int16, M+1)
	iCur := make([]int16, M+1)
	dCur := make([]int16, M+1)
	for k := range mPrev {
		mPrev[k], iPrev[k], dPrev[k] = negInf, negInf, negInf
	}
	mCur[0], iCur[0], dCur[0] = negInf, negInf, negInf

	xw := &om.XW
	xN := int32(om.Base)
	xB := int16(xN + int32(xw[profile.XN][profile.Move]))
	xJ, xC := int16(negInf), int16(negInf)

	for _, x := range dsq {
		rwv := om.RWV[x]
		xE := int16(negInf)
		dCur[1] = negInf
		for k := 1; k <= M; k++ {
			t := &om.T[k]
			sv := adds(xB, t[oprofile.VBM])
			sv = max16(sv, adds(mPrev[k-1], t[oprofile.VMM]))
			sv = max16(sv, adds(iPrev[k-1], t[oprofile.VIM]))
			sv = max16(sv, adds(dPrev[k-1], t[oprofile.VDM]))
			sv = adds(sv, rwv[k])
			xE = max16(xE, sv)
			mCur[k] = sv
			iCur[k] = max16(adds(mPrev[k], t[oprofile.VMI]), adds(iPrev[k], t[oprofile.VII]))
			if k < M {
				dCur[k+1] = max16(adds(sv, t[oprofile.VMD]), adds(dCur[k], t[oprofile.VDD]))
			}
		}
		if xE >= 32767 {
			return float32(math.Inf(1))
		}
		// Specials in int, stored as int16 as HMMER's C does.
		xN += int32(xw[profile.XN][profile.Loop])
		xC = int16(max32(int32(xC)+int32(xw[profile.XC][profile.Loop]), int32(xE)+int32(xw[profile.XE][profile.Move])))
		xJ = int16(max32(int32(xJ)+int32(xw[profile.XJ][profile.Loop]), int32(xE)+int32(xw[profile.XE][profile.Loop])))
		xB = int16(max32(int32(xJ)+int32(xw[profile.XJ][profile.Move]), xN+int32(xw[profile.XN][profile.Move])))
		mPrev, mCur = mCur, mPrev
		iPrev, iCur = iCur, iPrev
		dPrev, dCur = dCur, dPrev
	}
	if xC > negInf {
		sc := float32(xC) + float32(xw[profile.XC][profile.Move]) - float32(om.Base)
		sc /= om.Scale
		return float32(float64(sc) - 3.0)
	}
	return float32(math.Inf(-1))
}

func max32(a, b int32) int32 {
	if a > b {
		return a
	}
	return b
}
