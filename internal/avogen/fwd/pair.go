package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The paired Forward row: two targets scored with one profile, target A
// in the low 128-bit half of every ymm register and target B in the
// high half. Each half performs exactly fwdRowSSE's four-lane operations
// in its order: the arithmetic is lane-wise, VPSLLDQ shifts within each
// half, transitions are broadcast to both halves (VBROADCASTF128), and
// only the match odds (one residue per target) differ between halves.
// A paired row triple is 3 ymm vectors (M, D, I): 96 bytes.

const pvb = 32 // bytes per paired vector

// vld loads a paired vector.
func vld(m Mem) reg.VecVirtual {
	v := YMM()
	VMOVUPS(m, v)
	return v
}

// bcast broadcasts a four-lane transition vector to both halves.
func bcast(m Mem) reg.VecVirtual {
	v := YMM()
	VBROADCASTF128(m, v)
	return v
}

// halfAny spreads "some lane of this half is set" over every lane of
// each half (v holds all-ones or zero lanes, as compares give).
func halfAny(v reg.VecVirtual) reg.VecVirtual {
	t, u := YMM(), YMM()
	VPERMILPS(U8(0xB1), v, t) // swap lanes 0<->1, 2<->3 in each half
	VORPS(v, t, t)
	VPERMILPS(U8(0x4E), t, u) // swap the lane pairs in each half
	VORPS(t, u, u)
	return u
}

func fwdRowPair() {
	TEXT("fwdRowPairAVX2", NOSPLIT, "func(dpp, dpc *[8]float32, tf, rfa, rfb *[4]float32, q int, xB *[8]float32, all4 bool, xEv *[8]float32)")
	Pragma("noescape")
	Doc("fwdRowPairAVX2 computes paired Forward row dpc from row dpp (which may be the same memory): fwdRowSSE for target A in each low half, for B in each high half.")
	slot := ftzOn()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tf := Load(Param("tf"), GP64())
	rfa := Load(Param("rfa"), GP64())
	rfb := Load(Param("rfb"), GP64())
	Q := Load(Param("q"), GP64())
	n := GP64() // Q*96: bytes per paired row
	IMUL3Q(U32(3*pvb), Q, n)
	xB := vld(Mem{Base: Load(Param("xB"), GP64())})

	last := Mem{Base: dpp, Index: n, Scale: 1, Disp: -3 * pvb}
	mpv, dpv, ipv := vld(last.Offset(cM*pvb)), vld(last.Offset(cD*pvb)), vld(last.Offset(cI*pvb))
	VPSLLDQ(U8(4), mpv, mpv)
	VPSLLDQ(U8(4), dpv, dpv)
	VPSLLDQ(U8(4), ipv, ipv)
	xEv, dcv := YMM(), YMM()
	VXORPS(xEv, xEv, xEv)
	VXORPS(dcv, dcv, dcv)

	off := GP64() // q*96
	XORQ(off, off)
	tp := GP64()
	MOVQ(tf, tp)
	Label("fwdp_cell")
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * vb} }
	sv, tmp := YMM(), YMM()
	VMULPS(bcast(t(fBM)), xB, sv)
	VMULPS(bcast(t(fMM)), mpv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(bcast(t(fIM)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(bcast(t(fDM)), dpv, tmp)
	VADDPS(tmp, sv, sv)
	// This residue's match odds: A's vector q low, B's high.
	rv := YMM()
	VMOVUPS(Mem{Base: rfa}, rv.AsX())
	VINSERTF128(U8(1), Mem{Base: rfb}, rv, rv)
	VMULPS(rv, sv, sv)
	VADDPS(sv, xEv, xEv)
	prev := Mem{Base: dpp, Index: off, Scale: 1}
	cur := Mem{Base: dpc, Index: off, Scale: 1}
	VMOVUPS(prev.Offset(cM*pvb), mpv)
	VMOVUPS(prev.Offset(cD*pvb), dpv)
	VMOVUPS(prev.Offset(cI*pvb), ipv)
	VMOVUPS(sv, cur.Offset(cM*pvb))
	VMOVUPS(dcv, cur.Offset(cD*pvb))
	VMULPS(bcast(t(fMD)), sv, dcv)
	VMULPS(bcast(t(fMI)), mpv, sv)
	VMULPS(bcast(t(fII)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMOVUPS(sv, cur.Offset(cI*pvb))
	ADDQ(U8(7*vb), tp)
	ADDQ(U8(vb), rfa)
	ADDQ(U8(vb), rfb)
	ADDQ(U8(3*pvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdp_cell"))
	// tp now points at the Q D->D vectors.

	dd := GP64()
	MOVQ(tp, dd)
	VPSLLDQ(U8(4), dcv, dcv)
	zero := YMM()
	VXORPS(zero, zero, zero)
	VMOVUPS(zero, Mem{Base: dpc, Disp: cD * pvb})
	XORQ(off, off)
	Label("fwdp_dd1")
	d := Mem{Base: dpc, Index: off, Scale: 1, Disp: cD * pvb}
	VADDPS(d, dcv, tmp)
	VMOVUPS(tmp, d)
	VMULPS(bcast(Mem{Base: tp}), tmp, dcv)
	ADDQ(U8(vb), tp)
	ADDQ(U8(3*pvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdp_dd1"))

	// Up to three more passes. With all4 both halves make all three, as
	// HMMER does for M < 100. Otherwise each half stops after a pass in
	// which none of its D cells grew (HMMER's break); a stopped half's
	// carry is zeroed, so the passes the other half still makes add +0
	// to its D cells, which changes none of them (D cells are never -0
	// or NaN; see exitIfZero), and its carry stays zero. Both halves'
	// carries being zero ends the passes early, as in fwdRowSSE.
	all4 := Load(Param("all4"), GP8())
	passes := GP64()
	MOVQ(U32(3), passes)
	TESTB(all4, all4)
	JNZ(LabelRef("fwdp_pass4"))
	active := YMM() // all-ones in the lanes of a half still making passes
	VCMPPS(U8(0), zero, zero, active)
	changed := YMM()
	mask := GP32()
	Label("fwdp_pass")
	VPSLLDQ(U8(4), dcv, dcv)
	VANDPS(active, dcv, dcv)
	VXORPS(changed, changed, changed)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwdp_ddn")
	old := vld(d)
	VADDPS(old, dcv, tmp)
	VCMPPS(U8(1), tmp, old, old) // old < tmp: the cell grew (false on NaN)
	VORPS(old, changed, changed)
	VMOVUPS(tmp, d)
	VMULPS(bcast(Mem{Base: tp}), dcv, dcv)
	nz := YMM()
	VCMPPS(U8(4), zero, dcv, nz) // lanes != 0 (true for NaN)
	VMOVMSKPS(nz, mask)
	TESTL(mask, mask)
	JZ(LabelRef("fwdp_sum"))
	ADDQ(U8(vb), tp)
	ADDQ(U8(3*pvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdp_ddn"))
	DECQ(passes)
	JZ(LabelRef("fwdp_sum"))
	VANDPS(halfAny(changed), active, active)
	VMOVMSKPS(active, mask)
	TESTL(mask, mask)
	JNZ(LabelRef("fwdp_pass"))
	JMP(LabelRef("fwdp_sum"))

	Label("fwdp_pass4")
	VPSLLDQ(U8(4), dcv, dcv)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwdp_dd4")
	VADDPS(d, dcv, tmp)
	VMOVUPS(tmp, d)
	VMULPS(bcast(Mem{Base: tp}), dcv, dcv)
	ADDQ(U8(vb), tp)
	ADDQ(U8(3*pvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdp_dd4"))
	DECQ(passes)
	JNZ(LabelRef("fwdp_pass4"))

	Label("fwdp_sum")
	XORQ(off, off)
	Label("fwdp_sumd")
	VADDPS(d, xEv, xEv)
	ADDQ(U8(3*pvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdp_sumd"))
	out := Load(Param("xEv"), GP64())
	VMOVUPS(xEv, Mem{Base: out})
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// scaleRowPair multiplies n paired vectors by inv (one factor per half:
// 1 for a half that is not rescaled, an exact no-op on the normal or
// zero values the rows hold).
func scaleRowPair() {
	TEXT("scaleRowPairAVX2", NOSPLIT, "func(dp *[8]float32, n int, inv *[8]float32)")
	Pragma("noescape")
	Doc("scaleRowPairAVX2 multiplies n paired vectors from dp by inv, flushing to zero.")
	slot := ftzOn()
	p := Load(Param("dp"), GP64())
	n := Load(Param("n"), GP64())
	v := vld(Mem{Base: Load(Param("inv"), GP64())})
	TESTQ(n, n)
	JZ(LabelRef("scalep_done"))
	Label("scalep_loop")
	a := YMM()
	VMULPS(Mem{Base: p}, v, a)
	VMOVUPS(a, Mem{Base: p})
	ADDQ(U8(pvb), p)
	DECQ(n)
	JNZ(LabelRef("scalep_loop"))
	Label("scalep_done")
	VZEROUPPER()
	ftzOff(slot)
	RET()
}
