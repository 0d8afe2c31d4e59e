package fwdback

// The oracle: HMMER 3.3.2's SSE decoding, optimal accuracy and null2 code
// transcribed operation for operation on four-lane values, as these
// functions stood before the flat Go and assembly kernels replaced them
// (they were checked against HMMER through hmmer3/pipeline). Every level
// of the kernels must reproduce them bit for bit.

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// refDecoding fills pp with posterior probabilities of each M and I cell and
// of the N, C, J emissions (p7_Decoding), from full Forward and Backward
// matrices. It returns ErrRange when the scale factors overflow, which
// HMMER treats as a domain too repetitive to score.
func refDecoding(om *oprofile.Profile, fwd, bck, pp *Matrix) error {
	L := fwd.L
	Q := fwd.Q
	if pp != bck {
		pp.grow(om.M, L, true)
	}
	scaleproduct := ftz64(1.0 / float64(bck.X[0][XN]))
	row0 := pp.row(0)
	for q := range row0 {
		row0[q] = vec{}
	}
	pp.X[0] = [NXCells]float32{}
	xf := &om.FB.XF
	for i := 1; i <= L; i++ {
		ppr, fv, bv := pp.row(i), fwd.row(i), bck.row(i)
		totr := splat(fmul(scaleproduct, fwd.X[i][XScale]))
		for q := 0; q < Q; q++ {
			ppr[q*3+cM] = vmul(vmul(fv[q*3+cM], bv[q*3+cM]), totr)
			ppr[q*3+cD] = vec{}
			ppr[q*3+cI] = vmul(vmul(fv[q*3+cI], bv[q*3+cI]), totr)
		}
		bN, bJ, bC := bck.X[i][XN], bck.X[i][XJ], bck.X[i][XC]
		bScale := bck.X[i][XScale]
		pp.X[i] = [NXCells]float32{
			XN: prod4(fwd.X[i-1][XN], bN, xf[profile.XN][profile.Loop], scaleproduct),
			XJ: prod4(fwd.X[i-1][XJ], bJ, xf[profile.XJ][profile.Loop], scaleproduct),
			XC: prod4(fwd.X[i-1][XC], bC, xf[profile.XC][profile.Loop], scaleproduct),
		}
		if bck.HasOwnScales {
			scaleproduct = fmul(scaleproduct, fdiv(fwd.X[i][XScale], bScale))
		}
	}
	pp.L = L
	if math.IsInf(float64(scaleproduct), 0) {
		return ErrRange
	}
	return nil
}

// refOptimalAccuracy fills ox with the maximum expected accuracy DP over the
// posterior matrix pp and returns the optimal accuracy score
// (p7_OptimalAccuracy). A transition of probability zero contributes 0.0,
// not -inf: HMMER masks rather than forbids it, and we do the same.
func refOptimalAccuracy(om *oprofile.Profile, pp, ox *Matrix) float32 {
	L := pp.L
	ox.grow(om.M, L, true)
	Q := ox.Q
	tf := om.FB.TF
	dd := tf[7*Q:]
	xf := &om.FB.XF
	infv := splat(negInf)
	dpc := ox.row(0)
	for q := range dpc {
		dpc[q] = infv
	}
	ox.X[0] = [NXCells]float32{XE: negInf, XN: 0, XJ: negInf, XB: 0, XC: negInf}

	for i := 1; i <= L; i++ {
		dpp := dpc
		dpc = ox.row(i)
		ppr := pp.row(i)
		dcv, xEv := infv, infv
		xBv := splat(ox.X[i-1][XB])
		mpv := rightshift(dpp[(Q-1)*3+cM], negInf)
		dpv := rightshift(dpp[(Q-1)*3+cD], negInf)
		ipv := rightshift(dpp[(Q-1)*3+cI], negInf)
		for q := 0; q < Q; q++ {
			t := tf[7*q : 7*q+7]
			sv := gtMask(t[oprofile.FBM], xBv)
			sv = vmax(sv, gtMask(t[oprofile.FMM], mpv))
			sv = vmax(sv, gtMask(t[oprofile.FIM], ipv))
			sv = vmax(sv, gtMask(t[oprofile.FDM], dpv))
			sv = vadd(sv, ppr[q*3+cM])
			xEv = vmax(xEv, sv)

			mpv = dpp[q*3+cM]
			dpv = dpp[q*3+cD]
			ipv = dpp[q*3+cI]
			dpc[q*3+cM] = sv
			dpc[q*3+cD] = dcv

			dcv = gtMask(t[oprofile.FMD], sv)
			sv = gtMask(t[oprofile.FMI], mpv)
			sv = vmax(sv, gtMask(t[oprofile.FII], ipv))
			dpc[q*3+cI] = vadd(sv, ppr[q*3+cI])
		}
		dcv = rightshift(dcv, negInf)
		for q := 0; q < Q; q++ {
			dpc[q*3+cD] = vmax(dcv, dpc[q*3+cD])
			dcv = gtMask(dd[q], dpc[q*3+cD])
		}
		for j := 1; j < 4; j++ {
			dcv = rightshift(dcv, negInf)
			for q := 0; q < Q; q++ {
				dpc[q*3+cD] = vmax(dcv, dpc[q*3+cD])
				dcv = gtMask(dd[q], dcv)
			}
		}
		for q := 0; q < Q; q++ {
			xEv = vmax(xEv, dpc[q*3+cD])
		}
		x := &ox.X[i]
		x[XE] = hmax(xEv)

		px, cx := &ox.X[i-1], &pp.X[i]
		t1 := gated(xf[profile.XJ][profile.Loop], func() float32 { return px[XJ] + cx[XJ] })
		t2 := gated(xf[profile.XE][profile.Loop], func() float32 { return x[XE] })
		x[XJ] = cmax(t1, t2)
		t1 = gated(xf[profile.XC][profile.Loop], func() float32 { return px[XC] + cx[XC] })
		t2 = gated(xf[profile.XE][profile.Move], func() float32 { return x[XE] })
		x[XC] = cmax(t1, t2)
		x[XN] = gated(xf[profile.XN][profile.Loop], func() float32 { return px[XN] + cx[XN] })
		t1 = gated(xf[profile.XN][profile.Move], func() float32 { return x[XN] })
		t2 = gated(xf[profile.XJ][profile.Move], func() float32 { return x[XJ] })
		x[XB] = cmax(t1, t2)
	}
	return ox.X[L][XC]
}

// refNull2ByExpectation computes the null2 odds ratios of a domain envelope
// from its posterior matrix pp (p7_Null2_ByExpectation), into null2[0..Kp-1].
// It uses pp's row 0 as scratch space, as HMMER does.
func refNull2ByExpectation(om *oprofile.Profile, pp *Matrix, null2 []float32) {
	Q := pp.Q
	Ld := pp.L
	row0 := pp.row(0)
	copy(row0, pp.row(1))
	xN, xC, xJ := pp.X[1][XN], pp.X[1][XC], pp.X[1][XJ]
	for i := 2; i <= Ld; i++ {
		ri := pp.row(i)
		for q := 0; q < Q; q++ {
			row0[q*3+cM] = vadd(ri[q*3+cM], row0[q*3+cM])
			row0[q*3+cI] = vadd(ri[q*3+cI], row0[q*3+cI])
		}
		xN += pp.X[i][XN]
		xC += pp.X[i][XC]
		xJ += pp.X[i][XJ]
	}
	norm := float32(1.0 / float64(float32(Ld)))
	refNull2Sum(om, row0, xN, xC, xJ, norm, null2)
}

// refNull2Sum scales the usage counts by norm and takes the usage-weighted
// sum of emission odds for each residue, then fills the degenerate and
// special codes.
func refNull2Sum(om *oprofile.Profile, row0 []vec, xN, xC, xJ, norm float32, null2 []float32) {
	Q := len(row0) / 3
	sv := splat(norm)
	for q := 0; q < Q; q++ {
		row0[q*3+cM] = vmul(row0[q*3+cM], sv)
		row0[q*3+cI] = vmul(row0[q*3+cI], sv)
	}
	xN = fmul(xN, norm)
	xC = fmul(xC, norm)
	xJ = fmul(xJ, norm)
	xfactor := xN + xC + xJ
	abc := om.Abc
	for x := 0; x < abc.K; x++ {
		var s vec
		rf := om.FB.RF[x]
		for q := 0; q < Q; q++ {
			s = vadd(s, vmul(row0[q*3+cM], rf[q]))
			s = vadd(s, row0[q*3+cI])
		}
		null2[x] = hsum(s) + xfactor
	}
	abc.FAvgScVec(null2)
	null2[abc.K] = 1.0
	null2[abc.Kp-2] = 1.0
	null2[abc.Kp-1] = 1.0
}

// gated is 0 when the transition probability p is zero, else v().
func gated(p float32, v func() float32) float32 {
	if p == 0 {
		return 0
	}
	return v()
}

// refForwardRow, refBackwardRowIn and refBackwardRowOut are the Forward
// row and Backward phases as HMMER runs them, on four-lane values, every
// D->D pass to its end (before zeroCarry and the lane-by-lane Go rows).
func refForwardRow(dpp, dpc, tp, rp []vec, Q int, xB float32, all4 bool) vec {
	var dcv, xEv vec
	xBv := splat(xB)
	mpv := rightshift(dpp[(Q-1)*3+cM], 0)
	dpv := rightshift(dpp[(Q-1)*3+cD], 0)
	ipv := rightshift(dpp[(Q-1)*3+cI], 0)
	for q := 0; q < Q; q++ {
		t := tp[7*q : 7*q+7]
		sv := vmul(xBv, t[oprofile.FBM])
		sv = vadd(sv, vmul(mpv, t[oprofile.FMM]))
		sv = vadd(sv, vmul(ipv, t[oprofile.FIM]))
		sv = vadd(sv, vmul(dpv, t[oprofile.FDM]))
		sv = vmul(sv, rp[q])
		xEv = vadd(xEv, sv)

		mpv = dpp[q*3+cM]
		dpv = dpp[q*3+cD]
		ipv = dpp[q*3+cI]

		dpc[q*3+cM] = sv
		dpc[q*3+cD] = dcv

		dcv = vmul(sv, t[oprofile.FMD])
		dpc[q*3+cI] = vadd(vmul(mpv, t[oprofile.FMI]), vmul(ipv, t[oprofile.FII]))
	}

	// D->D paths: one full pass, then up to three more that only
	// extend the carry (always all three for M < 100, as HMMER does).
	dcv = rightshift(dcv, 0)
	dpc[cD] = vec{}
	dd := tp[7*Q:]
	for q := 0; q < Q; q++ {
		dpc[q*3+cD] = vadd(dcv, dpc[q*3+cD])
		dcv = vmul(dpc[q*3+cD], dd[q])
	}
	for j := 1; j < 4; j++ {
		changed := false
		dcv = rightshift(dcv, 0)
		for q := 0; q < Q; q++ {
			sv := vadd(dcv, dpc[q*3+cD])
			for z := 0; z < 4; z++ {
				if sv[z] > dpc[q*3+cD][z] {
					changed = true
				}
			}
			dpc[q*3+cD] = sv
			dcv = vmul(dcv, dd[q])
		}
		if !all4 && !changed {
			break
		}
	}
	for q := 0; q < Q; q++ {
		xEv = vadd(dpc[q*3+cD], xEv)
	}
	return xEv
}

func refBackwardRowOut(dpc, tf []vec, Q int, xE float32) {
	dd := tf[7*Q:]
	xEv := splat(xE)
	var dpv, dcv vec
	// Phase 3: {MD}->E paths and one step of D->D.
	dpv = leftshift(vadd(dpc[cD], xEv))
	for q := Q - 1; q >= 0; q-- {
		dcv = vmul(dpv, dd[q])
		dpc[q*3+cD] = vadd(dpc[q*3+cD], vadd(dcv, xEv))
		dpv = dpc[q*3+cD]
		dpc[q*3+cM] = vadd(dpc[q*3+cM], xEv)
	}
	// Phase 4: three more D->D passes.
	for j := 1; j < 4; j++ {
		dcv = leftshift(dcv)
		for q := Q - 1; q >= 0; q-- {
			dcv = vmul(dcv, dd[q])
			dpc[q*3+cD] = vadd(dpc[q*3+cD], dcv)
		}
	}
	// Phase 5: M->D paths.
	dcv = leftshift(dpc[cD])
	for q := Q - 1; q >= 0; q-- {
		dpc[q*3+cM] = vadd(dpc[q*3+cM], vmul(dcv, tf[7*q+oprofile.FMD]))
		dcv = dpc[q*3+cD]
	}

}

func refBackwardRowIn(dpp, dpc, tf, rf []vec, Q int) vec {
	tmmv := leftshift(tf[oprofile.FMM])
	timv := leftshift(tf[oprofile.FIM])
	tdmv := leftshift(tf[oprofile.FDM])
	mpv := leftshift(vmul(dpp[cM], rf[0]))
	var xBv vec
	for q := Q - 1; q >= 0; q-- {
		t := tf[7*q : 7*q+7]
		ipv := dpp[q*3+cI]
		dpc[q*3+cI] = vadd(vmul(ipv, t[oprofile.FII]), vmul(mpv, timv))
		dpc[q*3+cD] = vmul(mpv, tdmv)
		mcv := vadd(vmul(ipv, t[oprofile.FMI]), vmul(mpv, tmmv))
		mpv = vmul(dpp[q*3+cM], rf[q])
		dpc[q*3+cM] = mcv
		tdmv = t[oprofile.FDM]
		timv = t[oprofile.FIM]
		tmmv = t[oprofile.FMM]
		xBv = vadd(xBv, vmul(mpv, t[oprofile.FBM]))
	}

	return xBv
}
