// Command vit generates hmmer3/vitfilter's Viterbi filter kernels for
// SSE2, AVX2 and AVX-512BW (see hmmer3/vitfilter/vector_amd64.go for what
// they compute).
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

func main() {
	for _, s := range []*vec.ISA{vec.SSE, vec.AVX2, vec.AVX512} {
		vit(s)
	}
	vitPair()
	vitMulti(4)
	vitMulti(2)
	Generate()
}

// Transition vectors per striped column, in oprofile's V* order.
const (
	tBM = iota
	tMM
	tIM
	tDM
	tMD
	tMI
	tII
	tDD
	nT
)

// Special-state indices of oprofile.VitProfile.XW ([4][2]int16).
const (
	xE, xN, xJ, xC = 0, 1, 2, 3
	loop, move     = 0, 1
)

func xwOff(s, t int) int { return (s*2 + t) * 2 }

// vit is the Viterbi filter in signed saturating words, striped. One pass
// per row computes M and I from the previous row and the D chain inside
// each lane (node k -> k+1 is vector q -> q+1, same lane); the D values
// that must cross from lane z's last node to lane z+1's first are then
// propagated by further passes over the D vectors (Farrar's lazy F),
// until a pass finds that nothing it carries raises any D cell. Every
// operation is monotone, so this reaches exactly the values of the
// sequential D chain. The specials are updated in scalar registers with
// HMMER's int arithmetic and int16 stores.
func vit(s *vec.ISA) {
	V := s.Bytes
	TEXT("vit"+s.Name, NOSPLIT, "func(dsq *byte, n int, rwv *int16, rstride int, tr *int16, q int, dp *int16, xw *[4][2]int16, base int, skip *int16, lazyAll int) (xC int, overflow bool)")
	Pragma("noescape")
	Doc(fmt.Sprintf("vit%s runs the Viterbi filter over dsq[0:n]; dp is scratch for 3q vectors.", s.Name))
	rowp := Load(Param("dsq"), GP64())
	end := Load(Param("n"), GP64())
	ADDQ(rowp, end)
	rwv := Load(Param("rwv"), GP64())
	rstride := Load(Param("rstride"), GP64())
	tr := Load(Param("tr"), GP64())
	dp := Load(Param("dp"), GP64())
	dpEnd := Load(Param("q"), GP64())
	IMUL3Q(U32(3*V), dpEnd, dpEnd)
	ADDQ(dp, dpEnd)
	xw := Load(Param("xw"), GP64())

	xBv, xEv, mpv, ipv, dpv, dcv, sv, tmp, fill, tmp2, neg, skipv := s.R(0), s.R(1), s.R(2), s.R(3), s.R(4), s.R(5), s.R(6), s.R(7), s.R(8), s.R(9), s.R(10), s.R(11)
	t := GP64()
	MOVL(U32(0x8000), t.As32())
	s.SplatW(t.As32(), neg)
	if s.AVX {
		s.Mov(neg, fill)
	} else {
		MOVL(U32(0x8000), t.As32())
		MOVQ(t, fill) // -32768 in word 0 only, for POR after PSLLDQ
	}

	s.Mov(Mem{Base: Load(Param("skip"), GP64())}, skipv)

	// M, I, D of every node start at -infinity.
	p := GP64()
	MOVQ(dp, p)
	Label(s.Label("clear"))
	s.Mov(neg, Mem{Base: p})
	ADDQ(U8(V), p)
	CMPQ(p, dpEnd)
	JB(LabelRef(s.Label("clear")))

	// Specials: xN stays an int (HMMER never stores it in a word); xB,
	// xJ and xC are int16 values kept sign-extended.
	base := Load(Param("base"), GP64())
	xNr := GP64()
	MOVQ(base, xNr)
	xBr, xJr, xCr, a, b := GP64(), GP64(), GP64(), GP64(), GP64()
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xN, move)}, a)
	MOVQ(xNr, xBr)
	ADDQ(a, xBr)
	MOVWQSX(xBr.As16(), xBr)
	MOVQ(I32(-32768), xJr)
	MOVQ(xJr, xCr)

	rsc, tsc := GP64(), GP64()
	CMPQ(rowp, end)
	JAE(LabelRef(s.Label("finish")))

	MOVQ(xBr, t)
	ANDL(U32(0xffff), t.As32())
	s.SplatW(t.As32(), xBv)

	Label(s.Label("row"))
	MOVBQZX(Mem{Base: rowp}, rsc)
	IMULQ(rstride, rsc)
	ADDQ(rwv, rsc)
	MOVQ(tr, tsc)
	s.Mov(neg, dcv)
	s.Mov(neg, xEv)
	s.Mov(Mem{Base: dpEnd, Disp: -3 * V}, mpv)
	s.ShiftInB(mpv, fill, tmp, 2)
	s.Mov(Mem{Base: dpEnd, Disp: -2 * V}, ipv)
	s.ShiftInB(ipv, fill, tmp, 2)
	s.Mov(Mem{Base: dpEnd, Disp: -V}, dpv)
	s.ShiftInB(dpv, fill, tmp, 2)
	MOVQ(dp, p)

	Label(s.Label("cell"))
	tm := func(i int) Mem { return Mem{Base: tsc, Disp: i * V} }
	s.AddsW(xBv, tm(tBM), sv)
	s.AddsW(mpv, tm(tMM), tmp)
	s.MaxsW(sv, tmp, sv)
	s.AddsW(ipv, tm(tIM), tmp)
	s.MaxsW(sv, tmp, sv)
	s.AddsW(dpv, tm(tDM), tmp)
	s.MaxsW(sv, tmp, sv)
	s.AddsW(sv, Mem{Base: rsc}, sv)
	s.MaxsW(xEv, sv, xEv)
	s.Mov(Mem{Base: p}, mpv)
	s.Mov(Mem{Base: p, Disp: V}, ipv)
	s.Mov(Mem{Base: p, Disp: 2 * V}, dpv)
	s.Mov(sv, Mem{Base: p})
	s.Mov(dcv, Mem{Base: p, Disp: 2 * V})
	s.AddsW(sv, tm(tMD), tmp)
	s.AddsW(dcv, tm(tDD), dcv)
	s.MaxsW(dcv, tmp, dcv)
	s.AddsW(mpv, tm(tMI), tmp)
	s.AddsW(ipv, tm(tII), tmp2)
	s.MaxsW(tmp, tmp2, tmp)
	s.Mov(tmp, Mem{Base: p, Disp: V})
	ADDQ(U32(nT*V), tsc)
	ADDQ(U8(V), rsc)
	ADDQ(U8(3*V), p)
	CMPQ(p, dpEnd)
	JB(LabelRef(s.Label("cell")))

	// Specials.
	xEr := GP64()
	s.HMaxSW(xEv, tmp, xEr.As32())
	MOVLQSX(xEr.As32(), xEr)
	CMPQ(xEr, U32(32767))
	JGE(LabelRef(s.Label("overflow")))
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xN, loop)}, a)
	ADDQ(a, xNr)
	// xC = max(xC + C loop, xE + E move)
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xC, loop)}, a)
	ADDQ(a, xCr)
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xE, move)}, b)
	ADDQ(xEr, b)
	CMPQ(b, xCr)
	CMOVQGT(b, xCr)
	MOVWQSX(xCr.As16(), xCr)
	// xJ = max(xJ + J loop, xE + E loop)
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xJ, loop)}, a)
	ADDQ(a, xJr)
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xE, loop)}, b)
	ADDQ(xEr, b)
	CMPQ(b, xJr)
	CMOVQGT(b, xJr)
	MOVWQSX(xJr.As16(), xJr)
	// xB = max(xJ + J move, xN + N move)
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xJ, move)}, a)
	MOVQ(xJr, xBr)
	ADDQ(a, xBr)
	MOVWQSX(Mem{Base: xw, Disp: xwOff(xN, move)}, b)
	ADDQ(xNr, b)
	CMPQ(b, xBr)
	CMOVQGT(b, xBr)
	MOVWQSX(xBr.As16(), xBr)

	// The D values that must cross a lane boundary: first the carry out
	// of each lane's last node into the next lane's first.
	s.ShiftInB(dcv, fill, tmp, 2)

	// The lazy passes cannot change the next row when the values they
	// add enter no node's M better than B does. With the carry stored
	// into vector 0, every D value they can still raise at node n is
	// the carry c into some lane's first node j plus DD(j) + .. +
	// DD(n-1); it competes with B at M(n+1) of the next row. skip[z] is
	// the largest of those sums plus DM(n+1) - BM(n+1) over the nodes
	// after lane z's first (vitfilter's lazySkip), so when every lane
	// has c + skip[z] < xB the next row's M cells are the same with the
	// partial D values, and D feeds nothing else. (HMMER bounds with the
	// largest D value of the whole row and one node's worst case, which
	// sends many times as many rows through the passes.) lazyAll is set
	// when the bound does not hold (positive D->D or D->M scores).
	MOVQ(xBr, t)
	ANDL(U32(0xffff), t.As32())
	s.SplatW(t.As32(), xBv)
	s.AddsW(skipv, dcv, tmp)
	if s.Z {
		s.NotAllGtWJump(xBv, tmp, reg.K1, s.Label("lazy"))
	} else {
		s.CmpgtW(xBv, tmp, tmp2)
		lmask := GP32()
		s.MoveMask(tmp2, lmask)
		if s.AVX {
			INCL(lmask) // zero when xB wins in every lane
		} else {
			CMPL(lmask, U32(0xffff))
		}
		JNE(LabelRef(s.Label("lazy")))
	}
	CMPQ(Load(Param("lazyAll"), GP64()), U8(0))
	JNE(LabelRef(s.Label("lazy")))
	s.Mov(Mem{Base: dp, Disp: 2 * V}, dpv)
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, Mem{Base: dp, Disp: 2 * V})
	JMP(LabelRef(s.Label("lazydone")))

	// Lazy F: carry D across lane boundaries until nothing changes.
	Label(s.Label("lazy"))
	MOVQ(dp, p)
	MOVQ(tr, tsc)
	Label(s.Label("lazycell"))
	s.Mov(Mem{Base: p, Disp: 2 * V}, dpv)
	if s.Z {
		s.NoneGtWJump(dcv, dpv, reg.K2, s.Label("lazydone"))
	} else {
		mask := GP32()
		s.CmpgtW(dcv, dpv, tmp)
		s.MoveMask(tmp, mask)
		TESTL(mask, mask)
		JZ(LabelRef(s.Label("lazydone")))
	}
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, Mem{Base: p, Disp: 2 * V})
	s.AddsW(dpv, tm(tDD), dcv)
	ADDQ(U32(nT*V), tsc)
	ADDQ(U8(3*V), p)
	CMPQ(p, dpEnd)
	JB(LabelRef(s.Label("lazycell")))
	s.ShiftInB(dcv, fill, tmp, 2)
	JMP(LabelRef(s.Label("lazy")))
	Label(s.Label("lazydone"))

	INCQ(rowp)
	CMPQ(rowp, end)
	JB(LabelRef(s.Label("row")))

	Label(s.Label("finish"))
	Store(xCr, Return("xC"))
	MOVB(U8(0), t.As8())
	Store(t.As8(), Return("overflow"))
	if s.AVX {
		VZEROUPPER()
	}
	RET()
	Label(s.Label("overflow"))
	Store(xCr, Return("xC"))
	MOVB(U8(1), t.As8())
	Store(t.As8(), Return("overflow"))
	if s.AVX {
		VZEROUPPER()
	}
	RET()
}
