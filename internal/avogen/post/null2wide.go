package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// null2Pairs is how many residue pairs null2SumsAVX2 sums in one call (one
// sweep over the row): ten residues, so the twenty amino acids take two.
const null2Pairs = 5

// null2Sums is null2Sum's arithmetic for every residue in one call: the
// row's M and I vectors are first scaled by norm in place (as null2Sum's
// Go loop did), then, for residues taken two at a time (one per 128-bit
// half, so each half is null2DotSSE's four-lane operations on its own
// residue), s = s + M*rf; s = s + I over the Q vectors. null2DotSSE, one
// residue per call, waits on its two-addition chain at every vector; ten
// independent chains in flight keep the units busy instead.
func null2Sums() {
	TEXT("null2SumsAVX2", NOSPLIT, "func(row *[4]float32, rfs **[4]float32, q int, norm float32, scale bool, out *[4]float32)")
	Pragma("noescape")
	Doc("null2SumsAVX2 writes to out[x] null2DotSSE's sum for each of the ten residues x whose match odds rfs[x] points at; with scale, it first multiplies row's M and I vectors by norm in place.")
	slot := ftzOn()
	row := Load(Param("row"), GP64())
	Q := Load(Param("q"), GP64())

	// Scale M and I in place (null2Sum's Go loop, vector by vector).
	p, n := GP64(), GP64()
	sc := Load(Param("scale"), GP8())
	TESTB(sc, sc)
	JZ(LabelRef("n2s_sums"))
	norm := XMM()
	Load(Param("norm"), norm)
	VBROADCASTSS(norm, norm)
	MOVQ(row, p)
	MOVQ(Q, n)
	Label("n2s_scale")
	a := XMM()
	VMULPS(Mem{Base: p, Disp: cM * vb}, norm, a)
	VMOVUPS(a, Mem{Base: p, Disp: cM * vb})
	VMULPS(Mem{Base: p, Disp: cI * vb}, norm, a)
	VMOVUPS(a, Mem{Base: p, Disp: cI * vb})
	ADDQ(U8(3*vb), p)
	DECQ(n)
	JNZ(LabelRef("n2s_scale"))

	Label("n2s_sums")
	rfs := Load(Param("rfs"), GP64())
	ptrs := make([]reg.GPVirtual, 2*null2Pairs)
	for j := range ptrs {
		ptrs[j] = GP64()
		MOVQ(Mem{Base: rfs, Disp: 8 * j}, ptrs[j])
	}
	acc := make([]reg.VecVirtual, null2Pairs)
	for j := range acc {
		acc[j] = YMM()
		VXORPS(acc[j], acc[j], acc[j])
	}
	MOVQ(row, p)
	MOVQ(Q, n)
	Label("n2s_cell")
	mv, iv := YMM(), YMM()
	VBROADCASTF128(Mem{Base: p, Disp: cM * vb}, mv)
	VBROADCASTF128(Mem{Base: p, Disp: cI * vb}, iv)
	for j := range acc {
		r := YMM()
		VMOVUPS(Mem{Base: ptrs[2*j]}, r.AsX())
		VINSERTF128(U8(1), Mem{Base: ptrs[2*j+1]}, r, r)
		VMULPS(r, mv, r) // M*rf
		VADDPS(r, acc[j], acc[j])
		VADDPS(iv, acc[j], acc[j])
	}
	for j := range ptrs {
		ADDQ(U8(vb), ptrs[j])
	}
	ADDQ(U8(3*vb), p)
	DECQ(n)
	JNZ(LabelRef("n2s_cell"))
	out := Load(Param("out"), GP64())
	for j := range acc {
		VMOVUPS(acc[j], Mem{Base: out, Disp: 2 * vb * j})
	}
	VZEROUPPER()
	ftzOff(slot)
	RET()
}
