// Command fwd generates hmmer3/fwdback's SSE row kernels for Forward and
// Backward. They perform exactly the four-lane operations of HMMER
// 3.3.2's SSE code (and of the Go kernels beside them), in the same
// order, with MXCSR's flush-to-zero and denormals-are-zero bits set for
// their duration as hmmsearch runs; so every float matches to the bit.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// Transition vectors per striped vector q (oprofile.FBM..FII), then Q D->D.
const (
	fBM = iota
	fMM
	fIM
	fDM
	fMD
	fMI
	fII
)

const vb = 16 // bytes per vector

// Cells of a vector triple.
const (
	cM = 0
	cD = 1
	cI = 2
)

func main() {
	fwdRow()
	pairRow.emit()
	pairRow.scaleRow("scaleRowPairAVX2")
	quadRow.emit()
	quadRow.scaleRow("scaleRowQuadAVX512")
	bckRowIn()
	bckRowOut()
	scaleRow()
	streamRow()
	wideMain()
	envMain()
	Generate()
}

// ftzOn sets MXCSR's FTZ and DAZ bits for a kernel, as hmmsearch runs;
// ftzOff restores it.
func ftzOn() Mem      { return vec.SetMXCSR(vec.FTZ | vec.DAZ) }
func ftzOff(slot Mem) { vec.RestoreMXCSR(slot) }

// ld puts a memory operand in a register: legacy SSE arithmetic needs
// 16-byte aligned memory operands, and Go's []Vec carries no such
// alignment.
func ld(op Op) Op {
	if IsMem(op) {
		v := XMM()
		MOVUPS(op, v)
		return v
	}
	return op
}

// mul emits dst = a*b, add dst = a+b (SSE two-operand forms; a must
// not be dst's old value unless it is dst itself).
func mul(a, b Op, dst reg.VecVirtual) {
	a, b = ld(a), ld(b)
	if a != dst {
		MOVAPS(a, dst)
	}
	MULPS(b, dst)
}

func add(a, b Op, dst reg.VecVirtual) {
	a, b = ld(a), ld(b)
	if a != dst {
		MOVAPS(a, dst)
	}
	ADDPS(b, dst)
}

// exitIfZero jumps to label when every lane of v is zero (either sign;
// NaN is not zero). A D->D carry that has reached zero adds +0 to every
// D cell it has left to visit, which changes no D cell: D values are sums
// of products of non-negative odds and probabilities, never -0 (the one
// value +0 would change) and never NaN; and a zero carry stays zero, the
// D->D probabilities being finite. So the passes may stop there.
func exitIfZero(v, zero reg.VecVirtual, label string) {
	t, r := XMM(), GP32()
	MOVAPS(v, t)
	CMPPS(zero, t, U8(4)) // t = v != 0, per lane (true for NaN)
	MOVMSKPS(t, r)
	TESTL(r, r)
	JZ(LabelRef(label))
}

func loadU(m Mem) reg.VecVirtual {
	v := XMM()
	MOVUPS(m, v)
	return v
}

// fwdRow is one Forward row (p7_ForwardParser's inner loops): M, I and
// the in-lane D carry over the Q vectors, then D->D passes (always four
// when all4, else up to three more while any cell grows), then the
// row's E sum of M and D cells into xEv.
func fwdRow() {
	TEXT("fwdRowSSE", NOSPLIT, "func(dpp, dpc *[4]float32, tf, rf *[4]float32, q int, xB float32, all4 bool, xEv *[4]float32)")
	Pragma("noescape")
	Doc("fwdRowSSE computes Forward row dpc from row dpp (which may be the same memory).")
	slot := ftzOn()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tf := Load(Param("tf"), GP64())
	rf := Load(Param("rf"), GP64())
	Q := Load(Param("q"), GP64())
	n := GP64() // Q*48: bytes per row
	IMUL3Q(U32(3*vb), Q, n)
	xB := XMM()
	Load(Param("xB"), xB)
	SHUFPS(U8(0), xB, xB)

	mpv, dpv, ipv := XMM(), XMM(), XMM()
	last := Mem{Base: dpp, Index: n, Scale: 1, Disp: -3 * vb}
	MOVUPS(last.Offset(cM*vb), mpv)
	PSLLDQ(U8(4), mpv)
	MOVUPS(last.Offset(cD*vb), dpv)
	PSLLDQ(U8(4), dpv)
	MOVUPS(last.Offset(cI*vb), ipv)
	PSLLDQ(U8(4), ipv)
	xEv, dcv := XMM(), XMM()
	XORPS(xEv, xEv)
	XORPS(dcv, dcv)

	off := GP64() // q*48
	XORQ(off, off)
	tp := GP64()
	MOVQ(tf, tp)
	rp := GP64()
	MOVQ(rf, rp)
	Label("fwd_cell")
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * vb} }
	sv, tmp := XMM(), XMM()
	mul(xB, t(fBM), sv)
	mul(mpv, t(fMM), tmp)
	ADDPS(tmp, sv)
	mul(ipv, t(fIM), tmp)
	ADDPS(tmp, sv)
	mul(dpv, t(fDM), tmp)
	ADDPS(tmp, sv)
	mul(sv, Mem{Base: rp}, sv)
	ADDPS(sv, xEv)
	prev := Mem{Base: dpp, Index: off, Scale: 1}
	cur := Mem{Base: dpc, Index: off, Scale: 1}
	MOVUPS(prev.Offset(cM*vb), mpv)
	MOVUPS(prev.Offset(cD*vb), dpv)
	MOVUPS(prev.Offset(cI*vb), ipv)
	MOVUPS(sv, cur.Offset(cM*vb))
	MOVUPS(dcv, cur.Offset(cD*vb))
	mul(sv, t(fMD), dcv)
	mul(mpv, t(fMI), sv)
	mul(ipv, t(fII), tmp)
	ADDPS(tmp, sv)
	MOVUPS(sv, cur.Offset(cI*vb))
	ADDQ(U8(7*vb), tp)
	ADDQ(U8(vb), rp)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef("fwd_cell"))
	// tp now points at the Q D->D vectors.

	dd := GP64()
	MOVQ(tp, dd)
	// First D->D pass: D(q) += carry; carry = D(q)*DD(q).
	PSLLDQ(U8(4), dcv)
	zero := XMM()
	XORPS(zero, zero)
	MOVUPS(zero, Mem{Base: dpc, Disp: cD * vb})
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwd_dd1")
	d := Mem{Base: dpc, Index: off, Scale: 1, Disp: cD * vb}
	add(dcv, d, tmp)
	MOVUPS(tmp, d)
	mul(tmp, Mem{Base: tp}, dcv)

	ADDQ(U8(vb), tp)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef("fwd_dd1"))

	// Three more passes that only extend the carry: all three when all4
	// (no test needed: M < 100, where a carry seldom reaches zero within
	// a row and the test would cost more than it saves), else stopping
	// after a pass in which no D cell grew, or as soon as the carry is zero.
	all4 := Load(Param("all4"), GP8())
	passes := GP64()
	MOVQ(U32(3), passes)
	changed := XMM()
	mask := GP32()
	TESTB(all4, all4)
	JNZ(LabelRef("fwd_pass4"))
	Label("fwd_pass")
	PSLLDQ(U8(4), dcv)
	XORPS(changed, changed)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwd_ddn")
	old := XMM()
	MOVUPS(d, old)
	add(dcv, old, tmp)
	CMPPS(tmp, old, U8(1)) // old = old < tmp, as Go's tmp > old (false on NaN)
	ORPS(old, changed)
	MOVUPS(tmp, d)
	mul(dcv, Mem{Base: tp}, dcv)
	exitIfZero(dcv, zero, "fwd_sum")
	ADDQ(U8(vb), tp)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef("fwd_ddn"))
	DECQ(passes)
	JZ(LabelRef("fwd_sum"))
	MOVMSKPS(changed, mask)
	TESTL(mask, mask)
	JNZ(LabelRef("fwd_pass"))
	JMP(LabelRef("fwd_sum"))

	Label("fwd_pass4")
	PSLLDQ(U8(4), dcv)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label("fwd_dd4")
	add(dcv, d, tmp)
	MOVUPS(tmp, d)
	mul(dcv, Mem{Base: tp}, dcv)
	ADDQ(U8(vb), tp)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef("fwd_dd4"))
	DECQ(passes)
	JNZ(LabelRef("fwd_pass4"))

	Label("fwd_sum")
	XORQ(off, off)
	Label("fwd_sumd")
	MOVUPS(d, tmp)
	ADDPS(xEv, tmp)
	MOVAPS(tmp, xEv)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef("fwd_sumd"))
	out := Load(Param("xEv"), GP64())
	MOVUPS(xEv, Mem{Base: out})
	ftzOff(slot)
	RET()
}

// bckRowIn is phase 1 of a Backward row: I(i) complete, M(i) and D(i)
// partial, from row i+1 (dpp) and the match odds of residue i+1 (rf);
// returns the B vector sum in xBv.
func bckRowIn() {
	TEXT("bckRowInSSE", NOSPLIT, "func(dpp, dpc *[4]float32, tf, rf *[4]float32, q int, xBv *[4]float32)")
	Pragma("noescape")
	Doc("bckRowInSSE is phase 1 of a Backward row (dpp and dpc may be the same memory).")
	slot := ftzOn()
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	tf := Load(Param("tf"), GP64())
	rf := Load(Param("rf"), GP64())
	Q := Load(Param("q"), GP64())

	tmmv, timv, tdmv, mpv := XMM(), XMM(), XMM(), XMM()
	MOVUPS(Mem{Base: tf, Disp: fMM * vb}, tmmv)
	PSRLDQ(U8(4), tmmv)
	MOVUPS(Mem{Base: tf, Disp: fIM * vb}, timv)
	PSRLDQ(U8(4), timv)
	MOVUPS(Mem{Base: tf, Disp: fDM * vb}, tdmv)
	PSRLDQ(U8(4), tdmv)
	MOVUPS(Mem{Base: dpp, Disp: cM * vb}, mpv)
	mul(mpv, Mem{Base: rf}, mpv)
	PSRLDQ(U8(4), mpv)
	xBv := XMM()
	XORPS(xBv, xBv)

	// Walk q = Q-1 .. 0 with pointers at vector q.
	qq := GP64()
	MOVQ(Q, qq)
	pp, pc, tp, rp := GP64(), GP64(), GP64(), GP64()
	IMUL3Q(U32(3*vb), Q, pp)
	ADDQ(dpp, pp)
	SUBQ(U8(3*vb), pp)
	IMUL3Q(U32(3*vb), Q, pc)
	ADDQ(dpc, pc)
	SUBQ(U8(3*vb), pc)
	IMUL3Q(U32(7*vb), Q, tp)
	ADDQ(tf, tp)
	SUBQ(U8(7*vb), tp)
	MOVQ(Q, rp)
	SHLQ(U8(4), rp)
	ADDQ(rf, rp)
	SUBQ(U8(vb), rp)
	Label("bin_cell")
	ipv, a, b := XMM(), XMM(), XMM()
	MOVUPS(Mem{Base: pp, Disp: cI * vb}, ipv)
	mul(ipv, Mem{Base: tp, Disp: fII * vb}, a)
	mul(mpv, timv, b)
	ADDPS(b, a)
	MOVUPS(a, Mem{Base: pc, Disp: cI * vb})
	mul(mpv, tdmv, a)
	MOVUPS(a, Mem{Base: pc, Disp: cD * vb})
	mcv := XMM()
	mul(ipv, Mem{Base: tp, Disp: fMI * vb}, mcv)
	mul(mpv, tmmv, b)
	ADDPS(b, mcv)
	MOVUPS(Mem{Base: pp, Disp: cM * vb}, mpv)
	mul(mpv, Mem{Base: rp}, mpv)
	MOVUPS(mcv, Mem{Base: pc, Disp: cM * vb})
	MOVUPS(Mem{Base: tp, Disp: fDM * vb}, tdmv)
	MOVUPS(Mem{Base: tp, Disp: fIM * vb}, timv)
	MOVUPS(Mem{Base: tp, Disp: fMM * vb}, tmmv)
	mul(mpv, Mem{Base: tp, Disp: fBM * vb}, a)
	ADDPS(a, xBv)
	SUBQ(U8(3*vb), pp)
	SUBQ(U8(3*vb), pc)
	SUBQ(U8(7*vb), tp)
	SUBQ(U8(vb), rp)
	DECQ(qq)
	JNZ(LabelRef("bin_cell"))
	out := Load(Param("xBv"), GP64())
	MOVUPS(xBv, Mem{Base: out})
	ftzOff(slot)
	RET()
}

// bckRowOut is phases 3 to 5 of a Backward row: the M->E and D->E
// paths with one D->D step, three more D->D passes, then M->D.
func bckRowOut() {
	TEXT("bckRowOutSSE", NOSPLIT, "func(dpc *[4]float32, tf *[4]float32, q int, xE float32)")
	Pragma("noescape")
	Doc("bckRowOutSSE is phases 3 to 5 of a Backward row.")
	slot := ftzOn()
	dpc := Load(Param("dpc"), GP64())
	tf := Load(Param("tf"), GP64())
	Q := Load(Param("q"), GP64())
	xEv := XMM()
	Load(Param("xE"), xEv)
	SHUFPS(U8(0), xEv, xEv)

	top := GP64() // dpc + (Q-1)*48
	IMUL3Q(U32(3*vb), Q, top)
	ADDQ(dpc, top)
	SUBQ(U8(3*vb), top)
	ddTop := GP64() // tf + 7Q*16 + (Q-1)*16
	IMUL3Q(U32(8*vb), Q, ddTop)
	ADDQ(tf, ddTop)
	SUBQ(U8(vb), ddTop)

	pc, dp := GP64(), GP64()
	dpv, dcv, a := XMM(), XMM(), XMM()
	// Phase 3.
	MOVUPS(Mem{Base: dpc, Disp: cD * vb}, dpv)
	ADDPS(xEv, dpv)
	PSRLDQ(U8(4), dpv)
	MOVQ(top, pc)
	MOVQ(ddTop, dp)
	Label("bout_p3")
	mul(dpv, Mem{Base: dp}, dcv)
	add(dcv, xEv, a)
	MOVUPS(Mem{Base: pc, Disp: cD * vb}, dpv)
	ADDPS(a, dpv)
	MOVUPS(dpv, Mem{Base: pc, Disp: cD * vb})
	MOVUPS(Mem{Base: pc, Disp: cM * vb}, a)
	ADDPS(xEv, a)
	MOVUPS(a, Mem{Base: pc, Disp: cM * vb})
	SUBQ(U8(vb), dp)
	SUBQ(U8(3*vb), pc)
	CMPQ(pc, dpc)
	JAE(LabelRef("bout_p3"))

	// Phase 4: three passes, stopping once the carry is zero.
	j := GP64()
	MOVQ(U32(3), j)
	zero := XMM()
	XORPS(zero, zero)
	Label("bout_pass")
	PSRLDQ(U8(4), dcv)
	MOVQ(top, pc)
	MOVQ(ddTop, dp)
	Label("bout_p4")
	mul(dcv, Mem{Base: dp}, dcv)
	exitIfZero(dcv, zero, "bout_p5init")
	MOVUPS(Mem{Base: pc, Disp: cD * vb}, a)
	ADDPS(dcv, a)
	MOVUPS(a, Mem{Base: pc, Disp: cD * vb})
	SUBQ(U8(vb), dp)
	SUBQ(U8(3*vb), pc)
	CMPQ(pc, dpc)
	JAE(LabelRef("bout_p4"))
	DECQ(j)
	JNZ(LabelRef("bout_pass"))

	// Phase 5: M->D.
	Label("bout_p5init")
	MOVUPS(Mem{Base: dpc, Disp: cD * vb}, dcv)
	PSRLDQ(U8(4), dcv)
	MOVQ(top, pc)
	tp := GP64() // tf + (Q-1)*112 + FMD*16
	IMUL3Q(U32(7*vb), Q, tp)
	ADDQ(tf, tp)
	SUBQ(U8(7*vb), tp)
	Label("bout_p5")
	mul(dcv, Mem{Base: tp, Disp: fMD * vb}, a)
	MOVUPS(Mem{Base: pc, Disp: cM * vb}, dpv)
	ADDPS(a, dpv)
	MOVUPS(dpv, Mem{Base: pc, Disp: cM * vb})
	MOVUPS(Mem{Base: pc, Disp: cD * vb}, dcv)
	SUBQ(U8(7*vb), tp)
	SUBQ(U8(3*vb), pc)
	CMPQ(pc, dpc)
	JAE(LabelRef("bout_p5"))
	ftzOff(slot)
	RET()
}

// scaleRow multiplies n vectors by inv.
func scaleRow() {
	TEXT("scaleRowSSE", NOSPLIT, "func(dp *[4]float32, n int, inv float32)")
	Pragma("noescape")
	Doc("scaleRowSSE multiplies n vectors from dp by inv, flushing to zero.")
	slot := ftzOn()
	p := Load(Param("dp"), GP64())
	n := Load(Param("n"), GP64())
	v := XMM()
	Load(Param("inv"), v)
	SHUFPS(U8(0), v, v)
	TESTQ(n, n)
	JZ(LabelRef("scale_done"))
	Label("scale_loop")
	a := XMM()
	MOVUPS(Mem{Base: p}, a)
	MULPS(v, a)
	MOVUPS(a, Mem{Base: p})
	ADDQ(U8(vb), p)
	DECQ(n)
	JNZ(LabelRef("scale_loop"))
	Label("scale_done")
	ftzOff(slot)
	RET()
}

// streamRow emits streamRowSSE, which copies a finished row into a full
// matrix with non-temporal stores, and storeFence. A full matrix is
// written once and read back only after a whole pass over the target;
// on a long model it does not fit the caches, and ordinary stores read
// every line before overwriting it (docs/BENCHMARKS.md).
func streamRow() {
	TEXT("streamRowSSE", NOSPLIT, "func(dst, src *[4]float32, n int)")
	Pragma("noescape")
	Doc("streamRowSSE copies n vectors from src to dst, which must be 16-byte aligned, with non-temporal stores; storeFence orders them before later stores.")
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	// Four vectors (a cache line) an iteration, then the rest.
	rest := GP64()
	MOVQ(n, rest)
	ANDQ(U8(3), rest)
	SHRQ(U8(2), n)
	JZ(LabelRef("stream_tail"))
	Label("stream_lines")
	v := []reg.VecVirtual{XMM(), XMM(), XMM(), XMM()}
	for j, x := range v {
		MOVUPS(Mem{Base: src, Disp: j * vb}, x)
	}
	for j, x := range v {
		MOVNTPS(x, Mem{Base: dst, Disp: j * vb})
	}
	ADDQ(U8(4*vb), src)
	ADDQ(U8(4*vb), dst)
	DECQ(n)
	JNZ(LabelRef("stream_lines"))
	Label("stream_tail")
	TESTQ(rest, rest)
	JZ(LabelRef("stream_done"))
	Label("stream_vec")
	t := XMM()
	MOVUPS(Mem{Base: src}, t)
	MOVNTPS(t, Mem{Base: dst})
	ADDQ(U8(vb), src)
	ADDQ(U8(vb), dst)
	DECQ(rest)
	JNZ(LabelRef("stream_vec"))
	Label("stream_done")
	RET()

	TEXT("storeFence", NOSPLIT, "func()")
	Doc("storeFence is SFENCE: the non-temporal stores before it are globally visible before any store after it.")
	SFENCE()
	RET()
}
