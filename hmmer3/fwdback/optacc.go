package fwdback

import (
	"math"
	"slices"

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
	oa := newOA(om, pp, ox)
	for i := 1; i <= pp.L; i++ {
		oa.row(i)
	}
	return ox.X[pp.L][XC]
}

// oaRun is optimal accuracy in progress: ox sized, masked and initialized
// by newOA, then filled one row at a time.
type oaRun struct {
	pp, ox *Matrix
	// Which special paths have a nonzero transition probability: one
	// that has none contributes 0.
	jLoop, eLoop, cLoop, eMove, nLoop, nMove, jMove bool
}

func newOA(om *oprofile.Profile, pp, ox *Matrix) oaRun {
	ox.grow(om.M, pp.L, true)
	ox.setMasks(om.FB.TF)
	row0 := flat(ox.row(0))
	for j := range row0 {
		row0[j] = negInf
	}
	ox.X[0] = [NXCells]float32{XE: negInf, XN: 0, XJ: negInf, XB: 0, XC: negInf}
	xf := &om.FB.XF
	return oaRun{pp: pp, ox: ox,
		jLoop: xf[profile.XJ][profile.Loop] != 0, eLoop: xf[profile.XE][profile.Loop] != 0,
		cLoop: xf[profile.XC][profile.Loop] != 0, eMove: xf[profile.XE][profile.Move] != 0,
		nLoop: xf[profile.XN][profile.Loop] != 0, nMove: xf[profile.XN][profile.Move] != 0,
		jMove: xf[profile.XJ][profile.Move] != 0}
}

// row computes row i: the cells, then the specials.
func (oa *oaRun) row(i int) {
	ox := oa.ox
	oa.specials(i, oaRow(ox.row(i-1), ox.row(i), oa.pp.row(i), ox.mask, ox.Q, ox.X[i-1][XB], &ox.ddAll))
}

// specials sets row i's specials in HMMER's order, given the vector of
// the row's M and D maxima.
func (oa *oaRun) specials(i int, xEv vec) {
	ox := oa.ox
	px, cx, x := &ox.X[i-1], &oa.pp.X[i], &ox.X[i]
	x[XE] = hmax(xEv)

	var t1, t2 float32
	if oa.jLoop {
		t1 = px[XJ] + cx[XJ]
	}
	if oa.eLoop {
		t2 = x[XE]
	}
	x[XJ] = cmax(t1, t2)
	t1, t2 = 0, 0
	if oa.cLoop {
		t1 = px[XC] + cx[XC]
	}
	if oa.eMove {
		t2 = x[XE]
	}
	x[XC] = cmax(t1, t2)
	x[XN] = 0
	if oa.nLoop {
		x[XN] = px[XN] + cx[XN]
	}
	t1, t2 = 0, 0
	if oa.nMove {
		t1 = x[XN]
	}
	if oa.jMove {
		t2 = x[XJ]
	}
	x[XB] = cmax(t1, t2)
}

// setMasks fills mx.mask with HMMER's _mm_cmpgt_ps(t, 0) of every
// transition vector of tf (all ones where t > 0, in tf's layout),
// mx.ddAll with the AND of the D->D masks, and mx.plain[q] with 1 where
// vector q's seven masks and its D->D mask are all ones.
func (mx *Matrix) setMasks(tf []vec) {
	if cap(mx.mask) < 4*len(tf) {
		mx.mask = make([]uint32, 4*len(tf))
	}
	mx.mask = mx.mask[:4*len(tf)]
	for j, t := range flat(tf) {
		mx.mask[j] = 0
		if t > 0 {
			mx.mask[j] = ^uint32(0)
		}
	}
	mx.ddAll = [4]uint32{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}
	for j := 28 * mx.Q; j < len(mx.mask); j += 4 {
		for z := 0; z < 4; z++ {
			mx.ddAll[z] &= mx.mask[j+z]
		}
	}
	mx.plain = slices.Grow(mx.plain[:0], mx.Q)[:mx.Q]
	for q := range mx.plain {
		all := ^uint32(0)
		for _, m := range mx.mask[28*q : 28*q+28] {
			all &= m
		}
		for _, m := range mx.mask[28*mx.Q+4*q : 28*mx.Q+4*q+4] {
			all &= m
		}
		mx.plain[q] = uint8(all & 1)
	}
}

// band is one lane of _mm_and_ps of a mask with a value.
func band(m uint32, x float32) float32 { return math.Float32frombits(m & math.Float32bits(x)) }

// vmax1 is one lane of _mm_max_ps(a, b): a if a > b, else b.
func vmax1(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

// oaRowGo is the portable optimal accuracy row: row dpc from row dpp and
// posterior row ppr under masks msk (setMasks), returning the vector of
// the row's M and D maxima for E.
//
// HMMER's five sweeps over the row (M, I and the M->D carry; a D->D pass
// that carries max(carry, D); three passes that only mask the carry; the
// D cells into E) act on each lane separately except where a carry
// crosses from vector Q-1 of lane z-1 into vector 0 of lane z. So lanes
// are computed one after another with scalar carries, and the crossing
// values are handed on:
//
//   - the first D->D pass of lane z starts with the M->D carry that left
//     lane z-1, which lane z-1's first sweep has just produced, so that
//     pass runs inside the first sweep;
//   - in passes two to four the carry never reads a D cell: a pass starts
//     with the previous pass's carry shifted one lane and leaves with it
//     ANDed with every D->D mask of its lane (ddAll). Their starting values
//     are known once all first sweeps are done, and one second sweep per
//     lane applies the three maxima to each D cell in pass order and folds
//     the cell into E.
//
// Every cell sees the same operations, in the same order, as in HMMER.
func oaRowGo(dpp, dpc, ppr []vec, msk []uint32, Q int, xB float32, ddAll *[4]uint32) vec {
	n := 12 * Q
	pf, cf, rf := flat(dpp)[:n], flat(dpc)[:n], flat(ppr)[:n]
	ddm := msk[28*Q : 32*Q]
	var xEv, c1 vec
	carry := negInf // the M->D carry entering lane z
	for z := 0; z < 4; z++ {
		mp, dp, ip := negInf, negInf, negInf
		if z > 0 {
			mp, dp, ip = pf[n-12+z-1], pf[n-8+z-1], pf[n-4+z-1]
		}
		xe, dc, c := negInf, negInf, carry
		for q, j := 0, z; j < n; q, j = q+1, j+12 {
			t := msk[28*q+z : 28*q+z+25]
			sv := band(t[4*oprofile.FBM], xB)
			sv = vmax1(sv, band(t[4*oprofile.FMM], mp))
			sv = vmax1(sv, band(t[4*oprofile.FIM], ip))
			sv = vmax1(sv, band(t[4*oprofile.FDM], dp))
			sv += rf[j]
			xe = vmax1(xe, sv)
			mp, dp, ip = pf[j], pf[j+4], pf[j+8]
			cf[j] = sv
			d := vmax1(c, dc)
			cf[j+4] = d
			c = band(ddm[4*q+z], d)
			dc = band(t[4*oprofile.FMD], sv)
			sv = vmax1(band(t[4*oprofile.FMI], mp), band(t[4*oprofile.FII], ip))
			cf[j+8] = sv + rf[j+8]
		}
		xEv[z], c1[z], carry = xe, c, dc
	}
	c2 := rightshift(c1, negInf)
	c3 := rightshift(andMask(ddAll, c2), negInf)
	c4 := rightshift(andMask(ddAll, c3), negInf)
	for z := 0; z < 4; z++ {
		xe, a, b, c := xEv[z], c2[z], c3[z], c4[z]
		for q, j := 0, z+4; j < n; q, j = q+1, j+12 {
			d := vmax1(a, cf[j])
			d = vmax1(b, d)
			d = vmax1(c, d)
			cf[j] = d
			xe = vmax1(xe, d)
			m := ddm[4*q+z]
			a, b, c = band(m, a), band(m, b), band(m, c)
		}
		xEv[z] = xe
	}
	return xEv
}

// decodeOARowGo is the portable decodeOARow: the optimal accuracy row,
// then, unless nil, the row sum into acc and the decoding of row nf, nb.
// No step reads what another writes, so their order is free.
func decodeOARowGo(dpp, dpc, ppr []vec, msk []uint32, Q int, xB float32, ddAll *[4]uint32, acc, nf, nb []vec, t float32) vec {
	xEv := oaRowGo(dpp, dpc, ppr, msk, Q, xB, ddAll)
	if acc != nil {
		sumRowsGo(acc, ppr, Q, 1)
	}
	if nf != nil {
		decodeRowsGo(nf, nb, nb, Q, []float32{t})
	}
	return xEv
}

// andMask is _mm_and_ps(m, v).
func andMask(m *[4]uint32, v vec) vec {
	return vec{band(m[0], v[0]), band(m[1], v[1]), band(m[2], v[2]), band(m[3], v[3])}
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
	// A unihit path has at most one state per residue and per node, and
	// S, N, B, E, C, T besides.
	reserveTrace(tr, ox.L+om.M+8)
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
