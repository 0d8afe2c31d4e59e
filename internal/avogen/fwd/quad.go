package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The quad Forward row (AVX-512): the paired row of pair.go widened to
// four targets, target j in the j-th 128-bit part of every zmm register.
// Each part performs fwdRowSSE's four-lane operations in its order, as
// each half does in the paired row: the arithmetic is lane-wise,
// VPSLLDQ shifts within each part, transitions are broadcast to every
// part (VBROADCASTF32X4), and only the match odds differ between parts.
// What the paired row keeps in vector masks (cells that grew, parts
// still making D->D passes) lives in opmask registers here:
//   K1: lanes of the parts still making passes
//   K2: lanes whose D cell grew in this pass
//   K3: a compare's result
// A quad row triple is 3 zmm vectors (M, D, I): 192 bytes.

const qvb = 64 // bytes per quad vector

func zld(m Mem) reg.VecVirtual {
	v := ZMM()
	VMOVUPS(m, v)
	return v
}

func zbcast(m Mem) reg.VecVirtual {
	v := ZMM()
	VBROADCASTF32X4(m, v)
	return v
}

func fwdRowQuad() {
	TEXT("fwdRowQuadAVX512", NOSPLIT, "func(dpp, dpc *[16]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xB *[16]float32, all4 bool, xEv *[16]float32)")
	Pragma("noescape")
	Doc("fwdRowQuadAVX512 computes quad Forward row dpc from row dpp (which may be the same memory): fwdRowSSE for target j in the j-th 128-bit part of each vector, its match odds at rf[j].")
	slot := ftzOn()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tf := Load(Param("tf"), GP64())
	rfp := Load(Param("rf"), GP64())
	var rf [4]reg.GPVirtual
	for j := range rf {
		rf[j] = GP64()
		MOVQ(Mem{Base: rfp, Disp: 8 * j}, rf[j])
	}
	Q := Load(Param("q"), GP64())
	n := GP64() // Q*192: bytes per quad row
	IMUL3Q(U32(3*qvb), Q, n)
	xB := zld(Mem{Base: Load(Param("xB"), GP64())})

	last := Mem{Base: dpp, Index: n, Scale: 1, Disp: -3 * qvb}
	mpv, dpv, ipv := zld(last.Offset(cM*qvb)), zld(last.Offset(cD*qvb)), zld(last.Offset(cI*qvb))
	VPSLLDQ(U8(4), mpv, mpv)
	VPSLLDQ(U8(4), dpv, dpv)
	VPSLLDQ(U8(4), ipv, ipv)
	xEv, dcv := ZMM(), ZMM()
	VXORPS(xEv, xEv, xEv)
	VXORPS(dcv, dcv, dcv)

	off := GP64() // q*192
	XORQ(off, off)
	ro := GP64() // q*16, into each target's match odds
	XORQ(ro, ro)
	tp := GP64()
	MOVQ(tf, tp)
	Label("fwdq_cell")
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * vb} }
	sv, tmp := ZMM(), ZMM()
	VMULPS(zbcast(t(fBM)), xB, sv)
	VMULPS(zbcast(t(fMM)), mpv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(zbcast(t(fIM)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(zbcast(t(fDM)), dpv, tmp)
	VADDPS(tmp, sv, sv)
	rv := ZMM()
	VMOVUPS(Mem{Base: rf[0], Index: ro, Scale: 1}, rv.AsX())
	for j := 1; j < 4; j++ {
		VINSERTF32X4(U8(j), Mem{Base: rf[j], Index: ro, Scale: 1}, rv, rv)
	}
	VMULPS(rv, sv, sv)
	VADDPS(sv, xEv, xEv)
	prev := Mem{Base: dpp, Index: off, Scale: 1}
	cur := Mem{Base: dpc, Index: off, Scale: 1}
	VMOVUPS(prev.Offset(cM*qvb), mpv)
	VMOVUPS(prev.Offset(cD*qvb), dpv)
	VMOVUPS(prev.Offset(cI*qvb), ipv)
	VMOVUPS(sv, cur.Offset(cM*qvb))
	VMOVUPS(dcv, cur.Offset(cD*qvb))
	VMULPS(zbcast(t(fMD)), sv, dcv)
	VMULPS(zbcast(t(fMI)), mpv, sv)
	VMULPS(zbcast(t(fII)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMOVUPS(sv, cur.Offset(cI*qvb))
	ADDQ(U8(7*vb), tp)
	ADDQ(U8(vb), ro)
	ADDQ(U32(3*qvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdq_cell"))
	// tp now points at the Q D->D vectors.

	dd := GP64()
	MOVQ(tp, dd)
	VPSLLDQ(U8(4), dcv, dcv)
	zero := ZMM()
	VXORPS(zero, zero, zero)
	VMOVUPS(zero, Mem{Base: dpc, Disp: cD * qvb})
	XORQ(off, off)
	Label("fwdq_dd1")
	d := Mem{Base: dpc, Index: off, Scale: 1, Disp: cD * qvb}
	VADDPS(d, dcv, tmp)
	VMOVUPS(tmp, d)
	VMULPS(zbcast(Mem{Base: tp}), tmp, dcv)
	ADDQ(U8(vb), tp)
	ADDQ(U32(3*qvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdq_dd1"))

	// Up to three more passes, each part stopping as a half of the
	// paired row does (see fwdRowPair).
	all4 := Load(Param("all4"), GP8())
	passes := GP64()
	MOVQ(U32(3), passes)
	TESTB(all4, all4)
	JNZ(LabelRef("fwdq_pass4"))
	active, changed, cmp := reg.K1, reg.K2, reg.K3
	KXNORW(active, active, active)
	mask, parts := GP32(), GP32()
	Label("fwdq_pass")
	VPSLLDQ(U8(4), dcv, dcv)
	VMOVAPS_Z(dcv, active, dcv)
	KXORW(changed, changed, changed)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwdq_ddn")
	old := zld(d)
	VADDPS(old, dcv, tmp)
	VCMPPS(U8(1), tmp, old, cmp) // old < tmp: the cell grew (false on NaN)
	KORW(cmp, changed, changed)
	VMOVUPS(tmp, d)
	VMULPS(zbcast(Mem{Base: tp}), dcv, dcv)
	VCMPPS(U8(4), zero, dcv, cmp) // lanes != 0 (true for NaN)
	KORTESTW(cmp, cmp)
	JZ(LabelRef("fwdq_sum"))
	ADDQ(U8(vb), tp)
	ADDQ(U32(3*qvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdq_ddn"))
	DECQ(passes)
	JZ(LabelRef("fwdq_sum"))
	// Spread "some lane of this part grew" over the part's four lanes:
	// OR each nibble down to its low bit, then widen the bit to 0xF.
	KMOVW(changed, mask)
	MOVL(mask, parts)
	SHRL(U8(1), parts)
	ORL(parts, mask)
	MOVL(mask, parts)
	SHRL(U8(2), parts)
	ORL(parts, mask)
	ANDL(U32(0x1111), mask)
	MOVL(mask, parts)
	SHLL(U8(4), parts)
	SUBL(mask, parts) // bit*15 per nibble
	KMOVW(active, mask)
	ANDL(parts, mask)
	KMOVW(mask, active)
	TESTL(mask, mask)
	JNZ(LabelRef("fwdq_pass"))
	JMP(LabelRef("fwdq_sum"))

	Label("fwdq_pass4")
	VPSLLDQ(U8(4), dcv, dcv)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwdq_dd4")
	VADDPS(d, dcv, tmp)
	VMOVUPS(tmp, d)
	VMULPS(zbcast(Mem{Base: tp}), dcv, dcv)
	ADDQ(U8(vb), tp)
	ADDQ(U32(3*qvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdq_dd4"))
	DECQ(passes)
	JNZ(LabelRef("fwdq_pass4"))

	Label("fwdq_sum")
	XORQ(off, off)
	Label("fwdq_sumd")
	VADDPS(d, xEv, xEv)
	ADDQ(U32(3*qvb), off)
	CMPQ(off, n)
	JB(LabelRef("fwdq_sumd"))
	out := Load(Param("xEv"), GP64())
	VMOVUPS(xEv, Mem{Base: out})
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// scaleRowQuad multiplies n quad vectors by inv (one factor per part,
// 1 where the part's target is not rescaled).
func scaleRowQuad() {
	TEXT("scaleRowQuadAVX512", NOSPLIT, "func(dp *[16]float32, n int, inv *[16]float32)")
	Pragma("noescape")
	Doc("scaleRowQuadAVX512 multiplies n quad vectors from dp by inv, flushing to zero.")
	slot := ftzOn()
	p := Load(Param("dp"), GP64())
	n := Load(Param("n"), GP64())
	v := zld(Mem{Base: Load(Param("inv"), GP64())})
	TESTQ(n, n)
	JZ(LabelRef("scaleq_done"))
	Label("scaleq_loop")
	a := ZMM()
	VMULPS(Mem{Base: p}, v, a)
	VMOVUPS(a, Mem{Base: p})
	ADDQ(U8(qvb), p)
	DECQ(n)
	JNZ(LabelRef("scaleq_loop"))
	Label("scaleq_done")
	VZEROUPPER()
	ftzOff(slot)
	RET()
}
