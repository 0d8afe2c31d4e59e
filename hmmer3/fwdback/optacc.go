package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

var negInf = float32(math.Inf(-1))

// OptimalAccuracy fills ox with the maximum expected accuracy DP over the
// posterior matrix pp and returns the optimal accuracy score
// (p7_OptimalAccuracy). A transition of probability zero contributes 0.0,
// not -inf: HMMER masks rather than forbids it, and we do the same.
func OptimalAccuracy(om *oprofile.Profile, pp, ox *Matrix) float32 {
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

// gated is 0 when the transition probability p is zero, else v().
func gated(p float32, v func() float32) float32 {
	if p == 0 {
		return 0
	}
	return v()
}

// cmax is C's ESL_MAX: a if a > b, else b.
func cmax(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func hmax(v vec) float32 {
	m := v[0]
	for _, x := range v[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

// OATrace traces back the optimal accuracy alignment from the OA matrix ox
// and posteriors pp into tr (p7_OATrace), with HMMER's tie rules.
func OATrace(om *oprofile.Profile, pp, ox *Matrix, tr *hits.Trace) {
	resetTrace(tr)
	i, k := ox.L, 0
	traceAppend(tr, hits.StT, k, i, 0)
	traceAppend(tr, hits.StC, k, i, 0)
	s0 := hits.StC
	for s0 != hits.StS {
		var s1 hits.State
		switch s0 {
		case hits.StM:
			s1 = oaSelectM(om, ox, i, k)
			k--
			i--
		case hits.StD:
			s1 = oaSelectD(om, ox, i, k)
			k--
		case hits.StI:
			s1 = oaSelectI(om, ox, i, k)
			i--
		case hits.StN:
			s1 = hits.StN
			if i == 0 {
				s1 = hits.StS
			}
		case hits.StC:
			s1 = oaSelectSpecial(om.FB.XF[profile.XC][profile.Loop], ox.X[i-1][XC]+pp.X[i][XC],
				om.FB.XF[profile.XE][profile.Move], ox.X[i][XE], hits.StC, hits.StE)
		case hits.StJ:
			s1 = oaSelectSpecial(om.FB.XF[profile.XJ][profile.Loop], ox.X[i-1][XJ]+pp.X[i][XJ],
				om.FB.XF[profile.XE][profile.Loop], ox.X[i][XE], hits.StJ, hits.StE)
		case hits.StE:
			s1, k = oaSelectE(ox, i)
		case hits.StB:
			s1 = oaSelectSpecial(om.FB.XF[profile.XN][profile.Move], ox.X[i][XN],
				om.FB.XF[profile.XJ][profile.Move], ox.X[i][XJ], hits.StN, hits.StJ)
		default:
			panic("fwdback: bogus state in OA traceback")
		}
		traceAppend(tr, s1, k, i, postprob(pp, s1, s0, k, i))
		if (s1 == hits.StN || s1 == hits.StJ || s1 == hits.StC) && s1 == s0 {
			i--
		}
		s0 = s1
	}
	tr.M = om.M
	tr.L = ox.L
	traceReverse(tr)
}

// oaSelectSpecial picks a when path a's value is strictly greater; a path
// whose transition probability is zero is -inf.
func oaSelectSpecial(pa, va, pb, vb float32, a, b hits.State) hits.State {
	if pa == 0 {
		va = negInf
	}
	if pb == 0 {
		vb = negInf
	}
	if va > vb {
		return a
	}
	return b
}

func postprob(pp *Matrix, scur, sprv hits.State, k, i int) float32 {
	switch scur {
	case hits.StM:
		return pp.at(i, k, cM)
	case hits.StI:
		return pp.at(i, k, cI)
	case hits.StN:
		if sprv == scur {
			return pp.X[i][XN]
		}
	case hits.StC:
		if sprv == scur {
			return pp.X[i][XC]
		}
	case hits.StJ:
		if sprv == scur {
			return pp.X[i][XJ]
		}
	}
	return 0
}

// prevVecs returns the M, D, I vectors feeding node (q, lane) of row i:
// vector q-1 of the row, or vector Q-1 shifted one lane up, 0 shifted in.
func prevVecs(mx *Matrix, i, q int) (m, d, ii vec) {
	r := mx.row(i)
	Q := mx.Q
	if q > 0 {
		return r[(q-1)*3+cM], r[(q-1)*3+cD], r[(q-1)*3+cI]
	}
	return rightshift(r[(Q-1)*3+cM], 0), rightshift(r[(Q-1)*3+cD], 0), rightshift(r[(Q-1)*3+cI], 0)
}

func oaSelectM(om *oprofile.Profile, ox *Matrix, i, k int) hits.State {
	Q := ox.Q
	q, r := (k-1)%Q, (k-1)/Q
	t := om.FB.TF[7*q : 7*q+7]
	mpv, dpv, ipv := prevVecs(ox, i-1, q)
	xb := ox.X[i-1][XB]
	pick := func(tv vec, v float32) float32 {
		if tv[r] == 0 {
			return negInf
		}
		return v
	}
	// Ordered so that ties prefer M, then I, then D, then B.
	path := []float32{pick(t[oprofile.FMM], mpv[r]), pick(t[oprofile.FIM], ipv[r]), pick(t[oprofile.FDM], dpv[r]), pick(t[oprofile.FBM], xb)}
	states := []hits.State{hits.StM, hits.StI, hits.StD, hits.StB}
	return states[argmax(path)]
}

func argmax(v []float32) int {
	best := 0
	for i := 1; i < len(v); i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

func oaSelectD(om *oprofile.Profile, ox *Matrix, i, k int) hits.State {
	Q := ox.Q
	q, r := (k-1)%Q, (k-1)/Q
	mpv, dpv, _ := prevVecs(ox, i, q)
	var tmd, tdd vec
	if q > 0 {
		tmd, tdd = om.FB.TF[7*(q-1)+oprofile.FMD], om.FB.TF[7*Q+q-1]
	} else {
		tmd, tdd = rightshift(om.FB.TF[7*(Q-1)+oprofile.FMD], 0), rightshift(om.FB.TF[8*Q-1], 0)
	}
	p0, p1 := mpv[r], dpv[r]
	if tmd[r] == 0 {
		p0 = negInf
	}
	if tdd[r] == 0 {
		p1 = negInf
	}
	if p0 >= p1 {
		return hits.StM
	}
	return hits.StD
}

func oaSelectI(om *oprofile.Profile, ox *Matrix, i, k int) hits.State {
	Q := ox.Q
	q, r := (k-1)%Q, (k-1)/Q
	row := ox.row(i - 1)
	p0, p1 := row[q*3+cM][r], row[q*3+cI][r]
	if om.FB.TF[7*q+oprofile.FMI][r] == 0 {
		p0 = negInf
	}
	if om.FB.TF[7*q+oprofile.FII][r] == 0 {
		p1 = negInf
	}
	if p0 >= p1 {
		return hits.StM
	}
	return hits.StI
}

// oaSelectE scans the row in striped order; among equal M cells the last
// wins (>=), D cells only on strict improvement, as HMMER.
func oaSelectE(ox *Matrix, i int) (hits.State, int) {
	Q := ox.Q
	row := ox.row(i)
	max := negInf
	smax, kmax := hits.StBogus, 0
	for q := 0; q < Q; q++ {
		for r := 0; r < 4; r++ {
			if v := row[q*3+cM][r]; v >= max {
				max, smax, kmax = v, hits.StM, r*Q+q+1
			}
		}
		for r := 0; r < 4; r++ {
			if v := row[q*3+cD][r]; v > max {
				max, smax, kmax = v, hits.StD, r*Q+q+1
			}
		}
	}
	return smax, kmax
}
