package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The wide Forward/Backward rows (AVX2): one target, HMMER's four-lane
// operations, but two striped vectors q and q+1 side by side in one ymm
// register wherever a cell depends only on the previous row (Forward's
// M and I cells and M->D products; Backward's phase 1 and its M->D
// phase). Each half of a 256-bit instruction is exactly the 128-bit
// instruction of the SSE kernel on the same operands, so every cell gets
// the same bits. What is serial across q stays 128-bit and in q order:
// the E and B sums, the D->D carries.
//
// Two changes of schedule, not of arithmetic, make the serial parts
// cheaper than in fwdRowSSE:
//   - Forward's first D->D pass runs inside the M/I sweep. Its carry
//     enters vector 0 as M(Q-1)*MD(Q-1) shifted by a lane, and M(Q-1)
//     depends only on the previous row, so the kernel computes it first
//     (the same operations again) and the chain D(q) = carry + MD(q-1),
//     carry = D(q)*DD(q) then advances with the sweep.
//   - Forward's E sum of the D cells runs inside each later D->D pass,
//     from the E sum of the M cells; a pass after it starts the sum
//     again, and a pass that stops at a zero carry finishes the sum over
//     the cells it did not reach. The sum that survives is taken over
//     the final D values in q order, as in the separate loop.
// Backward's M += E of phase 3 moves into phase 5, which then computes
// (M + E) + D*MD, the same two additions in the same order.
//
// Transitions come from a copy of the profile's table with the vectors
// of q = 2p and 2p+1 side by side (Go's wideTransitions): pair p holds
// the seven transitions FBM..FII, 32 bytes each, low half q = 2p. The
// D->D vectors are read from the profile's table, 16 bytes at a time.
// Rows keep fwdback's layout (M, D, I per vector, 48 bytes), so a pair
// of row vectors is a 16-byte load and an insert, and a store of a pair
// is a 16-byte store and an extract.

const (
	wvb   = 32      // bytes per pair of vectors
	wpair = 7 * wvb // bytes per pair in the wide transition table
	row3  = 3 * vb  // bytes per row vector triple
)

// wideMain registers the wide kernels; main calls it.
func wideMain() {
	fwdRowWide()
	bckRowInWide()
	bckRowOutWide()
	bckRowIn3Wide()
	bckRowOut45Wide()
}

// pairLoad loads row vectors at m and m+48 into the halves of a ymm.
func pairLoad(m Mem) reg.VecVirtual {
	v := YMM()
	VMOVUPS(m, v.AsX())
	VINSERTF128(U8(1), m.Offset(row3), v, v)
	return v
}

// pairStore stores the halves of v at m and m+48.
func pairStore(v reg.VecVirtual, m Mem) {
	VMOVUPS(v.AsX(), m)
	VMOVUPS(hiHalf(v), m.Offset(row3))
}

// hiHalf returns the high half of v in a fresh xmm register.
func hiHalf(v reg.VecVirtual) reg.VecVirtual {
	x := XMM()
	VEXTRACTF128(U8(1), v, x)
	return x
}

// vexitIfZero is exitIfZero in VEX encoding.
func vexitIfZero(v, zero reg.VecVirtual, label string) {
	t, r := XMM(), GP32()
	VCMPPS(U8(4), zero, v, t) // v != 0 per lane (true for NaN)
	VMOVMSKPS(t, r)
	TESTL(r, r)
	JZ(LabelRef(label))
}

// fwdRowWide is fwdRowSSE with paired cells; see the comment above.
func fwdRowWide() {
	TEXT("fwdRowAVX2", NOSPLIT, "func(dpp, dpc, tw, dd, rf *[4]float32, q int, xB float32, all4 bool, xEv *[4]float32)")
	Pragma("noescape")
	Doc("fwdRowAVX2 computes Forward row dpc from row dpp (which may be the same memory) as fwdRowSSE does, two vectors at a time; tw is the paired transition table, dd the D->D vectors.")
	slot := ftzOn()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tw := Load(Param("tw"), GP64())
	dd := Load(Param("dd"), GP64())
	rf := Load(Param("rf"), GP64())
	Q := Load(Param("q"), GP64())
	n := GP64() // Q*48: bytes per row
	IMUL3Q(U32(row3), Q, n)
	xB := YMM()
	Load(Param("xB"), xB.AsX())
	VBROADCASTSS(xB.AsX(), xB)

	// Vector Q-1 of the previous row, shifted a lane up: the predecessor
	// of vector 0, held in the high halves of prevM, prevD, prevI (the
	// high half is always the predecessor of the next pair's low vector).
	last := Mem{Base: dpp, Index: n, Scale: 1, Disp: -row3}
	prevM, prevD, prevI := YMM(), YMM(), YMM()
	for c, v := range []reg.VecVirtual{prevM, prevD, prevI} {
		VMOVUPS(last.Offset(c*vb), v.AsX())
		VPSLLDQ(U8(4), v.AsX(), v.AsX())
		VINSERTF128(U8(1), v.AsX(), v, v)
	}

	// M(Q-1), computed first for the carry that enters the first D->D pass.
	tq := GP64() // byte offset of vector Q-1 in the wide table
	MOVQ(Q, tq)
	DECQ(tq)
	t1 := GP64()
	MOVQ(tq, t1)
	SHRQ(U8(1), tq)
	IMUL3Q(U32(wpair), tq, tq)
	ANDQ(U8(1), t1)
	SHLQ(U8(4), t1)
	ADDQ(t1, tq)
	ADDQ(tw, tq)
	mp, dp, ip := XMM(), XMM(), XMM()
	CMPQ(Q, U8(1))
	JNE(LabelRef("fwdw_pred"))
	VEXTRACTF128(U8(1), prevM, mp)
	VEXTRACTF128(U8(1), prevD, dp)
	VEXTRACTF128(U8(1), prevI, ip)
	JMP(LabelRef("fwdw_last"))
	Label("fwdw_pred")
	pred := Mem{Base: dpp, Index: n, Scale: 1, Disp: -2 * row3}
	VMOVUPS(pred.Offset(cM*vb), mp)
	VMOVUPS(pred.Offset(cD*vb), dp)
	VMOVUPS(pred.Offset(cI*vb), ip)
	Label("fwdw_last")
	tl := func(i int) Mem { return Mem{Base: tq, Disp: i * wvb} }
	sv, tmp := XMM(), XMM()
	VMULPS(tl(fBM), xB.AsX(), sv)
	VMULPS(tl(fMM), mp, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(tl(fIM), ip, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(tl(fDM), dp, tmp)
	VADDPS(tmp, sv, sv)
	rl := GP64() // rf + (Q-1)*16
	MOVQ(Q, rl)
	SHLQ(U8(4), rl)
	VMULPS(Mem{Base: rf, Index: rl, Scale: 1, Disp: -vb}, sv, sv)
	c := XMM() // the first D->D pass's carry
	VMULPS(tl(fMD), sv, c)
	VPSLLDQ(U8(4), c, c)

	xEv := XMM()
	VXORPS(xEv, xEv, xEv)
	mdPrev := XMM() // M(q-1)*MD(q-1), what the M->D path gives D(q); 0 for q = 0
	VXORPS(mdPrev, mdPrev, mdPrev)
	off := GP64() // q*48
	XORQ(off, off)
	tp, rp, dq := GP64(), GP64(), GP64()
	MOVQ(tw, tp)
	MOVQ(rf, rp)
	MOVQ(dd, dq)
	np := GP64() // (Q-1)*48: pairs run while off < np
	LEAQ(Mem{Base: n, Disp: -row3}, np)
	JMP(LabelRef("fwdw_test"))

	Label("fwdw_pair")
	prev := Mem{Base: dpp, Index: off, Scale: 1}
	cur := Mem{Base: dpc, Index: off, Scale: 1}
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * wvb} }
	// Predecessors (q-1, q) from the last pair's high halves and this
	// pair's rows (q, q+1), which become the next pair's.
	shift := func(prevV reg.VecVirtual, m Mem) reg.VecVirtual {
		now := pairLoad(m)
		sh := YMM()
		VPERM2F128(U8(0x21), now, prevV, sh) // low: prevV's high, high: now's low
		VMOVAPS(now, prevV)
		return sh
	}
	shM := shift(prevM, prev.Offset(cM*vb))
	shI := shift(prevI, prev.Offset(cI*vb))
	shD := shift(prevD, prev.Offset(cD*vb))
	wsv, wt := YMM(), YMM()
	VMULPS(t(fBM), xB, wsv)
	VMULPS(t(fMM), shM, wt)
	VADDPS(wt, wsv, wsv)
	VMULPS(t(fIM), shI, wt)
	VADDPS(wt, wsv, wsv)
	VMULPS(t(fDM), shD, wt)
	VADDPS(wt, wsv, wsv)
	VMULPS(Mem{Base: rp}, wsv, wsv)
	pairStore(wsv, cur.Offset(cM*vb))
	wdc := YMM()
	VMULPS(t(fMD), wsv, wdc)
	wi := YMM()
	VMULPS(t(fMI), prevM, wi)
	VMULPS(t(fII), prevI, wt)
	VADDPS(wt, wi, wi)
	pairStore(wi, cur.Offset(cI*vb))
	// Serial: E of the M cells, and the first D->D pass, q then q+1.
	VADDPS(wsv.AsX(), xEv, xEv)
	VADDPS(hiHalf(wsv), xEv, xEv)
	d := XMM()
	VADDPS(mdPrev, c, d)
	VMOVUPS(d, cur.Offset(cD*vb))
	VMULPS(Mem{Base: dq}, d, c)
	VADDPS(wdc.AsX(), c, d)
	VMOVUPS(d, cur.Offset(row3+cD*vb))
	VMULPS(Mem{Base: dq, Disp: vb}, d, c)
	VEXTRACTF128(U8(1), wdc, mdPrev)
	ADDQ(U32(wpair), tp)
	ADDQ(U8(wvb), rp)
	ADDQ(U8(wvb), dq)
	ADDQ(U8(2*row3), off)
	Label("fwdw_test")
	CMPQ(off, np)
	JB(LabelRef("fwdw_pair"))

	// Odd Q: vector Q-1 alone, in the low half of the last table pair.
	CMPQ(off, n)
	JAE(LabelRef("fwdw_dd"))
	VEXTRACTF128(U8(1), prevM, mp)
	VEXTRACTF128(U8(1), prevD, dp)
	VEXTRACTF128(U8(1), prevI, ip)
	VMULPS(t(fBM), xB.AsX(), sv)
	VMULPS(t(fMM), mp, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(t(fIM), ip, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(t(fDM), dp, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(Mem{Base: rp}, sv, sv)
	VADDPS(sv, xEv, xEv)
	VMOVUPS(prev.Offset(cM*vb), mp)
	VMOVUPS(prev.Offset(cI*vb), ip)
	VMOVUPS(sv, cur.Offset(cM*vb))
	VMULPS(t(fMI), mp, sv)
	VMULPS(t(fII), ip, tmp)
	VADDPS(tmp, sv, sv)
	VMOVUPS(sv, cur.Offset(cI*vb))
	VADDPS(mdPrev, c, sv)
	VMOVUPS(sv, cur.Offset(cD*vb))
	VMULPS(Mem{Base: dq}, sv, c)

	// Passes 2 to 4 carry a value along, each summing E from the M cells'
	// share over the D cells as they leave it.
	Label("fwdw_dd")
	zero := XMM()
	VXORPS(zero, zero, zero)
	e := XMM()
	dcell := Mem{Base: dpc, Index: off, Scale: 1, Disp: cD * vb}
	all4 := Load(Param("all4"), GP8())
	passes := GP64()
	MOVQ(U32(3), passes)
	changed := XMM()
	mask := GP32()
	TESTB(all4, all4)
	JNZ(LabelRef("fwdw_pass4"))
	Label("fwdw_pass")
	VPSLLDQ(U8(4), c, c)
	VXORPS(changed, changed, changed)
	VMOVAPS(xEv, e)
	XORQ(off, off)
	MOVQ(dd, dq)
	Label("fwdw_ddn")
	old, nd := XMM(), XMM()
	VMOVUPS(dcell, old)
	VADDPS(old, c, nd)
	VCMPPS(U8(1), nd, old, old) // old < nd: the cell grew (false on NaN)
	VORPS(old, changed, changed)
	VMOVUPS(nd, dcell)
	VADDPS(e, nd, e)
	VMULPS(Mem{Base: dq}, c, c)
	vexitIfZero(c, zero, "fwdw_rest")
	ADDQ(U8(vb), dq)
	ADDQ(U8(row3), off)
	CMPQ(off, n)
	JB(LabelRef("fwdw_ddn"))
	DECQ(passes)
	JZ(LabelRef("fwdw_out"))
	VMOVMSKPS(changed, mask)
	TESTL(mask, mask)
	JNZ(LabelRef("fwdw_pass"))
	JMP(LabelRef("fwdw_out"))

	Label("fwdw_pass4")
	VPSLLDQ(U8(4), c, c)
	VMOVAPS(xEv, e)
	XORQ(off, off)
	MOVQ(dd, dq)
	Label("fwdw_dd4")
	VADDPS(dcell, c, nd)
	VMOVUPS(nd, dcell)
	VADDPS(e, nd, e)
	VMULPS(Mem{Base: dq}, c, c)
	ADDQ(U8(vb), dq)
	ADDQ(U8(row3), off)
	CMPQ(off, n)
	JB(LabelRef("fwdw_dd4"))
	DECQ(passes)
	JNZ(LabelRef("fwdw_pass4"))
	JMP(LabelRef("fwdw_out"))

	// A zero carry ended the pass at vector off/48: the D cells after it
	// are final as they are.
	Label("fwdw_rest")
	ADDQ(U8(row3), off)
	JMP(LabelRef("fwdw_resttest"))
	Label("fwdw_restloop")
	VMOVUPS(dcell, nd)
	VADDPS(e, nd, e)
	ADDQ(U8(row3), off)
	Label("fwdw_resttest")
	CMPQ(off, n)
	JB(LabelRef("fwdw_restloop"))

	Label("fwdw_out")
	out := Load(Param("xEv"), GP64())
	VMOVUPS(e, Mem{Base: out})
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// bckRowInWide is bckRowInSSE with paired cells, walking q down.
func bckRowInWide() { bckIn(false) }

// bckRowIn3Wide is bckRowInWide with phase 3 run in the same sweep, for
// an E value known before phase 1 (in unihit mode E does not depend on
// B; Go checks the guess and redoes the row when it was wrong). Phase 3's
// chain D(q) = D1(q) + (D(q+1)*DD(q) + E), nine cycles of latency per
// vector, then hides phase 1's work instead of following it. The chain
// starts from D1(0), which depends only on the previous row and is
// computed first (the same operations as phase 1's at q = 0).
func bckRowIn3Wide() { bckIn(true) }

func bckIn(fused bool) {
	lp := "binw"
	if fused {
		lp = "bin3w"
		TEXT("bckRowIn3AVX2", NOSPLIT, "func(dpp, dpc, tw, dd, rf *[4]float32, q int, xE float32, xBv, carry *[4]float32)")
		Pragma("noescape")
		Doc("bckRowIn3AVX2 is bckRowInAVX2 followed by bckRowOutAVX2's phase 3 for E value xE, in one sweep; it returns phase 3's carry out of vector 0 in carry.")
	} else {
		TEXT("bckRowInAVX2", NOSPLIT, "func(dpp, dpc, tw, rf *[4]float32, q int, xBv *[4]float32)")
		Pragma("noescape")
		Doc("bckRowInAVX2 is bckRowInSSE two vectors at a time (dpp and dpc may be the same memory); tw is the paired transition table.")
	}
	slot := ftzOn()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tw := Load(Param("tw"), GP64())
	rf := Load(Param("rf"), GP64())
	Q := Load(Param("q"), GP64())

	// The low halves of nM, nMM, nIM, nDM hold what vector q+1 gives the
	// vector q being computed: M(i+1,q+1) times its match odds, and the
	// transitions into node q+1. Above vector Q-1 that is vector 0
	// shifted down a lane.
	nM, nMM, nIM, nDM := YMM(), YMM(), YMM(), YMM()
	VMOVUPS(Mem{Base: dpp, Disp: cM * vb}, nM.AsX())
	VMULPS(Mem{Base: rf}, nM.AsX(), nM.AsX())
	VPSRLDQ(U8(4), nM.AsX(), nM.AsX())
	VMOVUPS(Mem{Base: tw, Disp: fMM * wvb}, nMM.AsX())
	VPSRLDQ(U8(4), nMM.AsX(), nMM.AsX())
	VMOVUPS(Mem{Base: tw, Disp: fIM * wvb}, nIM.AsX())
	VPSRLDQ(U8(4), nIM.AsX(), nIM.AsX())
	VMOVUPS(Mem{Base: tw, Disp: fDM * wvb}, nDM.AsX())
	VPSRLDQ(U8(4), nDM.AsX(), nDM.AsX())
	xBv := XMM()
	VXORPS(xBv, xBv, xBv)

	// Phase 3's chain value and its E (fused only).
	var dpv, xE reg.VecVirtual
	if fused {
		xE = XMM()
		Load(Param("xE"), xE)
		VBROADCASTSS(xE, xE)
		dpv = XMM()
		CMPQ(Q, U8(1))
		JNE(LabelRef(lp + "_d10"))
		VMULPS(nDM.AsX(), nM.AsX(), dpv)
		JMP(LabelRef(lp + "_d1"))
		Label(lp + "_d10")
		VMOVUPS(Mem{Base: dpp, Disp: row3 + cM*vb}, dpv)
		VMULPS(Mem{Base: rf, Disp: vb}, dpv, dpv)
		VMULPS(Mem{Base: tw, Disp: fDM*wvb + vb}, dpv, dpv)
		Label(lp + "_d1")
		VADDPS(xE, dpv, dpv) // D1(0) + E
		VPSRLDQ(U8(4), dpv, dpv)
	}

	// Pointers at vector q = the top group's lowest vector: Q-2 for even
	// Q, Q-1 (alone) for odd Q.
	qq := GP64()
	MOVQ(Q, qq)
	ANDQ(U8(1), qq)
	pairs := GP64()
	MOVQ(Q, pairs)
	SHRQ(U8(1), pairs)
	top := GP64()
	LEAQ(Mem{Base: Q, Index: qq, Scale: 1, Disp: -2}, top)
	pp, pc, tp, rp := GP64(), GP64(), GP64(), GP64()
	IMUL3Q(U32(row3), top, pp)
	MOVQ(pp, pc)
	ADDQ(dpp, pp)
	ADDQ(dpc, pc)
	MOVQ(top, tp)
	SHRQ(U8(1), tp)
	IMUL3Q(U32(wpair), tp, tp)
	ADDQ(tw, tp)
	MOVQ(top, rp)
	SHLQ(U8(4), rp)
	ADDQ(rf, rp)
	var dq reg.GPVirtual // dd + q*16 (fused)
	if fused {
		dq = GP64()
		MOVQ(top, dq)
		SHLQ(U8(4), dq)
		ADDQ(Load(Param("dd"), GP64()), dq)
	}
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * wvb} }
	// p3 is one step of phase 3 at the vector whose D1 value is d1, D at
	// m and D->D vector at ddv; dcv is the step's carry.
	dcv := XMM()
	p3 := func(d1 reg.Register, m, ddv Mem) {
		a := XMM()
		VMULPS(ddv, dpv, dcv)
		VADDPS(xE, dcv, a)
		VADDPS(a, d1, dpv)
		VMOVUPS(dpv, m)
	}

	TESTQ(qq, qq)
	JZ(LabelRef(lp + "_test"))
	// Odd Q: vector Q-1, in the low half of the last table pair.
	ip, a, b, mc := XMM(), XMM(), XMM(), XMM()
	VMOVUPS(Mem{Base: pp, Disp: cI * vb}, ip)
	VMULPS(t(fII), ip, a)
	VMULPS(nIM.AsX(), nM.AsX(), b)
	VADDPS(b, a, a)
	VMOVUPS(a, Mem{Base: pc, Disp: cI * vb})
	VMULPS(nDM.AsX(), nM.AsX(), a)
	if fused {
		p3(a, Mem{Base: pc, Disp: cD * vb}, Mem{Base: dq})
	} else {
		VMOVUPS(a, Mem{Base: pc, Disp: cD * vb})
	}
	VMULPS(t(fMI), ip, mc)
	VMULPS(nMM.AsX(), nM.AsX(), b)
	VADDPS(b, mc, mc)
	VMOVUPS(Mem{Base: pp, Disp: cM * vb}, nM.AsX())
	VMULPS(Mem{Base: rp}, nM.AsX(), nM.AsX())
	VMOVUPS(mc, Mem{Base: pc, Disp: cM * vb})
	VMOVUPS(t(fDM), nDM.AsX())
	VMOVUPS(t(fIM), nIM.AsX())
	VMOVUPS(t(fMM), nMM.AsX())
	VMULPS(t(fBM), nM.AsX(), a)
	VADDPS(a, xBv, xBv)
	SUBQ(U8(2*row3), pp)
	SUBQ(U8(2*row3), pc)
	SUBQ(U32(wpair), tp)
	SUBQ(U8(wvb), rp)
	if fused {
		SUBQ(U8(2*vb), dq)
	}

	Label(lp + "_test")
	TESTQ(pairs, pairs)
	JZ(LabelRef(lp + "_done"))
	Label(lp + "_pair")
	// next(v, now): (now's high half, v's low half), what vectors q+1 and
	// q+2 give q and q+1; v becomes now for the pair below.
	next := func(v, now reg.VecVirtual) reg.VecVirtual {
		s := YMM()
		VPERM2F128(U8(0x21), v, now, s) // low: now's high, high: v's low
		VMOVAPS(now, v)
		return s
	}
	pm := pairLoad(Mem{Base: pp, Disp: cM * vb})
	pi := pairLoad(Mem{Base: pp, Disp: cI * vb})
	mNow := YMM()
	VMULPS(Mem{Base: rp}, pm, mNow)
	mN := next(nM, mNow)
	wa, wb := YMM(), YMM()
	now := YMM()
	VMOVUPS(t(fIM), now)
	imN := next(nIM, now)
	VMULPS(t(fII), pi, wa)
	VMULPS(imN, mN, wb)
	VADDPS(wb, wa, wa)
	pairStore(wa, Mem{Base: pc, Disp: cI * vb})
	now2 := YMM()
	VMOVUPS(t(fDM), now2)
	dmN := next(nDM, now2)
	wd := YMM()
	VMULPS(dmN, mN, wd)
	if fused {
		// Phase 3, vector q+1 before q.
		p3(hiHalf(wd), Mem{Base: pc, Disp: row3 + cD*vb}, Mem{Base: dq, Disp: vb})
		p3(wd.AsX(), Mem{Base: pc, Disp: cD * vb}, Mem{Base: dq})
	} else {
		pairStore(wd, Mem{Base: pc, Disp: cD * vb})
	}
	now3 := YMM()
	VMOVUPS(t(fMM), now3)
	mmN := next(nMM, now3)
	VMULPS(t(fMI), pi, wa)
	VMULPS(mmN, mN, wb)
	VADDPS(wb, wa, wa)
	pairStore(wa, Mem{Base: pc, Disp: cM * vb})
	// B: vector q+1 before q.
	VMULPS(t(fBM), nM, wa)
	VADDPS(hiHalf(wa), xBv, xBv)
	VADDPS(wa.AsX(), xBv, xBv)
	SUBQ(U8(2*row3), pp)
	SUBQ(U8(2*row3), pc)
	SUBQ(U32(wpair), tp)
	SUBQ(U8(wvb), rp)
	if fused {
		SUBQ(U8(2*vb), dq)
	}
	DECQ(pairs)
	JNZ(LabelRef(lp + "_pair"))

	Label(lp + "_done")
	out := Load(Param("xBv"), GP64())
	VMOVUPS(xBv, Mem{Base: out})
	if fused {
		VMOVUPS(dcv, Mem{Base: Load(Param("carry"), GP64())})
	}
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// bckRowOutWide is bckRowOutSSE with phase 5 (and phase 3's M += E)
// paired.
func bckRowOutWide() {
	TEXT("bckRowOutAVX2", NOSPLIT, "func(dpc, tw, dd *[4]float32, q int, xE float32)")
	Pragma("noescape")
	Doc("bckRowOutAVX2 is bckRowOutSSE with its M->D phase two vectors at a time; tw is the paired transition table, dd the D->D vectors.")
	slot := ftzOn()
	dpc := Load(Param("dpc"), GP64())
	dd := Load(Param("dd"), GP64())
	Q := Load(Param("q"), GP64())
	xE := YMM()
	Load(Param("xE"), xE.AsX())
	VBROADCASTSS(xE.AsX(), xE)
	top, ddTop := outPointers(dpc, dd, Q)

	pc, dp := GP64(), GP64()
	dpv, dcv, a := XMM(), XMM(), XMM()
	// Phase 3: the D->E paths and one D->D step (serial).
	VMOVUPS(Mem{Base: dpc, Disp: cD * vb}, dpv)
	VADDPS(xE.AsX(), dpv, dpv)
	VPSRLDQ(U8(4), dpv, dpv)
	MOVQ(top, pc)
	MOVQ(ddTop, dp)
	Label("boutw_p3")
	VMULPS(Mem{Base: dp}, dpv, dcv)
	VADDPS(xE.AsX(), dcv, a)
	VMOVUPS(Mem{Base: pc, Disp: cD * vb}, dpv)
	VADDPS(a, dpv, dpv)
	VMOVUPS(dpv, Mem{Base: pc, Disp: cD * vb})
	SUBQ(U8(vb), dp)
	SUBQ(U8(row3), pc)
	CMPQ(pc, dpc)
	JAE(LabelRef("boutw_p3"))
	outTail("boutw", dpc, dd, Q, xE, dcv, top, ddTop, slot)
}

// bckRowOut45Wide is phases 4 and 5 of bckRowOutWide, for a row whose
// phase 3 ran inside phase 1 (bckRowIn3Wide), from its carry.
func bckRowOut45Wide() {
	TEXT("bckRowOut45AVX2", NOSPLIT, "func(dpc, tw, dd *[4]float32, q int, xE float32, carry *[4]float32)")
	Pragma("noescape")
	Doc("bckRowOut45AVX2 is bckRowOutAVX2's phases 4 and 5, from the carry that phase 3 left (bckRowIn3AVX2).")
	slot := ftzOn()
	dpc := Load(Param("dpc"), GP64())
	dd := Load(Param("dd"), GP64())
	Q := Load(Param("q"), GP64())
	xE := YMM()
	Load(Param("xE"), xE.AsX())
	VBROADCASTSS(xE.AsX(), xE)
	top, ddTop := outPointers(dpc, dd, Q)
	dcv := XMM()
	VMOVUPS(Mem{Base: Load(Param("carry"), GP64())}, dcv)
	outTail("bo45w", dpc, dd, Q, xE, dcv, top, ddTop, slot)
}

// outPointers returns dpc + (Q-1)*48 and dd + (Q-1)*16, where the
// downward walks of phases 3 and 4 start.
func outPointers(dpc, dd, Q reg.Register) (top, ddTop reg.GPVirtual) {
	top = GP64()
	IMUL3Q(U32(row3), Q, top)
	ADDQ(dpc, top)
	SUBQ(U8(row3), top)
	ddTop = GP64()
	MOVQ(Q, ddTop)
	SHLQ(U8(4), ddTop)
	ADDQ(dd, ddTop)
	SUBQ(U8(vb), ddTop)
	return top, ddTop
}

// outTail emits phases 4 and 5 of a Backward row and returns: dcv is
// phase 3's carry out of vector 0.
func outTail(lp string, dpc, dd, Q reg.Register, xE, dcv reg.VecVirtual, top, ddTop reg.GPVirtual, slot Mem) {
	pc, dp := GP64(), GP64()
	a := XMM()
	// Phase 4: three passes, stopping once the carry is zero.
	j := GP64()
	MOVQ(U32(3), j)
	zero := XMM()
	VXORPS(zero, zero, zero)
	Label(lp + "_pass")
	VPSRLDQ(U8(4), dcv, dcv)
	MOVQ(top, pc)
	MOVQ(ddTop, dp)
	Label(lp + "_p4")
	VMULPS(Mem{Base: dp}, dcv, dcv)
	vexitIfZero(dcv, zero, lp+"_p5")
	VMOVUPS(Mem{Base: pc, Disp: cD * vb}, a)
	VADDPS(dcv, a, a)
	VMOVUPS(a, Mem{Base: pc, Disp: cD * vb})
	SUBQ(U8(vb), dp)
	SUBQ(U8(row3), pc)
	CMPQ(pc, dpc)
	JAE(LabelRef(lp + "_p4"))
	DECQ(j)
	JNZ(LabelRef(lp + "_pass"))

	// Phase 5: M = (M + E) + D(q+1)*MD(q), pairs walking down; the low
	// half of nD holds D of the vector above the one being computed
	// (above Q-1: vector 0 shifted down a lane).
	Label(lp + "_p5")
	tw := Load(Param("tw"), GP64())
	nD := YMM()
	VMOVUPS(Mem{Base: dpc, Disp: cD * vb}, nD.AsX())
	VPSRLDQ(U8(4), nD.AsX(), nD.AsX())
	odd := GP64()
	MOVQ(Q, odd)
	ANDQ(U8(1), odd)
	pairs := GP64()
	MOVQ(Q, pairs)
	SHRQ(U8(1), pairs)
	low := GP64() // the lowest vector of the top group
	LEAQ(Mem{Base: Q, Index: odd, Scale: 1, Disp: -2}, low)
	IMUL3Q(U32(row3), low, pc)
	ADDQ(dpc, pc)
	tp := GP64()
	MOVQ(low, tp)
	SHRQ(U8(1), tp)
	IMUL3Q(U32(wpair), tp, tp)
	ADDQ(tw, tp)
	TESTQ(odd, odd)
	JZ(LabelRef(lp + "_p5test"))
	m := XMM()
	VMULPS(Mem{Base: tp, Disp: fMD * wvb}, nD.AsX(), a)
	VMOVUPS(Mem{Base: pc, Disp: cM * vb}, m)
	VADDPS(xE.AsX(), m, m)
	VADDPS(a, m, m)
	VMOVUPS(m, Mem{Base: pc, Disp: cM * vb})
	VMOVUPS(Mem{Base: pc, Disp: cD * vb}, nD.AsX())
	SUBQ(U8(2*row3), pc)
	SUBQ(U32(wpair), tp)
	Label(lp + "_p5test")
	TESTQ(pairs, pairs)
	JZ(LabelRef(lp + "_done"))
	Label(lp + "_p5pair")
	dNow := pairLoad(Mem{Base: pc, Disp: cD * vb})
	dN := YMM()
	VPERM2F128(U8(0x21), nD, dNow, dN) // low: dNow's high, high: nD's low
	VMOVAPS(dNow, nD)
	wa := YMM()
	VMULPS(Mem{Base: tp, Disp: fMD * wvb}, dN, wa)
	wm := pairLoad(Mem{Base: pc, Disp: cM * vb})
	VADDPS(xE, wm, wm)
	VADDPS(wa, wm, wm)
	pairStore(wm, Mem{Base: pc, Disp: cM * vb})
	SUBQ(U8(2*row3), pc)
	SUBQ(U32(wpair), tp)
	DECQ(pairs)
	JNZ(LabelRef(lp + "_p5pair"))

	Label(lp + "_done")
	VZEROUPPER()
	ftzOff(slot)
	RET()
}
