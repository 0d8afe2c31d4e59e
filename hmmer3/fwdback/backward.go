package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Backward fills bck with the Backward matrix of dsq, rescaled with the
// Forward matrix fwd's scale factors unless they prove insufficient (then
// it switches to its own, as HMMER does), and returns the score in nats.
func Backward(dsq []byte, om *oprofile.Profile, fwd, bck *Matrix, full bool) (float32, error) {
	var r bckRun
	r.start(dsq, om, fwd, bck, full, true)
	for i := len(dsq) - 1; i >= 1; i-- {
		r.rowAlone(i)
	}
	return r.finish()
}

// bckRun is one target's Backward between rows: its inputs and the
// special states of the row last computed. Backward runs every row on
// one target's kernels (rowAlone); BackwardGroup runs rows of several
// targets on the grouped ones, each target's specials and rescaling
// still here (specials, rescale).
type bckRun struct {
	dsq                []byte
	fb                 *oprofile.FBProfile
	fwd, bck           *Matrix
	Q                  int
	tw, dd             []vec
	xE, xN, xJ, xB, xC float32
	guessE             bool
	stream             bool // rows computed in bck's ring (Matrix.streams)
}

// start sizes bck and computes row L; with mayStream, in bck's ring
// when bck streams.
func (r *bckRun) start(dsq []byte, om *oprofile.Profile, fwd, bck *Matrix, full, mayStream bool) {
	fb := &om.FB
	L := len(dsq)
	bck.grow(om.M, L, full)
	Q := bck.Q
	bck.HasOwnScales = false
	tf := fb.TF
	dd := tf[7*Q:]
	tw := bck.wide(tf, Q)
	xfC, xfE := fb.XF[profile.XC], fb.XF[profile.XE]
	*r = bckRun{dsq: dsq, fb: fb, fwd: fwd, bck: bck, Q: Q, tw: tw, dd: dd, stream: mayStream && bck.streams()}

	// Row L.
	dpc := r.row(L)
	xJ, xB, xN := float32(0), float32(0), float32(0)
	xC := xfC[profile.Move]
	xE := fmul(xC, xfE[profile.Move])
	xEv := splat(xE)
	for q := 0; q < Q; q++ {
		dpc[q*3+cM] = xEv
		dpc[q*3+cD] = xEv
		dpc[q*3+cI] = vec{}
	}
	dpv := leftshift(dpc[(Q-1)*3+cD])
	var dcv vec
	for q := Q - 1; q >= 0; q-- {
		dcv = vmul(dpv, dd[q])
		dpc[q*3+cD] = vadd(dpc[q*3+cD], dcv)
		dpv = dpc[q*3+cD]
	}
	for j := 1; j < 4; j++ {
		dcv = leftshift(dcv)
		for q := Q - 1; q >= 0; q-- {
			dcv = vmul(dcv, dd[q])
			dpc[q*3+cD] = vadd(dpc[q*3+cD], dcv)
		}
	}
	dcv = leftshift(dpc[cD])
	for q := Q - 1; q >= 0; q-- {
		dpc[q*3+cM] = vadd(dpc[q*3+cM], vmul(dcv, tf[7*q+oprofile.FMD]))
		dcv = dpc[q*3+cD]
	}
	if s := fwd.X[L][XScale]; s > 1.0 {
		xE = fdiv(xE, s)
		xN = fdiv(xN, s)
		xC = fdiv(xC, s)
		xJ = fdiv(xJ, s)
		xB = fdiv(xB, s)
		scaleRow(dpc, ftz64(1.0/float64(s)))
	}
	bck.X[L] = [NXCells]float32{XE: xE, XN: xN, XJ: xJ, XB: xB, XC: xC, XScale: fwd.X[L][XScale]}
	if r.stream {
		bck.put(L, dpc)
	}
	bck.TotScale = float32(easel.Log(float64(fwd.X[L][XScale])))
	r.xE, r.xN, r.xJ, r.xB, r.xC = xE, xN, xJ, xB, xC

	// With the wide kernels, a full matrix in unihit mode (E->J zero, as
	// rescoring runs it) runs phase 3 inside phase 1 (bckRowIn3AVX2), on
	// a guess of E made before B is known: C's share alone, which is E
	// whenever J is finite. Phase 2 then checks the guess bit for bit; a
	// wrong one (J infinite or NaN) redoes the row from row i+1, which a
	// full matrix keeps. Either way every cell gets the same operations.
	r.guessE = tw != nil && full && xfE[profile.Loop] == 0
}

// row returns the row in which row i is computed: the matrix's, or the
// ring's when streaming.
func (r *bckRun) row(i int) []vec {
	if r.stream {
		return r.bck.ringRow(i)
	}
	return r.bck.row(i)
}

// rowAlone computes row i on one target's kernels.
func (r *bckRun) rowAlone(i int) {
	fb, Q, tf, tw, dd := r.fb, r.Q, r.fb.TF, r.tw, r.dd
	xfC, xfE := fb.XF[profile.XC], fb.XF[profile.XE]
	dpc := r.row(i)
	dpp := r.row(i + 1)
	rf := fb.RF[r.dsq[i]] // residue i+1

	// Phase 1: B(i) collected; complete I(i,k), partial M and D.
	var xBv, carry vec
	var xEg float32
	if r.guessE {
		xEg = fmul(fmul(r.xC, xfC[profile.Loop]), xfE[profile.Move]) + fmul(0, xfE[profile.Loop])
		xBv, carry = backwardRowIn3(dpp, dpc, tw, dd, rf, Q, xEg)
	} else {
		xBv = backwardRowInW(dpp, dpc, tf, tw, rf, Q)
	}

	// Phase 2: specials.
	xE := r.specials(hsum(xBv))
	switch {
	case r.guessE && math.Float32bits(xE) == math.Float32bits(xEg):
		backwardRowOut45(dpc, tw, dd, Q, xE, &carry)
	case r.guessE:
		backwardRowInW(dpp, dpc, tf, tw, rf, Q)
		fallthrough
	default:
		backwardRowOutW(dpc, tf, tw, Q, xE)
	}
	r.rescale(i, dpc)
	if r.stream {
		r.bck.put(i, dpc)
	}
}

// specials is phase 2 of a row: the special states from the row's B
// value xB; it returns E, which phases 3 to 5 take.
func (r *bckRun) specials(xB float32) float32 {
	xf := &r.fb.XF
	xfN, xfC, xfJ, xfE := xf[profile.XN], xf[profile.XC], xf[profile.XJ], xf[profile.XE]
	r.xB = xB
	r.xC = fmul(r.xC, xfC[profile.Loop])
	r.xJ = fmul(xB, xfJ[profile.Move]) + fmul(r.xJ, xfJ[profile.Loop])
	r.xN = fmul(xB, xfN[profile.Move]) + fmul(r.xN, xfN[profile.Loop])
	r.xE = fmul(r.xC, xfE[profile.Move]) + fmul(r.xJ, xfE[profile.Loop])
	return r.xE
}

// rescale ends row i (cells dpc): the Forward row's scale factor, or
// the row's own once Backward has switched to its own, and the specials
// kept in the matrix.
func (r *bckRun) rescale(i int, dpc []vec) {
	bck := r.bck
	// HMMER compares the float in double: float32(1e16) is above 1e16.
	if float64(r.xB) > 1.0e16 {
		bck.HasOwnScales = true
	}
	var s float32
	if bck.HasOwnScales {
		s = 1.0
		if r.xB > 1.0e4 {
			s = r.xB
		}
	} else {
		s = r.fwd.X[i][XScale]
	}
	if s > 1.0 {
		r.xE = fdiv(r.xE, s)
		r.xN = fdiv(r.xN, s)
		r.xJ = fdiv(r.xJ, s)
		r.xB = fdiv(r.xB, s)
		r.xC = fdiv(r.xC, s)
		scaleRow(dpc, ftz64(1.0/float64(s)))
		bck.TotScale = float32(float64(bck.TotScale) + easel.Log(float64(s)))
	}
	bck.X[i] = [NXCells]float32{XE: r.xE, XN: r.xN, XJ: r.xJ, XB: r.xB, XC: r.xC, XScale: s}
}

// finish computes row 0 (only N and B are reachable) and the score.
func (r *bckRun) finish() (float32, error) {
	fb, bck, Q, tf, L := r.fb, r.bck, r.Q, r.fb.TF, len(r.dsq)
	xfN := fb.XF[profile.XN]
	dpp := bck.row(0) // a full matrix of an empty target has no row 1
	if L > 0 {
		dpp = r.row(1)
	}
	if r.stream {
		storeFence()
	}
	rp := fb.RF[0]
	if L > 0 {
		rp = fb.RF[r.dsq[0]]
	}
	var xBv vec
	for q := 0; q < Q; q++ {
		mpv := vmul(dpp[q*3+cM], rp[q])
		mpv = vmul(mpv, tf[7*q+oprofile.FBM])
		xBv = vadd(xBv, mpv)
	}
	xB := hsum(xBv)
	xN := fmul(xB, xfN[profile.Move]) + fmul(r.xN, xfN[profile.Loop])
	bck.X[0] = [NXCells]float32{XB: xB, XN: xN, XScale: 1.0}

	switch {
	case math.IsNaN(float64(xN)):
		return 0, ErrRange
	case L > 0 && xN == 0:
		return 0, ErrRange
	case math.IsInf(float64(xN), 1):
		return 0, ErrRange
	}
	return float32(float64(bck.TotScale) + easel.Log(float64(xN))), nil
}

// scaleRow multiplies every cell of a row by inv (flushing to zero).
func scaleRow(dpc []vec, inv float32) {
	if useAsm() {
		scaleRowSSE(asVec4(dpc), len(dpc), inv)
		return
	}
	f := flat(dpc)
	for j, x := range f {
		f[j] = fmul(x, inv)
	}
}

// backwardRowIn is phase 1 of Backward row i: complete I(i), partial M(i)
// and D(i) from row i+1 (dpp; the same memory as dpc in a parser matrix)
// and the match odds rf of residue i+1; it returns the B vector sum.
func backwardRowIn(dpp, dpc, tf, rf []vec, Q int) vec {
	return backwardRowInW(dpp, dpc, tf, nil, rf, Q)
}

// backwardRowInW is backwardRowIn with the wide transitions tw (see
// forwardRowW).
func backwardRowInW(dpp, dpc, tf, tw, rf []vec, Q int) vec {
	if tw != nil && useWide() {
		var xBv vec
		bckRowInAVX2(asVec4(dpp), asVec4(dpc), asVec4(tw), asVec4(rf), Q, (*[4]float32)(&xBv))
		return xBv
	}
	if useAsm() {
		var xBv vec
		bckRowInSSE(asVec4(dpp), asVec4(dpc), asVec4(tf), asVec4(rf), Q, (*[4]float32)(&xBv))
		return xBv
	}
	return backwardRowInGo(dpp, dpc, tf, rf, Q)
}

// zeroCarry: the D->D passes after the first only carry a value along
// (carry = carry*DD, D += carry) and stop as soon as the carry is zero in
// every lane. That is exact, not an approximation: a zero carry stays
// zero (D->D probabilities are finite) and adds +0 to each D cell it
// would still visit, which changes nothing, D cells being sums of
// products of non-negative numbers (never -0, the one value +0 changes,
// nor NaN). HMMER runs the passes to the end; on long models the carry
// has usually flushed to zero long before (on the consensus of the
// 2405-node CUDAMPF model, 72% of Backward rows enter phase 4 with a
// zero carry). The Forward passes after the first stop the same way.

// backwardRowOut is phases 3 to 5 of a Backward row: the M->E and D->E
// paths with one D->D step, three more D->D passes (see zeroCarry), then
// M->D.
func backwardRowOut(dpc, tf []vec, Q int, xE float32) {
	backwardRowOutW(dpc, tf, nil, Q, xE)
}

// backwardRowOutW is backwardRowOut with the wide transitions tw (see
// forwardRowW).
func backwardRowOutW(dpc, tf, tw []vec, Q int, xE float32) {
	if tw != nil && useWide() {
		bckRowOutAVX2(asVec4(dpc), asVec4(tw), asVec4(tf[7*Q:]), Q, xE)
		return
	}
	if useAsm() {
		bckRowOutSSE(asVec4(dpc), asVec4(tf), Q, xE)
		return
	}
	backwardRowOutGo(dpc, tf, Q, xE)
}

// backwardRowIn3 is phase 1 of a Backward row with phase 3 for E value
// xE in the same sweep (wide kernels only); it returns the B vector sum
// and phase 3's carry, which backwardRowOut45 takes.
func backwardRowIn3(dpp, dpc, tw, dd, rf []vec, Q int, xE float32) (xBv, carry vec) {
	bckRowIn3AVX2(asVec4(dpp), asVec4(dpc), asVec4(tw), asVec4(dd), asVec4(rf), Q, xE, (*[4]float32)(&xBv), (*[4]float32)(&carry))
	return xBv, carry
}

// backwardRowOut45 is phases 4 and 5 of a Backward row after
// backwardRowIn3.
func backwardRowOut45(dpc, tw, dd []vec, Q int, xE float32, carry *vec) {
	bckRowOut45AVX2(asVec4(dpc), asVec4(tw), asVec4(dd), Q, xE, (*[4]float32)(carry))
}
