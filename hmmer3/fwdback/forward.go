package fwdback

import (
	"errors"
	"math"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// ErrRange reports a Forward or Backward score that is NaN, infinite, or
// underflows to zero, which HMMER treats as an exception.
var ErrRange = errors.New("fwdback: score out of range")

// Forward fills ox with the Forward matrix of dsq (residues 1..L are
// dsq[0..L-1]) and returns the score in nats (p7_Forward when full,
// p7_ForwardParser otherwise: the same numbers, one vector row kept).
func Forward(dsq []byte, om *oprofile.Profile, ox *Matrix, full bool) (float32, error) {
	fb := &om.FB
	L := len(dsq)
	ox.grow(om.M, L, full)
	Q := ox.Q
	ox.HasOwnScales = true
	stream := ox.streams()
	dpc := ox.row(0)
	for q := range dpc {
		dpc[q] = vec{}
	}
	if stream {
		dpc = ox.ringRow(0)
		clear(dpc)
	}
	xE, xN, xJ, xC := float32(0), float32(1), float32(0), float32(0)
	xB := fb.XF[profile.XN][profile.Move]
	ox.X[0] = [NXCells]float32{XE: xE, XN: xN, XJ: xJ, XB: xB, XC: xC, XScale: 1.0}
	ox.TotScale = 0

	xfN, xfC, xfJ, xfE := fb.XF[profile.XN], fb.XF[profile.XC], fb.XF[profile.XJ], fb.XF[profile.XE]
	tw := ox.wide(fb.TF, Q)
	for i := 1; i <= L; i++ {
		dpp := dpc
		if stream {
			dpc = ox.ringRow(i)
		} else {
			dpc = ox.row(i)
		}
		xEv := forwardRowW(dpp, dpc, fb.TF, tw, fb.RF[dsq[i-1]], Q, xB, om.M < 100)
		xE = hsum(xEv)

		xN = fmul(xN, xfN[profile.Loop])
		xC = fmul(xC, xfC[profile.Loop]) + fmul(xE, xfE[profile.Move])
		xJ = fmul(xJ, xfJ[profile.Loop]) + fmul(xE, xfE[profile.Loop])
		xB = fmul(xJ, xfJ[profile.Move]) + fmul(xN, xfN[profile.Move])

		scale := float32(1.0)
		if xE > 1.0e4 {
			xN = fdiv(xN, xE)
			xC = fdiv(xC, xE)
			xJ = fdiv(xJ, xE)
			xB = fdiv(xB, xE)
			scaleRow(dpc, ftz64(1.0/float64(xE)))
			scale = xE
			ox.TotScale = float32(float64(ox.TotScale) + easel.Log(float64(xE)))
			xE = 1.0
		}
		ox.X[i] = [NXCells]float32{XE: xE, XN: xN, XJ: xJ, XB: xB, XC: xC, XScale: scale}
		if stream {
			ox.put(i, dpc)
		}
	}
	if stream {
		storeFence()
	}

	switch {
	case math.IsNaN(float64(xC)):
		return 0, ErrRange
	case L > 0 && xC == 0:
		return 0, ErrRange
	case math.IsInf(float64(xC), 1):
		return 0, ErrRange
	}
	return float32(float64(ox.TotScale) + easel.Log(float64(fmul(xC, xfC[profile.Move])))), nil
}

// forwardRow computes Forward row dpc from row dpp (the same memory in a
// parser matrix) for a residue with match odds rp, and returns the row's
// E vector: M, I and the in-lane D carry, then the D->D passes (all four
// when all4, as HMMER does for M < 100; else up to three more while any
// D cell grows), then the D cells' share of E.
func forwardRow(dpp, dpc, tp, rp []vec, Q int, xB float32, all4 bool) vec {
	return forwardRowW(dpp, dpc, tp, nil, rp, Q, xB, all4)
}

// forwardRowW is forwardRow given also the transitions in the wide
// kernels' layout (Matrix.wide), which the AVX2 kernel needs; with tw
// nil it runs the SSE kernel or the Go lanes. All give the same bits.
func forwardRowW(dpp, dpc, tp, tw, rp []vec, Q int, xB float32, all4 bool) vec {
	if tw != nil && useWide() {
		var xEv vec
		fwdRowAVX2(asVec4(dpp), asVec4(dpc), asVec4(tw), asVec4(tp[7*Q:]), asVec4(rp), Q, xB, all4, (*[4]float32)(&xEv))
		return xEv
	}
	if useAsm() {
		var xEv vec
		fwdRowSSE(asVec4(dpp), asVec4(dpc), asVec4(tp), asVec4(rp), Q, xB, all4, (*[4]float32)(&xEv))
		return xEv
	}
	return forwardRowGo(dpp, dpc, tp, rp, Q, xB, all4)
}
