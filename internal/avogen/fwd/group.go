package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The grouped Forward rows score several targets with one profile: the
// paired row (AVX2) two, target j in the j-th 128-bit half of every ymm
// register; the quad row (AVX-512) four, one per 128-bit part of every
// zmm register. Each part performs exactly fwdRowSSE's four-lane
// operations in its order: the arithmetic is lane-wise, VPSLLDQ shifts
// within each part, transitions are broadcast to every part, and only
// the match odds (one residue per target) differ between parts. A row
// triple is 3 group vectors (M, D, I).
//
// After the first D->D pass, each part stops after a pass in which none
// of its D cells grew (HMMER's break; with all4 every part makes all
// three, as HMMER does for M < 100). A stopped part's carry is zeroed,
// so the passes the other parts still make add +0 to its D cells, which
// changes none of them (D cells are never -0 or NaN; see exitIfZero),
// and its carry stays zero. All carries being zero ends the passes
// early, as in fwdRowSSE. The paired row keeps "cells that grew" and
// "parts still making passes" in vector masks; the quad row in opmask
// registers (K1: parts still making passes, K2: cells that grew, K3: a
// compare's result).

// groupRow is one grouped kernel's shape.
type groupRow struct {
	name  string // Go name of the kernel
	parts int    // targets per register: 2 (ymm) or 4 (zmm)
	lp    string // label prefix
}

var (
	pairRow = groupRow{name: "fwdRowPairAVX2", parts: 2, lp: "fwdp"}
	quadRow = groupRow{name: "fwdRowQuadAVX512", parts: 4, lp: "fwdq"}
)

func (g groupRow) bytes() int { return 16 * g.parts }

func (g groupRow) vec() reg.VecVirtual {
	if g.parts == 2 {
		return YMM()
	}
	return ZMM()
}

func (g groupRow) load(m Mem) reg.VecVirtual {
	v := g.vec()
	VMOVUPS(m, v)
	return v
}

// bcast broadcasts a four-lane transition vector to every part.
func (g groupRow) bcast(m Mem) reg.VecVirtual {
	v := g.vec()
	if g.parts == 2 {
		VBROADCASTF128(m, v)
	} else {
		VBROADCASTF32X4(m, v)
	}
	return v
}

func (g groupRow) label(s string) string { return g.lp + "_" + s }

func (g groupRow) emit() {
	w := 4 * g.parts
	TEXT(g.name, NOSPLIT, fmt.Sprintf("func(dpp, dpc *[%d]float32, tf *[4]float32, rf *[%d]*[4]float32, q int, xB *[%d]float32, all4 bool, xEv *[%d]float32)", w, g.parts, w, w))
	Pragma("noescape")
	Doc(g.name + " computes a grouped Forward row dpc from row dpp (which may be the same memory): fwdRowSSE for target j in the j-th 128-bit part of each vector, its match odds at rf[j].")
	slot := ftzOn()
	gvb := g.bytes()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tf := Load(Param("tf"), GP64())
	rfp := Load(Param("rf"), GP64())
	rf := make([]reg.GPVirtual, g.parts)
	for j := range rf {
		rf[j] = GP64()
		MOVQ(Mem{Base: rfp, Disp: 8 * j}, rf[j])
	}
	Q := Load(Param("q"), GP64())
	n := GP64() // Q*3*gvb: bytes per row
	IMUL3Q(U32(3*gvb), Q, n)
	xB := g.load(Mem{Base: Load(Param("xB"), GP64())})

	last := Mem{Base: dpp, Index: n, Scale: 1, Disp: -3 * gvb}
	mpv, dpv, ipv := g.load(last.Offset(cM*gvb)), g.load(last.Offset(cD*gvb)), g.load(last.Offset(cI*gvb))
	VPSLLDQ(U8(4), mpv, mpv)
	VPSLLDQ(U8(4), dpv, dpv)
	VPSLLDQ(U8(4), ipv, ipv)
	xEv, dcv := g.vec(), g.vec()
	VXORPS(xEv, xEv, xEv)
	VXORPS(dcv, dcv, dcv)

	off := GP64() // q*3*gvb
	XORQ(off, off)
	ro := GP64() // q*16, into each target's match odds
	XORQ(ro, ro)
	tp := GP64()
	MOVQ(tf, tp)
	Label(g.label("cell"))
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * vb} }
	sv, tmp := g.vec(), g.vec()
	VMULPS(g.bcast(t(fBM)), xB, sv)
	VMULPS(g.bcast(t(fMM)), mpv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(g.bcast(t(fIM)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(g.bcast(t(fDM)), dpv, tmp)
	VADDPS(tmp, sv, sv)
	rv := g.vec()
	VMOVUPS(Mem{Base: rf[0], Index: ro, Scale: 1}, rv.AsX())
	for j := 1; j < g.parts; j++ {
		m := Mem{Base: rf[j], Index: ro, Scale: 1}
		if g.parts == 2 {
			VINSERTF128(U8(j), m, rv, rv)
		} else {
			VINSERTF32X4(U8(j), m, rv, rv)
		}
	}
	VMULPS(rv, sv, sv)
	VADDPS(sv, xEv, xEv)
	prev := Mem{Base: dpp, Index: off, Scale: 1}
	cur := Mem{Base: dpc, Index: off, Scale: 1}
	VMOVUPS(prev.Offset(cM*gvb), mpv)
	VMOVUPS(prev.Offset(cD*gvb), dpv)
	VMOVUPS(prev.Offset(cI*gvb), ipv)
	VMOVUPS(sv, cur.Offset(cM*gvb))
	VMOVUPS(dcv, cur.Offset(cD*gvb))
	VMULPS(g.bcast(t(fMD)), sv, dcv)
	VMULPS(g.bcast(t(fMI)), mpv, sv)
	VMULPS(g.bcast(t(fII)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMOVUPS(sv, cur.Offset(cI*gvb))
	ADDQ(U8(7*vb), tp)
	ADDQ(U8(vb), ro)
	ADDQ(U32(3*gvb), off)
	CMPQ(off, n)
	JB(LabelRef(g.label("cell")))
	// tp now points at the Q D->D vectors.

	dd := GP64()
	MOVQ(tp, dd)
	VPSLLDQ(U8(4), dcv, dcv)
	zero := g.vec()
	VXORPS(zero, zero, zero)
	VMOVUPS(zero, Mem{Base: dpc, Disp: cD * gvb})
	XORQ(off, off)
	Label(g.label("dd1"))
	d := Mem{Base: dpc, Index: off, Scale: 1, Disp: cD * gvb}
	VADDPS(d, dcv, tmp)
	VMOVUPS(tmp, d)
	VMULPS(g.bcast(Mem{Base: tp}), tmp, dcv)
	ADDQ(U8(vb), tp)
	ADDQ(U32(3*gvb), off)
	CMPQ(off, n)
	JB(LabelRef(g.label("dd1")))

	// Up to three more passes (see the comment above).
	all4 := Load(Param("all4"), GP8())
	passes := GP64()
	MOVQ(U32(3), passes)
	TESTB(all4, all4)
	JNZ(LabelRef(g.label("pass4")))
	step := func() {
		ADDQ(U8(vb), tp)
		ADDQ(U32(3*gvb), off)
		CMPQ(off, n)
	}
	if g.parts == 2 {
		g.passesVectorMask(dcv, tmp, zero, dAt(d), off, tp, dd, passes, step)
	} else {
		g.passesOpmask(dcv, tmp, zero, dAt(d), off, tp, dd, passes, step)
	}

	Label(g.label("pass4"))
	VPSLLDQ(U8(4), dcv, dcv)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label(g.label("dd4"))
	VADDPS(d, dcv, tmp)
	VMOVUPS(tmp, d)
	VMULPS(g.bcast(Mem{Base: tp}), dcv, dcv)
	step()
	JB(LabelRef(g.label("dd4")))
	DECQ(passes)
	JNZ(LabelRef(g.label("pass4")))

	Label(g.label("sum"))
	XORQ(off, off)
	Label(g.label("sumd"))
	VADDPS(d, xEv, xEv)
	ADDQ(U32(3*gvb), off)
	CMPQ(off, n)
	JB(LabelRef(g.label("sumd")))
	out := Load(Param("xEv"), GP64())
	VMOVUPS(xEv, Mem{Base: out})
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// passesVectorMask is the conditional D->D passes with the masks in
// vector registers (AVX2). It ends by jumping to the sum.
func (g groupRow) passesVectorMask(dcv, tmp, zero reg.VecVirtual, d dCells, off, tp, dd, passes reg.GPVirtual, step func()) {
	active := g.vec() // all-ones in the lanes of a half still making passes
	VCMPPS(U8(0), zero, zero, active)
	changed := g.vec()
	mask := GP32()
	Label(g.label("pass"))
	VPSLLDQ(U8(4), dcv, dcv)
	VANDPS(active, dcv, dcv)
	VXORPS(changed, changed, changed)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label(g.label("ddn"))
	old := d.load(g)
	VADDPS(old, dcv, tmp)
	VCMPPS(U8(1), tmp, old, old) // old < tmp: the cell grew (false on NaN)
	VORPS(old, changed, changed)
	d.store(tmp)
	VMULPS(g.bcast(Mem{Base: tp}), dcv, dcv)
	nz := g.vec()
	VCMPPS(U8(4), zero, dcv, nz) // lanes != 0 (true for NaN)
	VMOVMSKPS(nz, mask)
	TESTL(mask, mask)
	JZ(LabelRef(g.label("sum")))
	step()
	JB(LabelRef(g.label("ddn")))
	DECQ(passes)
	JZ(LabelRef(g.label("sum")))
	VANDPS(halfAny(changed), active, active)
	VMOVMSKPS(active, mask)
	TESTL(mask, mask)
	JNZ(LabelRef(g.label("pass")))
	JMP(LabelRef(g.label("sum")))
}

// passesOpmask is the conditional D->D passes with the masks in opmask
// registers (AVX-512). It ends by jumping to the sum.
func (g groupRow) passesOpmask(dcv, tmp, zero reg.VecVirtual, d dCells, off, tp, dd, passes reg.GPVirtual, step func()) {
	active, changed, cmp := reg.K1, reg.K2, reg.K3
	KXNORW(active, active, active)
	mask, parts := GP32(), GP32()
	Label(g.label("pass"))
	VPSLLDQ(U8(4), dcv, dcv)
	VMOVAPS_Z(dcv, active, dcv)
	KXORW(changed, changed, changed)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label(g.label("ddn"))
	old := d.load(g)
	VADDPS(old, dcv, tmp)
	VCMPPS(U8(1), tmp, old, cmp) // old < tmp: the cell grew (false on NaN)
	KORW(cmp, changed, changed)
	d.store(tmp)
	VMULPS(g.bcast(Mem{Base: tp}), dcv, dcv)
	VCMPPS(U8(4), zero, dcv, cmp) // lanes != 0 (true for NaN)
	KORTESTW(cmp, cmp)
	JZ(LabelRef(g.label("sum")))
	step()
	JB(LabelRef(g.label("ddn")))
	DECQ(passes)
	JZ(LabelRef(g.label("sum")))
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
	JNZ(LabelRef(g.label("pass")))
	JMP(LabelRef(g.label("sum")))
}

// dCells reads and writes the D cells of the current vector in the
// conditional passes: one group vector (dAt) or one vector per target
// (the envelope kernels, envgroup.go).
type dCells struct {
	load  func(g groupRow) reg.VecVirtual
	store func(v reg.VecVirtual)
}

// dAt is dCells of the group vector at d.
func dAt(d Mem) dCells {
	return dCells{
		load:  func(g groupRow) reg.VecVirtual { return g.load(d) },
		store: func(v reg.VecVirtual) { VMOVUPS(v, d) },
	}
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

// scaleRowGroup multiplies n group vectors by inv (one factor per part:
// 1 for a part that is not rescaled, an exact no-op on the normal or
// zero values the rows hold).
func (g groupRow) scaleRow(name string) {
	w := 4 * g.parts
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dp *[%d]float32, n int, inv *[%d]float32)", w, w))
	Pragma("noescape")
	Doc(name + " multiplies n group vectors from dp by inv, flushing to zero.")
	slot := ftzOn()
	p := Load(Param("dp"), GP64())
	n := Load(Param("n"), GP64())
	v := g.load(Mem{Base: Load(Param("inv"), GP64())})
	TESTQ(n, n)
	JZ(LabelRef(g.label("scale_done")))
	Label(g.label("scale_loop"))
	a := g.vec()
	VMULPS(Mem{Base: p}, v, a)
	VMOVUPS(a, Mem{Base: p})
	ADDQ(U8(g.bytes()), p)
	DECQ(n)
	JNZ(LabelRef(g.label("scale_loop")))
	Label(g.label("scale_done"))
	VZEROUPPER()
	ftzOff(slot)
	RET()
}
