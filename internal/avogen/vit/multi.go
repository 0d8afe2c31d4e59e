package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// vitMulti is vitPair on AVX-512BW with P targets in flight (P = 4 or
// 2): target h in part h of every ZMM register (a 128-bit block when
// P = 4, a 256-bit half when P = 2), each in the striped layout of 8 or
// 16 lanes, so every 512-bit operation does one SSE (or AVX2) step of P
// targets. Everything else is vitPair's: the shared transition vectors
// (VBROADCASTI32X4 or VBROADCASTI64X4 of the 8- or 16-lane table), lane
// shifts inside each part, the specials in saturating words
// (wordSpecials), the lazy-F decision with the part's lane bounds in
// every part, and a job list from which a part that finishes takes its
// next target. The compares that AVX2 reads with VPMOVMSKB write opmask
// registers here.
//
// The P match-score vectors of a cell come from P places (one row of the
// table per target's residue) and are assembled with P-1 inserts; the
// transitions cost one broadcast load each. Four targets hide more of
// each row's serial work; two need fewer inserts per cell.
func vitMulti(P int) {
	s := vec.AVX512
	const V = 64 // bytes per ZMM vector
	U := V / P   // bytes of one target's vector: the index unit
	name := map[int]string{4: "vitQuadAVX512", 2: "vitDuoAVX512"}[P]
	TEXT(name, NOSPLIT, "func(jobs *byte, njobs int, rwv *int16, rstride int, tr *int16, q int, dp *int16, base int, skip *int16, lazyAll int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s scores jobs[0:njobs] (kernelJob) %d at a time in the %d-lane layout; dp is scratch for 3q ZMM vectors.", name, P, U/2))
	lbl := func(format string, args ...any) string { return s.Label(fmt.Sprintf("p%d", P)+format, args...) }
	// part is the register of a target's vector (X or Y).
	partReg := func(v reg.VecPhysical) reg.VecPhysical {
		if P == 4 {
			return vec.X(v)
		}
		return vec.Y(v)
	}
	broadcast := func(m Mem, r reg.VecPhysical) {
		if P == 4 {
			VBROADCASTI32X4(m, r)
		} else {
			VBROADCASTI64X4(m, r)
		}
	}

	loc := AllocLocal(P*hBytes + 24 + 5*V)
	part := func(h, f int) Mem { return loc.Offset(h*hBytes + f) }
	next := loc.Offset(P * hBytes)
	jobsEnd := loc.Offset(P*hBytes + 8)
	qnMem := loc.Offset(P*hBytes + 16)
	// Each part's special-state scores in its words: E loop, E move,
	// J move, base + N move; and 32767 everywhere.
	cst := func(i int) Mem { return loc.Offset(P*hBytes + 24 + i*V) }
	cEloop, cEmove, cJmove, cNN, c32767 := cst(0), cst(1), cst(2), cst(3), cst(4)

	t, jobs := GP64(), GP64()
	Load(Param("jobs"), jobs)
	Load(Param("njobs"), t)
	IMUL3Q(U32(jobBytes), t, t)
	ADDQ(jobs, t)
	MOVQ(jobs, next)
	MOVQ(t, jobsEnd)
	// No part is busy yet (an idle start looks at the others).
	for h := 0; h < P; h++ {
		MOVQ(U32(0), part(h, hInc))
	}

	xBv, xEv, mpv, ipv, dpv, dcv, sv, tmp, tmp2, neg, fill, emis := s.R(0), s.R(1), s.R(2), s.R(3), s.R(4), s.R(5), s.R(6), s.R(7), s.R(8), s.R(9), s.R(11), s.R(12)
	xJv, xCv := s.R(10), s.R(15)
	MOVL(U32(0x8000), t.As32())
	s.SplatW(t.As32(), neg)
	VPTERNLOGD(U8(0xff), tmp, tmp, tmp) // all ones
	VPXORD(neg, tmp, tmp)
	VMOVDQU64(tmp, c32767)
	VPXORD(tmp, tmp, tmp)
	for _, c := range []Mem{cEloop, cEmove, cJmove, cNN} {
		VMOVDQU64(tmp, c)
	}
	s.Mov(neg, xJv)
	s.Mov(neg, xCv)
	// With 8-lane parts (128-bit blocks) the lane shift is VPSLLDQ and
	// an OR of fill: -32768 in the first word of each block. With
	// 16-lane parts, each half's low block moves up (VSHUFI64X2 merged
	// under opmask K4 into -32768s) and VPALIGNR takes each block's
	// bytes from its predecessor.
	shtmp := s.R(16)
	if P == 4 {
		MOVL(U32(0x8000), t.As32())
		VMOVD(t.As32(), vec.X(fill))
		VSHUFI32X4(U8(0), fill, fill, fill)
	} else {
		MOVL(U32(0xcc), t.As32()) // qwords of blocks 1 and 3
		KMOVW(t.As32(), reg.K4)
	}
	shiftIn := func(v reg.VecPhysical) {
		if P == 4 {
			VPSLLDQ(U8(2), v, v)
			VPORD(fill, v, v)
			return
		}
		VMOVDQU64(neg, shtmp)
		VSHUFI64X2(U8(0x80), v, v, reg.K4, shtmp) // block 1 = v's 0, block 3 = v's 2
		VPALIGNR(U8(14), shtmp, v, v)
	}

	// start puts the next job (if any) into part h, or idles the part;
	// then it jumps to cont. A start that idles the last busy part ends
	// the kernel.
	start := func(h int, cont string) {
		job, r, a, p, pe := GP64(), GP64(), GP64(), GP64(), GP64()
		MOVQ(next, job)
		CMPQ(job, jobsEnd)
		JAE(LabelRef(lbl("idle%d_%s", h, cont)))
		ADDQ(U8(jobBytes), next)
		MOVQ(job, part(h, hJob))
		MOVQ(Mem{Base: job, Disp: jobDsq}, r)
		MOVQ(r, part(h, hRowp))
		ADDQ(Mem{Base: job, Disp: jobN}, r)
		MOVQ(r, part(h, hEnd))
		MOVQ(U32(1), part(h, hInc))
		MOVQ(U32(0), part(h, hOvf))
		// Its special-state scores, and J = C = -32768.
		for _, c := range []struct {
			mem Mem
			off int
		}{{cEloop, xwOff(xE, loop)}, {cEmove, xwOff(xE, move)}, {cJmove, xwOff(xJ, move)}, {cNN, xwOff(xN, move)}} {
			MOVWQSX(Mem{Base: job, Disp: jobXW + c.off}, a)
			if c.mem == cNN {
				Load(Param("base"), r)
				ADDQ(r, a)
			}
			VMOVD(a.As32(), vec.X(tmp))
			VPBROADCASTW(vec.X(tmp), partReg(tmp))
			VMOVDQU(partReg(tmp), c.mem.Offset(U*h))
		}
		dw := U / 4
		MOVL(U32((1<<dw-1)<<(dw*h)), a.As32()) // part h's dwords
		KMOVW(a.As32(), reg.K3)
		VMOVDQU32(neg, reg.K3, xJv)
		VMOVDQU32(neg, reg.K3, xCv)
		// This part's M, I and D start at -infinity.
		Load(Param("dp"), p)
		Load(Param("q"), pe)
		IMUL3Q(U32(3*V), pe, pe)
		ADDQ(p, pe)
		Label(lbl("clear%d_%s", h, cont))
		VMOVDQU(partReg(neg), Mem{Base: p, Disp: U * h})
		ADDQ(U8(V), p)
		CMPQ(p, pe)
		JB(LabelRef(lbl("clear%d_%s", h, cont)))
		JMP(LabelRef(cont))

		Label(lbl("idle%d_%s", h, cont))
		// An idle part goes on reading the first job's first residue
		// and special-state scores; its results are ignored.
		Load(Param("jobs"), r)
		MOVQ(r, part(h, hJob))
		MOVQ(Mem{Base: r, Disp: jobDsq}, r)
		MOVQ(r, part(h, hRowp))
		MOVQ(U32(0), part(h, hEnd))
		MOVQ(U32(0), part(h, hInc))
		MOVQ(U32(0), part(h, hOvf))
		for o := 0; o < P; o++ {
			if o != h {
				CMPQ(part(o, hInc), U8(0))
				JNE(LabelRef(cont))
			}
		}
		JMP(LabelRef(lbl("done")))
	}
	// The cell loop runs an index i from -UQ up to 0 in steps of U (one
	// vector of a table, U bytes) against base registers that point past
	// the end of their tables: the match scores (U bytes a vector), the
	// transitions (8 vectors of U bytes per q: index*8) and the M, I and
	// D rows of the DP (64 bytes a vector: index*P), so one add and one
	// branch advance every pointer.
	qn := GP64()
	Load(Param("q"), qn)
	SHLQ(U8(log2(U)), qn)
	rwv := Load(Param("rwv"), GP64())
	ADDQ(qn, rwv)
	rstride := Load(Param("rstride"), GP64())
	tr := Load(Param("tr"), GP64())
	SHLQ(U8(3), qn)
	ADDQ(qn, tr)
	SHRQ(U8(3-log2(P)), qn) // 64q: one DP row
	dM := Load(Param("dp"), GP64())
	ADDQ(qn, dM)
	dI, dD := GP64(), GP64()
	MOVQ(dM, dI)
	ADDQ(qn, dI)
	MOVQ(dI, dD)
	ADDQ(qn, dD)
	NEGQ(qn)
	SARQ(U8(log2(P)), qn) // -Uq
	MOVQ(qn, qnMem)
	// xB = max(xJ + J move, xN + N move).
	newXB := func() {
		VPADDSW(cJmove, xJv, xBv)
		VPMAXSW(cNN, xBv, xBv)
	}
	for h := 0; h < P; h++ {
		start(h, lbl("init%d", h+1))
		Label(lbl("init%d", h+1))
	}
	newXB()

	i := GP64()
	rsc := make([]reg.GPVirtual, P)
	for h := range rsc {
		rsc[h] = GP64()
	}

	Label(lbl("row"))
	for h := 0; h < P; h++ {
		MOVQ(part(h, hRowp), t)
		MOVBQZX(Mem{Base: t}, rsc[h])
		IMULQ(rstride, rsc[h])
		ADDQ(rwv, rsc[h])
	}
	s.Mov(neg, dcv)
	s.Mov(neg, xEv)
	s.Mov(Mem{Base: dM, Disp: -V}, mpv)
	shiftIn(mpv)
	s.Mov(Mem{Base: dI, Disp: -V}, ipv)
	shiftIn(ipv)
	s.Mov(Mem{Base: dD, Disp: -V}, dpv)
	shiftIn(dpv)
	MOVQ(qnMem, i)

	Label(lbl("cell"))
	tm := func(t int) Op {
		r := s.R(13 + t%2)
		broadcast(Mem{Base: tr, Index: i, Scale: 8, Disp: t * U}, r)
		return r
	}
	row := func(base reg.Register) Mem { return Mem{Base: base, Index: i, Scale: uint8(P)} }
	VMOVDQU(Mem{Base: rsc[0], Index: i, Scale: 1}, partReg(emis))
	for h := 1; h < P; h++ {
		if P == 4 {
			VINSERTI32X4(U8(h), Mem{Base: rsc[h], Index: i, Scale: 1}, emis, emis)
		} else {
			VINSERTI64X4(U8(h), Mem{Base: rsc[h], Index: i, Scale: 1}, emis, emis)
		}
	}
	// B's term last: the row's specials (xB) arrive late.
	s.AddsW(mpv, tm(tMM), sv)
	s.AddsW(ipv, tm(tIM), tmp)
	s.MaxsW(sv, tmp, sv)
	s.AddsW(dpv, tm(tDM), tmp)
	s.MaxsW(sv, tmp, sv)
	s.AddsW(xBv, tm(tBM), tmp)
	s.MaxsW(sv, tmp, sv)
	s.AddsW(sv, emis, sv)
	s.MaxsW(xEv, sv, xEv)
	s.Mov(row(dM), mpv)
	s.Mov(row(dI), ipv)
	s.Mov(row(dD), dpv)
	s.Mov(sv, row(dM))
	s.Mov(dcv, row(dD))
	s.AddsW(sv, tm(tMD), tmp)
	s.AddsW(dcv, tm(tDD), dcv)
	s.MaxsW(dcv, tmp, dcv)
	s.AddsW(mpv, tm(tMI), tmp)
	s.AddsW(ipv, tm(tII), tmp2)
	s.MaxsW(tmp, tmp2, tmp)
	s.Mov(tmp, row(dI))
	ADDQ(U8(U), i)
	JNZ(LabelRef(lbl("cell")))

	// The specials of every part: E (the row's largest M, in every
	// word of its part), then J, B and C in saturating words.
	if P == 2 {
		VSHUFI64X2(U8(0xb1), xEv, xEv, tmp) // swap the blocks of each half
		VPMAXSW(tmp, xEv, xEv)
	}
	VPSHUFD(U8(0x4e), xEv, tmp)
	VPMAXSW(tmp, xEv, xEv)
	VPSHUFD(U8(0xb1), xEv, tmp)
	VPMAXSW(tmp, xEv, xEv)
	VPSHUFLW(U8(0xb1), xEv, tmp)
	VPSHUFHW(U8(0xb1), tmp, tmp)
	VPMAXSW(tmp, xEv, xEv)
	VPADDSW(cEloop, xEv, tmp)
	VPMAXSW(tmp, xJv, xJv)
	newXB()
	VPADDSW(cEmove, xEv, tmp)
	VPMAXSW(tmp, xCv, xCv)
	// A part whose E reached 32767 overflows (HMMER returns +inf).
	ovm := GP32()
	VPCMPEQW(c32767, xEv, reg.K1)
	KMOVD(reg.K1, ovm)
	TESTL(ovm, ovm)
	JNZ(LabelRef(lbl("ovf")))
	Label(lbl("ovfback"))

	// The lazy-F decision for all parts (the part's lane bounds in each);
	// the passes run for every part when any needs them.
	shiftIn(dcv)
	skp := GP64()
	Load(Param("skip"), skp)
	broadcast(Mem{Base: skp}, tmp)
	VPADDSW(dcv, tmp, tmp)
	s.NotAllGtWJump(xBv, tmp, reg.K1, lbl("lazy"))
	CMPQ(Load(Param("lazyAll"), GP64()), U8(0))
	JNE(LabelRef(lbl("lazy")))
	MOVQ(qnMem, i)
	s.Mov(row(dD), dpv)
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, row(dD))
	JMP(LabelRef(lbl("lazydone")))

	Label(lbl("lazy"))
	MOVQ(qnMem, i)
	Label(lbl("lazycell"))
	s.Mov(row(dD), dpv)
	s.NoneGtWJump(dcv, dpv, reg.K2, lbl("lazydone"))
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, row(dD))
	s.AddsW(dpv, tm(tDD), dcv)
	ADDQ(U8(U), i)
	JNZ(LabelRef(lbl("lazycell")))
	shiftIn(dcv)
	JMP(LabelRef(lbl("lazy")))
	Label(lbl("lazydone"))

	// Next row; a part whose target ended (or overflowed) hands its
	// result back and takes the next job.
	for h := 0; h < P; h++ {
		r := GP64()
		MOVQ(part(h, hRowp), r)
		ADDQ(part(h, hInc), r)
		MOVQ(r, part(h, hRowp))
		CMPQ(r, part(h, hEnd))
		JEQ(LabelRef(lbl("fin%d", h)))
		CMPQ(part(h, hOvf), U8(0))
		JNE(LabelRef(lbl("fin%d", h)))
		Label(lbl("finback%d", h))
	}
	JMP(LabelRef(lbl("row")))

	// Overflow: mark each busy part whose E reached 32767 (a row of an
	// idle part may reach it too: ignored). ovm has a bit per word.
	Label(lbl("ovf"))
	for h := 0; h < P; h++ {
		w := U / 2
		TESTL(U32(uint32((uint64(1)<<w-1)<<(w*h))), ovm)
		JZ(LabelRef(lbl("ovfnext%d", h)))
		CMPQ(part(h, hInc), U8(0))
		JEQ(LabelRef(lbl("ovfnext%d", h)))
		MOVQ(U32(1), part(h, hOvf))
		Label(lbl("ovfnext%d", h))
	}
	JMP(LabelRef(lbl("ovfback")))

	for h := 0; h < P; h++ {
		Label(lbl("fin%d", h))
		job, r := GP64(), GP64()
		MOVQ(part(h, hJob), job)
		switch {
		case h == 0:
			VMOVD(vec.X(xCv), r.As32())
		case P == 4:
			VEXTRACTI32X4(U8(h), xCv, vec.X(tmp))
			VMOVD(vec.X(tmp), r.As32())
		default:
			VEXTRACTI64X4(U8(h), xCv, vec.Y(tmp))
			VMOVD(vec.X(tmp), r.As32())
		}
		MOVWLSX(r.As16(), r.As32())
		MOVL(r.As32(), Mem{Base: job, Disp: jobXC})
		MOVQ(part(h, hOvf), r)
		MOVL(r.As32(), Mem{Base: job, Disp: jobOvf})
		start(h, lbl("refresh%d", h))
		Label(lbl("refresh%d", h))
		newXB()
		JMP(LabelRef(lbl("finback%d", h)))
	}

	Label(lbl("done"))
	VZEROUPPER()
	RET()
}

func log2(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}
