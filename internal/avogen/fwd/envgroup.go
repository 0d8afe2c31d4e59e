package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The envelope kernels are the grouped rows of domain definition's
// rescoring, which keeps every target's full matrix: Forward, and
// Backward's phase 1 and phases 3-5, for two targets per ymm (AVX2) or
// four per zmm (AVX-512), one per 128-bit part, each part performing
// exactly the SSE kernel's four-lane operations (fwdRowSSE, bckRowInSSE,
// bckRowOutSSE) in their order. Unlike the filter's grouped rows, the
// cells stay in each target's own matrix ("split" rows): a part is
// loaded from its target's row (VMOVUPS, then VINSERT*128 for the
// others) and stored back there (VEXTRACT*128 to memory), so decoding
// needs no de-interleaving. dc[j] points at target j's row i; the
// neighbour row (i-1 for Forward, i+1 for Backward) lies n = Q*48 bytes
// before or after it in the same matrix, so one offset register serves
// every target.
//
// A part whose target has no row left points at a zero scratch row pair
// with zero xB or xE: everything it computes is zero and stays so, and a
// zero carry neither prolongs nor stops the passes of the other parts.

var (
	envPair = groupRow{name: "PairAVX2", parts: 2, lp: "envp"}
	envQuad = groupRow{name: "QuadAVX512", parts: 4, lp: "envq"}
)

func envMain() {
	for _, g := range []groupRow{envPair, envQuad} {
		g.envForward()
		g.envBckIn(false, false)
		g.envBckOut(false)
		g.envBckIn(true, false)
		g.envBckOut(true)
		g.envBckIn(false, true)
	}
}

// ptrs loads the parts' pointers from the array param.
func (g groupRow) ptrs(param string) []reg.GPVirtual {
	arr := Load(Param(param), GP64())
	ps := make([]reg.GPVirtual, g.parts)
	for j := range ps {
		ps[j] = GP64()
		MOVQ(Mem{Base: arr, Disp: 8 * j}, ps[j])
	}
	return ps
}

// at is the address disp bytes past p, plus idx unless it is nil.
func at(p reg.GPVirtual, idx reg.Register, disp int) Mem {
	m := Mem{Base: p, Disp: disp}
	if idx != nil {
		m.Index, m.Scale = idx, 1
	}
	return m
}

// gather loads the vector at each part's pointer (plus idx and disp)
// into that part of a group vector.
func (g groupRow) gather(ps []reg.GPVirtual, idx reg.Register, disp int) reg.VecVirtual {
	return g.gatherInto(g.vec(), ps, idx, disp)
}

// gatherInto is gather into v.
func (g groupRow) gatherInto(v reg.VecVirtual, ps []reg.GPVirtual, idx reg.Register, disp int) reg.VecVirtual {
	VMOVUPS(at(ps[0], idx, disp), v.AsX())
	for j := 1; j < g.parts; j++ {
		if g.parts == 2 {
			VINSERTF128(U8(j), at(ps[j], idx, disp), v, v)
		} else {
			VINSERTF32X4(U8(j), at(ps[j], idx, disp), v, v)
		}
	}
	return v
}

// bcastInto broadcasts a four-lane transition vector to every part of v.
func (g groupRow) bcastInto(v reg.VecVirtual, m Mem) {
	if g.parts == 2 {
		VBROADCASTF128(m, v)
	} else {
		VBROADCASTF32X4(m, v)
	}
}

// scatter stores each part of v at its part's pointer (plus idx, disp).
func (g groupRow) scatter(v reg.VecVirtual, ps []reg.GPVirtual, idx reg.Register, disp int) {
	VMOVUPS(v.AsX(), at(ps[0], idx, disp))
	for j := 1; j < g.parts; j++ {
		if g.parts == 2 {
			VEXTRACTF128(U8(j), v, at(ps[j], idx, disp))
		} else {
			VEXTRACTF32X4(U8(j), v, at(ps[j], idx, disp))
		}
	}
}

// envForward is fwdRowSSE on each part's target, full matrices: dc[j]
// is target j's row i, written from its row i-1.
func (g groupRow) envForward() {
	name := "fwdEnv" + g.name
	w := 4 * g.parts
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dc *[%d]*[4]float32, tf *[4]float32, rf *[%d]*[4]float32, q int, xB *[%d]float32, all4 bool, xEv *[%d]float32)", g.parts, g.parts, w, w))
	Pragma("noescape")
	Doc(name + " computes Forward row i of each part's target into its full matrix (dc[j] at row i, row i-1 just before): fwdRowSSE per 128-bit part, its match odds at rf[j].")
	lp := g.lp + "f"
	label := func(s string) string { return lp + "_" + s }
	slot := ftzOn()
	dc := g.ptrs("dc")
	tf := Load(Param("tf"), GP64())
	rf := g.ptrs("rf")
	Q := Load(Param("q"), GP64())
	n := GP64() // Q*48: bytes per row
	IMUL3Q(U32(3*vb), Q, n)
	xB := g.load(Mem{Base: Load(Param("xB"), GP64())})

	// Row i-1's last triple ends where row i begins.
	mpv, dpv, ipv := g.gather(dc, nil, -3*vb+cM*vb), g.gather(dc, nil, -3*vb+cD*vb), g.gather(dc, nil, -3*vb+cI*vb)
	VPSLLDQ(U8(4), mpv, mpv)
	VPSLLDQ(U8(4), dpv, dpv)
	VPSLLDQ(U8(4), ipv, ipv)
	xEv, dcv := g.vec(), g.vec()
	VXORPS(xEv, xEv, xEv)
	VXORPS(dcv, dcv, dcv)

	// The first D->D pass runs inside the M/I sweep, as in the wide row
	// (wide.go): its carry enters vector 0 as M(Q-1)*MD(Q-1) shifted by a
	// lane, so M(Q-1) comes first (the sweep's operations on the same
	// operands: row i-1's vector Q-2, as Q >= 2), and then each D(q) is
	// the carry plus its M->D part, the carry D(q)*DD(q): the pass's
	// operations in its order, while the sweep goes on.
	tp := GP64()
	IMUL3Q(U32(7*vb), Q, tp)
	ADDQ(tf, tp)
	ro := GP64() // q*16, into each target's match odds and the D->D vectors
	MOVQ(Q, ro)
	SHLQ(U8(4), ro)
	ddb := GP64() // the D->D vectors
	MOVQ(tp, ddb)
	SUBQ(U8(7*vb), tp)
	SUBQ(U8(vb), ro)
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * vb} }
	sv, tmp := g.vec(), g.vec()
	{
		m, d, i := g.gather(dc, nil, -6*vb+cM*vb), g.gather(dc, nil, -6*vb+cD*vb), g.gather(dc, nil, -6*vb+cI*vb)
		VMULPS(g.bcast(t(fBM)), xB, sv)
		VMULPS(g.bcast(t(fMM)), m, tmp)
		VADDPS(tmp, sv, sv)
		VMULPS(g.bcast(t(fIM)), i, tmp)
		VADDPS(tmp, sv, sv)
		VMULPS(g.bcast(t(fDM)), d, tmp)
		VADDPS(tmp, sv, sv)
		VMULPS(g.gather(rf, ro, 0), sv, sv)
	}
	chain := g.vec()
	VMULPS(g.bcast(t(fMD)), sv, chain)
	VPSLLDQ(U8(4), chain, chain)

	off := GP64() // q*48 into row i
	XORQ(off, off)
	offp := GP64() // q*48 - n: into row i-1
	MOVQ(n, offp)
	NEGQ(offp)
	XORQ(ro, ro)
	MOVQ(tf, tp)
	Label(label("cell"))
	VMULPS(g.bcast(t(fBM)), xB, sv)
	VMULPS(g.bcast(t(fMM)), mpv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(g.bcast(t(fIM)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	VMULPS(g.bcast(t(fDM)), dpv, tmp)
	VADDPS(tmp, sv, sv)
	rv := g.gather(rf, ro, 0)
	VMULPS(rv, sv, sv)
	VADDPS(sv, xEv, xEv)
	g.gatherInto(mpv, dc, offp, cM*vb)
	g.gatherInto(dpv, dc, offp, cD*vb)
	g.gatherInto(ipv, dc, offp, cI*vb)
	g.scatter(sv, dc, off, cM*vb)
	dq := g.vec()
	VADDPS(dcv, chain, dq) // D(q) = carry + M(q-1)*MD(q-1) (0 at q = 0)
	g.scatter(dq, dc, off, cD*vb)
	VMULPS(g.bcast(Mem{Base: ddb, Index: ro, Scale: 1}), dq, chain)
	VMULPS(g.bcast(t(fMD)), sv, dcv)
	VMULPS(g.bcast(t(fMI)), mpv, sv)
	VMULPS(g.bcast(t(fII)), ipv, tmp)
	VADDPS(tmp, sv, sv)
	g.scatter(sv, dc, off, cI*vb)
	ADDQ(U8(7*vb), tp)
	ADDQ(U8(vb), ro)
	ADDQ(U8(3*vb), offp)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef(label("cell")))
	// tp now points at the Q D->D vectors; chain is the first pass's
	// carry out of vector Q-1.

	dd := GP64()
	MOVQ(tp, dd)
	VMOVAPS(chain, dcv)
	zero := g.vec()
	VXORPS(zero, zero, zero)

	all4 := Load(Param("all4"), GP8())
	passes := GP64()
	MOVQ(U32(3), passes)
	TESTB(all4, all4)
	JNZ(LabelRef(label("pass4")))
	step := func() {
		ADDQ(U8(vb), tp)
		ADDQ(U8(3*vb), off)
		CMPQ(off, n)
	}
	d := dCells{
		load:  func(g groupRow) reg.VecVirtual { return g.gather(dc, off, cD*vb) },
		store: func(v reg.VecVirtual) { g.scatter(v, dc, off, cD*vb) },
	}
	gl := g
	gl.lp = lp
	if g.parts == 2 {
		gl.passesVectorMask(dcv, tmp, zero, d, off, tp, dd, passes, step)
	} else {
		gl.passesOpmask(dcv, tmp, zero, d, off, tp, dd, passes, step)
	}

	Label(label("pass4"))
	VPSLLDQ(U8(4), dcv, dcv)
	XORQ(off, off)
	MOVQ(dd, tp)
	Label(label("dd4"))
	d4 := g.gather(dc, off, cD*vb)
	VADDPS(d4, dcv, tmp)
	g.scatter(tmp, dc, off, cD*vb)
	VMULPS(g.bcast(Mem{Base: tp}), dcv, dcv)
	step()
	JB(LabelRef(label("dd4")))
	DECQ(passes)
	JNZ(LabelRef(label("pass4")))

	Label(label("sum"))
	XORQ(off, off)
	Label(label("sumd"))
	ds := g.gather(dc, off, cD*vb)
	VADDPS(ds, xEv, xEv)
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef(label("sumd")))
	out := Load(Param("xEv"), GP64())
	VMOVUPS(xEv, Mem{Base: out})
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// envBckIn is bckRowInSSE on each part's target, full matrices: dc[j]
// is target j's row i, written from its row i+1 (just after it) and the
// match odds rf[j] of its residue i+1; xBv gets each part's B sum.
//
// With in3 (bckEnvIn3), phase 3 of bckRowOutSSE runs in the same sweep,
// for E values xE known before phase 1 (rescoring's unihit mode, where E
// does not depend on B; Go checks each guess and redoes a wrong one's
// row alone), as in the wide row (wide.go's bckRowIn3Wide): phase 3's
// chain D(q) = D1(q) + (D(q+1)*DD(q) + E) then overlaps phase 1's work.
// It starts from D1(0), which depends only on row i+1 and is computed
// first with phase 1's operations at q = 0 (on vector 1, as Q >= 2).
// The chain's last carry goes to carry, for bckEnvOut45.
//
// With inPlace (bckParIn), each target's matrix is a parser's, whose one
// row holds row i+1 and is overwritten with row i, as bckRowInSSE runs
// there: every cell of row i+1 is read before its place is written (the
// loop reads I and M of row i+1 at q before storing row i's at q; it
// never reads D of row i+1). Phases 3 to 5 (bckEnvOut) read and write
// row i alone, so they serve parsers as they are.
func (g groupRow) envBckIn(in3, inPlace bool) {
	name, lp := "bckEnvIn"+g.name, g.lp+"bi"
	w := 4 * g.parts
	sig := fmt.Sprintf("func(dc *[%d]*[4]float32, tf *[4]float32, rf *[%d]*[4]float32, q int, xBv *[%d]float32)", g.parts, g.parts, w)
	doc := name + " is phase 1 of Backward row i of each part's target in its full matrix (dc[j] at row i, row i+1 just after): bckRowInSSE per 128-bit part, its match odds at rf[j]."
	if inPlace {
		name, lp = "bckParIn"+g.name, g.lp+"bp"
		doc = name + " is bckEnvIn" + g.name + " on parser matrices: dc[j] is target j's one row, row i+1 read and row i written in its place."
	}
	if in3 {
		name, lp = "bckEnvIn3"+g.name, g.lp+"bi3"
		sig = fmt.Sprintf("func(dc *[%d]*[4]float32, tf *[4]float32, rf *[%d]*[4]float32, q int, xE *[%d]float32, xBv *[%d]float32, carry *[%d]float32)", g.parts, g.parts, w, w, w)
		doc = name + " is bckEnvIn" + g.name + " with phase 3 of the row in the same sweep, for each part's E value (splatted) in xE; phase 3's last carry goes to carry (bckEnvOut45" + g.name + ")."
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc)
	label := func(s string) string { return lp + "_" + s }
	slot := ftzOn()
	dc := g.ptrs("dc")
	tf := Load(Param("tf"), GP64())
	rf := g.ptrs("rf")
	Q := Load(Param("q"), GP64())
	n := GP64() // row i+1 from row i
	if inPlace {
		XORQ(n, n)
	} else {
		IMUL3Q(U32(3*vb), Q, n)
	}

	tmmv, timv, tdmv := g.bcast(Mem{Base: tf, Disp: fMM * vb}), g.bcast(Mem{Base: tf, Disp: fIM * vb}), g.bcast(Mem{Base: tf, Disp: fDM * vb})
	VPSRLDQ(U8(4), tmmv, tmmv)
	VPSRLDQ(U8(4), timv, timv)
	VPSRLDQ(U8(4), tdmv, tdmv)
	mpv := g.gather(dc, n, cM*vb)
	r0 := g.gather(rf, nil, 0)
	VMULPS(r0, mpv, mpv)
	VPSRLDQ(U8(4), mpv, mpv)
	xBv := g.vec()
	VXORPS(xBv, xBv, xBv)

	var xEv, dpv, dcv reg.VecVirtual
	var ddb reg.GPVirtual
	if in3 {
		xEv = g.load(Mem{Base: Load(Param("xE"), GP64())})
		m1 := g.gather(dc, n, 3*vb+cM*vb)
		VMULPS(g.gather(rf, nil, vb), m1, m1)
		d10 := g.vec()
		VMULPS(g.bcast(Mem{Base: tf, Disp: 7*vb + fDM*vb}), m1, d10)
		dpv, dcv = g.vec(), g.vec()
		VADDPS(xEv, d10, dpv)
		VPSRLDQ(U8(4), dpv, dpv)
		ddb = GP64() // the D->D vectors
		IMUL3Q(U32(7*vb), Q, ddb)
		ADDQ(tf, ddb)
	}

	// Walk q = Q-1 .. 0.
	off := GP64() // q*48 into row i
	IMUL3Q(U32(3*vb), Q, off)
	SUBQ(U8(3*vb), off)
	offn := GP64() // q*48 + n: into row i+1
	LEAQ(Mem{Base: off, Index: n, Scale: 1}, offn)
	tp := GP64() // tf + q*112
	IMUL3Q(U32(7*vb), Q, tp)
	ADDQ(tf, tp)
	SUBQ(U8(7*vb), tp)
	ro := GP64() // q*16
	MOVQ(Q, ro)
	SHLQ(U8(4), ro)
	SUBQ(U8(vb), ro)
	Label(label("cell"))
	t := func(i int) Mem { return Mem{Base: tp, Disp: i * vb} }
	ipv, a, b := g.gather(dc, offn, cI*vb), g.vec(), g.vec()
	VMULPS(g.bcast(t(fII)), ipv, a)
	VMULPS(timv, mpv, b)
	VADDPS(b, a, a)
	g.scatter(a, dc, off, cI*vb)
	VMULPS(tdmv, mpv, a)
	if in3 {
		// Phase 3 at q: D(q) = D1(q) + (carry*DD(q) + E).
		VMULPS(g.bcast(Mem{Base: ddb, Index: ro, Scale: 1}), dpv, dcv)
		VADDPS(xEv, dcv, b)
		VADDPS(b, a, dpv)
		g.scatter(dpv, dc, off, cD*vb)
	} else {
		g.scatter(a, dc, off, cD*vb)
	}
	mcv := g.vec()
	VMULPS(g.bcast(t(fMI)), ipv, mcv)
	VMULPS(tmmv, mpv, b)
	VADDPS(b, mcv, mcv)
	mp := g.gather(dc, offn, cM*vb)
	rv := g.gather(rf, ro, 0)
	VMULPS(rv, mp, mpv)
	if in3 {
		VADDPS(xEv, mcv, mcv) // phase 3's M(q) += E
	}
	g.scatter(mcv, dc, off, cM*vb)
	g.bcastInto(tdmv, t(fDM))
	g.bcastInto(timv, t(fIM))
	g.bcastInto(tmmv, t(fMM))
	VMULPS(g.bcast(t(fBM)), mpv, a)
	VADDPS(a, xBv, xBv)
	SUBQ(U8(7*vb), tp)
	SUBQ(U8(vb), ro)
	SUBQ(U8(3*vb), offn)
	SUBQ(U8(3*vb), off)
	JGE(LabelRef(label("cell")))
	out := Load(Param("xBv"), GP64())
	VMOVUPS(xBv, Mem{Base: out})
	if in3 {
		VMOVUPS(dcv, Mem{Base: Load(Param("carry"), GP64())})
	}
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// envBckOut is bckRowOutSSE on each part's target, its E value splatted
// over the part in xE: phase 3, three D->D passes stopping once every
// part's carry is zero, phase 5. With from4 (bckEnvOut45) it is phases
// 4 and 5 only, from the carry phase 3 left (bckEnvIn3).
func (g groupRow) envBckOut(from4 bool) {
	name, lp := "bckEnvOut"+g.name, g.lp+"bo"
	w := 4 * g.parts
	sig := fmt.Sprintf("func(dc *[%d]*[4]float32, tf *[4]float32, q int, xE *[%d]float32)", g.parts, w)
	doc := name + " is phases 3 to 5 of Backward row i of each part's target in its full matrix: bckRowOutSSE per 128-bit part, with that part's E value."
	if from4 {
		name, lp = "bckEnvOut45"+g.name, g.lp+"bo45"
		sig = fmt.Sprintf("func(dc *[%d]*[4]float32, tf *[4]float32, q int, carry *[%d]float32)", g.parts, w)
		doc = name + " is bckEnvOut" + g.name + "'s phases 4 and 5, from the carry phase 3 left (bckEnvIn3" + g.name + ")."
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc)
	label := func(s string) string { return lp + "_" + s }
	slot := ftzOn()
	dc := g.ptrs("dc")
	tf := Load(Param("tf"), GP64())
	Q := Load(Param("q"), GP64())

	top := GP64() // (Q-1)*48
	IMUL3Q(U32(3*vb), Q, top)
	SUBQ(U8(3*vb), top)
	ddTop := GP64() // tf + 7Q*16 + (Q-1)*16
	IMUL3Q(U32(8*vb), Q, ddTop)
	ADDQ(tf, ddTop)
	SUBQ(U8(vb), ddTop)

	off, dp := GP64(), GP64()
	dpv, dcv, a := g.vec(), g.vec(), g.vec()
	if from4 {
		g.loadInto(dcv, Mem{Base: Load(Param("carry"), GP64())})
	} else {
		// Phase 3.
		xEv := g.load(Mem{Base: Load(Param("xE"), GP64())})
		d0 := g.gather(dc, nil, cD*vb)
		VADDPS(xEv, d0, dpv)
		VPSRLDQ(U8(4), dpv, dpv)
		MOVQ(top, off)
		MOVQ(ddTop, dp)
		Label(label("p3"))
		VMULPS(g.bcast(Mem{Base: dp}), dpv, dcv)
		VADDPS(xEv, dcv, a)
		dq := g.gather(dc, off, cD*vb)
		VADDPS(a, dq, dpv)
		g.scatter(dpv, dc, off, cD*vb)
		mq := g.gather(dc, off, cM*vb)
		VADDPS(xEv, mq, a)
		g.scatter(a, dc, off, cM*vb)
		SUBQ(U8(vb), dp)
		SUBQ(U8(3*vb), off)
		JGE(LabelRef(label("p3")))
	}

	// Phase 4: three passes, stopping once every part's carry is zero.
	j := GP64()
	MOVQ(U32(3), j)
	zero := g.vec()
	VXORPS(zero, zero, zero)
	Label(label("pass"))
	VPSRLDQ(U8(4), dcv, dcv)
	MOVQ(top, off)
	MOVQ(ddTop, dp)
	Label(label("p4"))
	VMULPS(g.bcast(Mem{Base: dp}), dcv, dcv)
	g.exitIfAllZero(dcv, zero, label("p5init"))
	d4 := g.gather(dc, off, cD*vb)
	VADDPS(dcv, d4, a)
	g.scatter(a, dc, off, cD*vb)
	SUBQ(U8(vb), dp)
	SUBQ(U8(3*vb), off)
	JGE(LabelRef(label("p4")))
	DECQ(j)
	JNZ(LabelRef(label("pass")))

	// Phase 5: M->D.
	Label(label("p5init"))
	dcv5 := g.gather(dc, nil, cD*vb)
	VPSRLDQ(U8(4), dcv5, dcv5)
	MOVQ(top, off)
	tp := GP64() // tf + (Q-1)*112
	IMUL3Q(U32(7*vb), Q, tp)
	ADDQ(tf, tp)
	SUBQ(U8(7*vb), tp)
	Label(label("p5"))
	VMULPS(g.bcast(Mem{Base: tp, Disp: fMD * vb}), dcv5, a)
	m5 := g.gather(dc, off, cM*vb)
	VADDPS(a, m5, dpv)
	g.scatter(dpv, dc, off, cM*vb)
	g.gatherInto(dcv5, dc, off, cD*vb)
	SUBQ(U8(7*vb), tp)
	SUBQ(U8(3*vb), off)
	JGE(LabelRef(label("p5")))
	VZEROUPPER()
	ftzOff(slot)
	RET()
}

// loadInto loads a group vector into v.
func (g groupRow) loadInto(v reg.VecVirtual, m Mem) { VMOVUPS(m, v) }

// exitIfAllZero jumps to label when every lane of v is zero (either
// sign; NaN is not zero), in every part.
func (g groupRow) exitIfAllZero(v, zero reg.VecVirtual, label string) {
	if g.parts == 2 {
		nz, r := g.vec(), GP32()
		VCMPPS(U8(4), zero, v, nz) // lanes != 0 (true for NaN)
		VMOVMSKPS(nz, r)
		TESTL(r, r)
		JZ(LabelRef(label))
		return
	}
	VCMPPS(U8(4), zero, v, reg.K3)
	KORTESTW(reg.K3, reg.K3)
	JZ(LabelRef(label))
}
