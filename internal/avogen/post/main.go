// Command post generates hmmer3/fwdback's kernels for domain definition:
// posterior decoding, the optimal accuracy (maximum expected accuracy)
// row, null2's row sums and its emission dot products. Each performs, per
// lane, exactly the float operations of HMMER 3.3.2's SSE code (and of
// fwdback's Go code), so every result is bit-identical.
//
// Decoding and the null2 dot products multiply and need flush-to-zero;
// they set MXCSR's FTZ bit for their duration and restore it. They leave
// DAZ off, so a subnormal input is used as is, exactly as the Go code
// (which flushes products, not operands) does. The optimal accuracy row
// and the row sums only add, compare, mask and take maxima; the result of
// those never depends on MXCSR's flush bits for the values they see (sums
// of non-negative normal numbers are normal), and they run in Go's
// default mode, where they match the Go code for every input.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// Transition and mask vectors per striped vector q (oprofile.FBM..FII),
// then Q D->D vectors.
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
	decode(false)
	decode(true)
	oaRow(sse, false)
	oaRow(vex, false)
	oaRow(sse, true)
	oaRow(vex, true)
	sumRows()
	null2Dot()
	null2Sums()
	Generate()
}

// ftzOn sets MXCSR's FTZ bit only for a kernel; ftzOff restores it.
func ftzOn() Mem      { return vec.SetMXCSR(vec.FTZ) }
func ftzOff(slot Mem) { vec.RestoreMXCSR(slot) }

// isa spells the four-lane operations either in legacy SSE (two-operand
// forms; memory operands must be loaded first, as Go's []Vec carries no
// 16-byte alignment) or in VEX (three operands, unaligned memory
// operands allowed). Both compute the same bits.
type isa struct {
	name string
	vex  bool
}

var (
	sse = isa{"SSE", false}
	vex = isa{"AVX", true}
)

func (s isa) load(m Op) reg.VecVirtual {
	v := XMM()
	if s.vex {
		VMOVUPS(m, v)
	} else {
		MOVUPS(m, v)
	}
	return v
}

func (s isa) store(v reg.VecVirtual, m Mem) {
	if s.vex {
		VMOVUPS(v, m)
	} else {
		MOVUPS(v, m)
	}
}

func (s isa) mov(src, dst reg.VecVirtual) {
	if s.vex {
		VMOVAPS(src, dst)
	} else {
		MOVAPS(src, dst)
	}
}

// and emits dst = m & b (m a mask in memory or a register). AND is
// bitwise, so operand order cannot matter.
func (s isa) and(m Op, b, dst reg.VecVirtual) {
	if s.vex {
		VANDPS(m, b, dst)
		return
	}
	if IsMem(m) {
		if dst == b {
			t := s.load(m)
			ANDPS(t, dst)
			return
		}
		MOVUPS(m, dst)
		ANDPS(b, dst)
		return
	}
	if dst != b {
		MOVAPS(b, dst)
	}
	ANDPS(m, dst)
}

// max emits dst = a > b ? a : b, _mm_max_ps(a, b): on equal values, on
// +0 against -0 and on NaN it returns b, as the Go code's vmax does.
func (s isa) max(a reg.VecVirtual, b Op, dst reg.VecVirtual) {
	s.binary("max", VMAXPS, MAXPS, a, b, dst)
}

// mul emits dst = a * b with a as the first operand.
func (s isa) mul(a reg.VecVirtual, b Op, dst reg.VecVirtual) {
	s.binary("mul", VMULPS, MULPS, a, b, dst)
}

// add emits dst = a + b with a as the first operand (its NaN wins).
func (s isa) add(a reg.VecVirtual, b Op, dst reg.VecVirtual) {
	s.binary("add", VADDPS, ADDPS, a, b, dst)
}

// binary emits dst = a op b with a as the first operand: VEX's
// three-operand form, or SSE's two-operand one after moving a to dst (a
// memory b loaded first, as SSE's packed forms need an aligned operand).
func (s isa) binary(name string, vex func(...Op), sse func(mx, x Op), a reg.VecVirtual, b Op, dst reg.VecVirtual) {
	if s.vex {
		vex(b, a, dst)
		return
	}
	if IsMem(b) {
		b = s.load(b)
	}
	if dst != a {
		if dst == b {
			panic("post: " + name + " into its second operand")
		}
		MOVAPS(a, dst)
	}
	sse(b, dst)
}

// rshiftInf is esl_sse_rightshift_ps(v, -inf): lanes move up one, -inf
// into lane 0 (ninf0 holds -inf in lane 0 and zeros above).
func (s isa) rshiftInf(v, ninf0 reg.VecVirtual) {
	if s.vex {
		VPSLLDQ(U8(4), v, v)
		VORPS(ninf0, v, v)
		return
	}
	PSLLDQ(U8(4), v)
	ORPS(ninf0, v)
}

// decode is posterior decoding over whole rows (p7_Decoding's cell loop):
// every M and I cell is (F*B)*scale, flushed to zero, and D cells are 0.
// The AVX2 form handles two vector triples (three YMM registers) at once;
// a product per lane is the same IEEE operation in either width.
func decode(avx bool) {
	name := "decodeRowsSSE"
	if avx {
		name = "decodeRowsAVX2"
	}
	TEXT(name, NOSPLIT, "func(f, b, p *[4]float32, q int, totr *float32, rows int)")
	Pragma("noescape")
	Doc(name + " writes rows posterior rows p from Forward rows f and Backward rows b (p may be b), row r scaled by totr[r].")
	slot := ftzOn()
	f := Load(Param("f"), GP64())
	b := Load(Param("b"), GP64())
	p := Load(Param("p"), GP64())
	Q := Load(Param("q"), GP64())
	tr := Load(Param("totr"), GP64())
	rows := Load(Param("rows"), GP64())
	n := GP64()
	IMUL3Q(U32(3*vb), Q, n)
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	off := GP64()
	Label(name + "_row")
	XORQ(off, off)
	cell := func(base reg.Register, d int) Mem { return Mem{Base: base, Index: off, Scale: 1, Disp: d} }
	if avx {
		t := YMM()
		VBROADCASTSS(Mem{Base: tr}, t)
		zero := YMM()
		VXORPS(zero, zero, zero)
		pairs := GP64() // bytes covered by whole pairs of triples
		MOVQ(Q, pairs)
		SHRQ(U8(1), pairs)
		IMUL3Q(U32(6*vb), pairs, pairs)
		TESTQ(pairs, pairs)
		JZ(LabelRef(name + "_tail"))
		Label(name + "_pair")
		// [M0 D0] [I0 M1] [D1 I1]: D lanes are replaced by zero.
		for j, blend := range []uint8{0xF0, 0x00, 0x0F} {
			a := YMM()
			VMOVUPS(cell(f, 32*j), a)
			VMULPS(cell(b, 32*j), a, a)
			VMULPS(t, a, a)
			if blend != 0 {
				VBLENDPS(U8(blend), zero, a, a)
			}
			VMOVUPS(a, cell(p, 32*j))
		}
		ADDQ(U8(6*vb), off)
		CMPQ(off, pairs)
		JB(LabelRef(name + "_pair"))
		Label(name + "_tail")
		CMPQ(off, n)
		JAE(LabelRef(name + "_next"))
		tx := t.AsX()
		for _, c := range []int{cM, cI} {
			a := XMM()
			VMOVUPS(cell(f, c*vb), a)
			VMULPS(cell(b, c*vb), a, a)
			VMULPS(tx, a, a)
			VMOVUPS(a, cell(p, c*vb))
		}
		VMOVUPS(zero.AsX(), cell(p, cD*vb))
	} else {
		t := XMM()
		MOVSS(Mem{Base: tr}, t)
		SHUFPS(U8(0), t, t)
		zero := XMM()
		XORPS(zero, zero)
		Label(name + "_cell")
		for _, c := range []int{cM, cI} {
			a, x := XMM(), XMM()
			MOVUPS(cell(f, c*vb), a)
			MOVUPS(cell(b, c*vb), x)
			MULPS(x, a)
			MULPS(t, a)
			MOVUPS(a, cell(p, c*vb))
		}
		MOVUPS(zero, cell(p, cD*vb))
		ADDQ(U8(3*vb), off)
		CMPQ(off, n)
		JB(LabelRef(name + "_cell"))
	}
	Label(name + "_next")
	ADDQ(n, f)
	ADDQ(n, b)
	ADDQ(n, p)
	ADDQ(U8(4), tr)
	DECQ(rows)
	JNZ(LabelRef(name + "_row"))
	Label(name + "_done")
	if avx {
		VZEROUPPER()
	}
	ftzOff(slot)
	RET()
}

// oaRow is one row of p7_OptimalAccuracy. msk holds the transition masks
// (all ones where the probability is > 0, HMMER's _mm_cmpgt_ps against
// zero) in TF's layout, ddAll the AND of the Q D->D masks.
//
// HMMER computes the row in five sweeps: M, I and the M->D carry; one D->D
// pass whose carry is max(carry, D) masked; three passes whose carry is
// only masked; then the D cells' maxima into E. Two sweeps give the same
// operations on every cell:
//
//   - The first pass needs the M->D carry leaving vector Q-1, which is
//     M(Q-1) masked by its M->D mask; M(Q-1) depends only on the previous
//     row, so it is computed first and the first D->D pass runs inside the
//     M/I sweep, each D cell taking max(carry, D) right after its M->D
//     value is known, in the same q order.
//   - In passes two to four the carry never reads a D cell: it starts at
//     the shifted carry of the previous pass and is ANDed with each D->D
//     mask, so it leaves the pass as (start AND ddAll). The three start
//     values are therefore known once the first pass ends, and one sweep
//     applies the three maxima to each cell in pass order, then folds the
//     cell into E in q order, as HMMER's last loop does.
//
// The fused form (decodeOARow, DecodeAlign's row) also does, in the same
// two sweeps, what DecodeAlign needs from the rows around it:
//
//   - with acc, null2's row sum: acc = ppr + acc for the M and I vectors
//     (sumRows' operation), from the posterior values sweep 1 loads anyway;
//   - with nf and nb (Forward and Backward row i+1), the decoding of row
//     i+1 into nb, scaled by t (decodeRows' operations, FTZ set for sweep
//     2 only: its maxima and masks are not affected by it, the additions
//     of sweep 1 must not be), while sweep 1 prefetches those rows. On long
//     envelopes the matrices come from memory, and sweep 1's work now
//     hides the wait for the next row.
func oaRow(s isa, fused bool) {
	name := "oaRow" + s.name
	sig := "func(dpp, dpc, ppr *[4]float32, msk *[4]uint32, q int, xB float32, ddAll *[4]uint32, xEv *[4]float32)"
	doc := " computes optimal accuracy row dpc from row dpp and posterior row ppr; it returns the row's M and D maximum vector in xEv."
	if fused {
		name = "decodeOARow" + s.name
		sig = sig[:len(sig)-1] + ", plain *uint8, acc, nf, nb *[4]float32, t float32)"
		doc += " Unless nil, it adds ppr's M and I vectors into acc and decodes Forward row nf and Backward row nb into nb, scaled by t."
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(name + doc)
	dpp := Load(Param("dpp"), GP64())
	dpc := Load(Param("dpc"), GP64())
	ppr := Load(Param("ppr"), GP64())
	msk := Load(Param("msk"), GP64())
	Q := Load(Param("q"), GP64())
	n := GP64() // bytes per row
	IMUL3Q(U32(3*vb), Q, n)
	xBv := XMM()
	Load(Param("xB"), xBv)
	if s.vex {
		VSHUFPS(U8(0), xBv, xBv, xBv)
	} else {
		SHUFPS(U8(0), xBv, xBv)
	}
	// -inf is 0xff800000: all ones shifted left by 23.
	infv, ninf0 := XMM(), XMM()
	if s.vex {
		VPCMPEQD(infv, infv, infv)
		VPSLLD(U8(23), infv, infv)
		VPSRLDQ(U8(12), infv, ninf0)
	} else {
		PCMPEQL(infv, infv)
		PSLLL(U8(23), infv)
		MOVAPS(infv, ninf0)
		PSRLDQ(U8(12), ninf0)
	}

	// M(Q-1) from row dpp's vector Q-2, then the carry leaving the row.
	ddm := GP64() // the D->D masks: msk + 7Q vectors
	IMUL3Q(U32(7*vb), Q, ddm)
	ADDQ(msk, ddm)
	tl := Mem{Base: ddm, Disp: -7 * vb} // masks of vector Q-1
	pl := Mem{Base: dpp, Index: n, Scale: 1, Disp: -6 * vb}
	sv, t := XMM(), XMM()
	mcell := func(tm Mem, mp, ip, dp Op) {
		s.and(tm.Offset(fBM*vb), xBv, sv)
		for _, x := range []struct {
			tr int
			v  Op
		}{{fMM, mp}, {fIM, ip}, {fDM, dp}} {
			v, ok := x.v.(reg.VecVirtual)
			if !ok {
				v = s.load(x.v)
			}
			s.and(tm.Offset(x.tr*vb), v, t)
			s.max(sv, t, sv)
		}
	}
	mcell(tl, pl.Offset(cM*vb), pl.Offset(cI*vb), pl.Offset(cD*vb))
	s.add(sv, Mem{Base: ppr, Index: n, Scale: 1, Disp: -3*vb + cM*vb}, sv)
	c1 := XMM()
	s.and(tl.Offset(fMD*vb), sv, c1)
	s.rshiftInf(c1, ninf0)

	// Sweep 1: M, I, the M->D carry and the first D->D pass.
	mpv, dpv, ipv := XMM(), XMM(), XMM()
	last := Mem{Base: dpp, Index: n, Scale: 1, Disp: -3 * vb}
	for _, x := range []struct {
		v reg.VecVirtual
		c int
	}{{mpv, cM}, {dpv, cD}, {ipv, cI}} {
		if s.vex {
			VMOVUPS(last.Offset(x.c*vb), x.v)
		} else {
			MOVUPS(last.Offset(x.c*vb), x.v)
		}
		s.rshiftInf(x.v, ninf0)
	}
	dcv, xEm := XMM(), XMM()
	s.mov(infv, dcv)
	s.mov(infv, xEm)
	off, tp, dp := GP64(), GP64(), GP64()
	var acc, pf, pb reg.Register
	if fused {
		// Prefetch the next rows, or (last row) the current ones again.
		acc = Load(Param("acc"), GP64())
		pf, pb = Load(Param("nf"), GP64()), Load(Param("nb"), GP64())
		TESTQ(pf, pf)
		CMOVQEQ(dpc, pf)
		CMOVQEQ(ppr, pb)
	}
	d := XMM()
	// With fused, a vector q whose eight masks (TF's seven, D->D) are all
	// ones, plain[q] != 0, skips the ANDs, which would change no bit; in
	// real profiles only the vectors of nodes 1 and M and of the padding
	// past M have zero transitions. The masks are the largest stream a
	// row reads (128 bytes per vector against 48 of cells).
	var fl reg.Register
	if fused {
		fl = GP64()
	}
	// branchPlain jumps to label+"_plain" for a plain vector.
	branchPlain := func(label string) {
		CMPB(Mem{Base: fl}, U8(0))
		JNE(LabelRef(label + "_plain"))
	}
	// joinPlain ends the masked body and places the plain one, body.
	joinPlain := func(label string, body func()) {
		JMP(LabelRef(label + "_next"))
		Label(label + "_plain")
		body()
		Label(label + "_next")
		INCQ(fl)
	}
	sweep1 := func(label string, sums bool) {
		XORQ(off, off)
		MOVQ(msk, tp)
		MOVQ(ddm, dp)
		if fused {
			Load(Param("plain"), fl)
		}
		Label(label)
		tm := Mem{Base: tp}
		cur := Mem{Base: dpc, Index: off, Scale: 1}
		prev := Mem{Base: dpp, Index: off, Scale: 1}
		post := Mem{Base: ppr, Index: off, Scale: 1}
		sum := Mem{Base: acc, Index: off, Scale: 1}
		// addPost adds the posterior cell c to sv and, with sums, the
		// posterior into acc (row first, as sumRows).
		addPost := func(c int) {
			if !sums {
				s.add(sv, post.Offset(c*vb), sv)
				return
			}
			p := s.load(post.Offset(c * vb))
			s.add(sv, p, sv)
			s.add(p, sum.Offset(c*vb), p)
			s.store(p, sum.Offset(c*vb))
		}
		loadPrev := func() {
			for _, x := range []struct {
				v reg.VecVirtual
				c int
			}{{mpv, cM}, {dpv, cD}, {ipv, cI}} {
				if s.vex {
					VMOVUPS(prev.Offset(x.c*vb), x.v)
				} else {
					MOVUPS(prev.Offset(x.c*vb), x.v)
				}
			}
		}
		if fused {
			PREFETCHT0(Mem{Base: pf, Index: off, Scale: 1})
			PREFETCHT0(Mem{Base: pb, Index: off, Scale: 1})
			branchPlain(label)
		}
		mcell(tm, mpv, ipv, dpv)
		addPost(cM)
		s.max(xEm, sv, xEm)
		loadPrev()
		s.store(sv, cur.Offset(cM*vb))
		s.max(c1, dcv, d) // first D->D pass: D = max(carry, D)
		s.store(d, cur.Offset(cD*vb))
		s.and(Mem{Base: dp}, d, c1)
		s.and(tm.Offset(fMD*vb), sv, dcv)
		s.and(tm.Offset(fMI*vb), mpv, sv)
		s.and(tm.Offset(fII*vb), ipv, t)
		s.max(sv, t, sv)
		addPost(cI)
		s.store(sv, cur.Offset(cI*vb))
		if fused {
			// The same operations with every AND of an all-ones mask left out.
			joinPlain(label, func() {
				s.max(xBv, mpv, sv)
				s.max(sv, ipv, sv)
				s.max(sv, dpv, sv)
				addPost(cM)
				s.max(xEm, sv, xEm)
				loadPrev()
				s.store(sv, cur.Offset(cM*vb))
				s.max(c1, dcv, c1)
				s.store(c1, cur.Offset(cD*vb))
				s.mov(sv, dcv)
				s.max(mpv, ipv, sv)
				addPost(cI)
				s.store(sv, cur.Offset(cI*vb))
			})
		}
		ADDQ(U8(7*vb), tp)
		ADDQ(U8(vb), dp)
		ADDQ(U8(3*vb), off)
		CMPQ(off, n)
		JB(LabelRef(label))
	}
	if fused {
		TESTQ(acc, acc)
		JZ(LabelRef(name + "_nosum"))
		sweep1(name+"_sum", true)
		JMP(LabelRef(name + "_passes"))
		Label(name + "_nosum")
	}
	sweep1(name+"_cell", false)
	if fused {
		Label(name + "_passes")
	}

	// Sweep 2: D->D passes two to four, then D->E.
	all := GP64()
	Load(Param("ddAll"), all)
	c2, c3, c4 := c1, XMM(), XMM()
	s.rshiftInf(c2, ninf0)
	s.and(Mem{Base: all}, c2, c3)
	s.rshiftInf(c3, ninf0)
	s.and(Mem{Base: all}, c3, c4)
	s.rshiftInf(c4, ninf0)
	var nf, nb reg.Register
	var tv, zero reg.VecVirtual
	sweep2 := func(label string, decode bool) {
		XORQ(off, off)
		MOVQ(ddm, dp)
		if fused {
			Load(Param("plain"), fl)
		}
		Label(label)
		dm := Mem{Base: dpc, Index: off, Scale: 1, Disp: cD * vb}
		passes := func() {
			if s.vex {
				VMAXPS(dm, c2, d)
			} else {
				MOVUPS(dm, t)
				MOVAPS(c2, d)
				MAXPS(t, d)
			}
			s.max(c3, d, t)
			s.max(c4, t, d)
			s.store(d, dm)
			s.max(xEm, d, xEm)
		}
		if fused {
			branchPlain(label)
		}
		passes()
		var ddv Op = Mem{Base: dp}
		if !s.vex {
			ddv = s.load(ddv)
		}
		s.and(ddv, c2, c2)
		s.and(ddv, c3, c3)
		s.and(ddv, c4, c4)
		if fused {
			joinPlain(label, passes) // the carries keep their value
		}
		if decode {
			// Row i+1's vector triple: (F*B)*t for M and I, D = 0.
			for _, c := range []int{cM, cI} {
				a := s.load(Mem{Base: nf, Index: off, Scale: 1, Disp: c * vb})
				s.mul(a, Mem{Base: nb, Index: off, Scale: 1, Disp: c * vb}, a)
				s.mul(a, tv, a)
				s.store(a, Mem{Base: nb, Index: off, Scale: 1, Disp: c * vb})
			}
			s.store(zero, Mem{Base: nb, Index: off, Scale: 1, Disp: cD * vb})
		}
		ADDQ(U8(vb), dp)
		ADDQ(U8(3*vb), off)
		CMPQ(off, n)
		JB(LabelRef(label))
	}
	if fused {
		nf, nb = Load(Param("nf"), GP64()), Load(Param("nb"), GP64())
		TESTQ(nf, nf)
		JZ(LabelRef(name + "_nodecode"))
		slot := ftzOn()
		tv, zero = XMM(), XMM()
		Load(Param("t"), tv)
		if s.vex {
			VSHUFPS(U8(0), tv, tv, tv)
			VXORPS(zero, zero, zero)
		} else {
			SHUFPS(U8(0), tv, tv)
			XORPS(zero, zero)
		}
		sweep2(name+"_dddec", true)
		ftzOff(slot)
		JMP(LabelRef(name + "_out"))
		Label(name + "_nodecode")
	}
	sweep2(name+"_dd", false)
	if fused {
		Label(name + "_out")
	}
	out := Load(Param("xEv"), GP64())
	s.store(xEm, Mem{Base: out})
	RET()
}

// sumRows adds rows src[0..rows-1]'s M and I vectors into acc's, one row
// after the other (acc = row + acc, p7_Null2_ByExpectation's loop).
func sumRows() {
	TEXT("sumRowsSSE", NOSPLIT, "func(acc, src *[4]float32, q int, rows int)")
	Pragma("noescape")
	Doc("sumRowsSSE adds the M and I vectors of rows rows of src into acc, row by row.")
	acc := Load(Param("acc"), GP64())
	src := Load(Param("src"), GP64())
	Q := Load(Param("q"), GP64())
	rows := Load(Param("rows"), GP64())
	n := GP64()
	IMUL3Q(U32(3*vb), Q, n)
	TESTQ(rows, rows)
	JZ(LabelRef("sum_done"))
	off := GP64()
	Label("sum_row")
	XORQ(off, off)
	Label("sum_cell")
	for _, c := range []int{cM, cI} {
		a, x := XMM(), XMM()
		MOVUPS(Mem{Base: src, Index: off, Scale: 1, Disp: c * vb}, a)
		MOVUPS(Mem{Base: acc, Index: off, Scale: 1, Disp: c * vb}, x)
		ADDPS(x, a)
		MOVUPS(a, Mem{Base: acc, Index: off, Scale: 1, Disp: c * vb})
	}
	ADDQ(U8(3*vb), off)
	CMPQ(off, n)
	JB(LabelRef("sum_cell"))
	ADDQ(n, src)
	DECQ(rows)
	JNZ(LabelRef("sum_row"))
	Label("sum_done")
	RET()
}

// null2Dot is null2's weighted emission sum for one residue:
// s = s + M*rf; s = s + I over the Q vectors, from s = 0.
func null2Dot() {
	TEXT("null2DotSSE", NOSPLIT, "func(row, rf *[4]float32, q int, out *[4]float32)")
	Pragma("noescape")
	Doc("null2DotSSE returns in out the sum over q of row's M times rf plus row's I, in HMMER's order.")
	slot := ftzOn()
	row := Load(Param("row"), GP64())
	rf := Load(Param("rf"), GP64())
	Q := Load(Param("q"), GP64())
	sv := XMM()
	XORPS(sv, sv)
	Label("dot_cell")
	a, x := XMM(), XMM()
	MOVUPS(Mem{Base: row, Disp: cM * vb}, a)
	MOVUPS(Mem{Base: rf}, x)
	MULPS(x, a)
	ADDPS(a, sv)
	MOVUPS(Mem{Base: row, Disp: cI * vb}, a)
	ADDPS(a, sv)
	ADDQ(U8(3*vb), row)
	ADDQ(U8(vb), rf)
	DECQ(Q)
	JNZ(LabelRef("dot_cell"))
	out := Load(Param("out"), GP64())
	MOVUPS(sv, Mem{Base: out})
	ftzOff(slot)
	RET()
}
