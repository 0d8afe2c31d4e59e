package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// quadParts is how many targets vitQuad aligns at once: one per 128-bit
// block of a ZMM register.
const quadParts = 4

// vitQuad is vitPair on AVX-512BW with four targets in flight: target h
// in 128-bit block h of every ZMM register, each in the 8-lane striped
// layout, so every 512-bit operation does one SSE step of four targets.
// Everything else is vitPair's: the shared transition vectors
// (VBROADCASTI32X4 of the 8-lane table), lane shifts inside each block
// (VPSLLDQ), the specials in saturating words (wordSpecials), the lazy-F
// decision with the 8-lane bounds in every block, and a job list from
// which a block that finishes takes its next target. The compares that
// AVX2 reads with VPMOVMSKB write opmask registers here.
//
// The four match-score vectors of a cell come from four places (one row
// of the table per target's residue) and are assembled with three
// VINSERTI32X4; the transitions cost one broadcast load each.
func vitQuad() {
	s := vec.AVX512
	const V = 64 // bytes per ZMM vector
	const P = quadParts
	TEXT("vitQuadAVX512", NOSPLIT, "func(jobs *byte, njobs int, rwv *int16, rstride int, tr *int16, q int, dp *int16, base int, skip *int16, lazyAll int)")
	Pragma("noescape")
	Doc("vitQuadAVX512 scores jobs[0:njobs] (kernelJob) four at a time; dp is scratch for 3q ZMM vectors.")

	loc := AllocLocal(P*hBytes + 24 + 5*V)
	part := func(h, f int) Mem { return loc.Offset(h*hBytes + f) }
	next := loc.Offset(P * hBytes)
	jobsEnd := loc.Offset(P*hBytes + 8)
	qnMem := loc.Offset(P*hBytes + 16)
	// Each block's special-state scores in its 8 words: E loop, E move,
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
	// No block is busy yet (an idle start looks at the others).
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
	// fill: -32768 in the first word of each block, zero elsewhere.
	MOVL(U32(0x8000), t.As32())
	VMOVD(t.As32(), vec.X(fill))
	VSHUFI32X4(U8(0), fill, fill, fill)

	shiftIn := func(v reg.VecPhysical) {
		VPSLLDQ(U8(2), v, v)
		VPORD(fill, v, v)
	}

	// start puts the next job (if any) into block h, or idles the block;
	// then it jumps to cont. A start that idles the last busy block ends
	// the kernel.
	start := func(h int, cont string) {
		job, r, a, p, pe := GP64(), GP64(), GP64(), GP64(), GP64()
		MOVQ(next, job)
		CMPQ(job, jobsEnd)
		JAE(LabelRef(s.Label("qidle%d_%s", h, cont)))
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
			VPBROADCASTW(vec.X(tmp), vec.X(tmp))
			VMOVDQU(vec.X(tmp), c.mem.Offset(16*h))
		}
		MOVL(U32(0xf<<(4*h)), a.As32()) // block h's four dwords
		KMOVW(a.As32(), reg.K3)
		VMOVDQU32(neg, reg.K3, xJv)
		VMOVDQU32(neg, reg.K3, xCv)
		// This block's M, I and D start at -infinity.
		Load(Param("dp"), p)
		Load(Param("q"), pe)
		IMUL3Q(U32(3*V), pe, pe)
		ADDQ(p, pe)
		Label(s.Label("qclear%d_%s", h, cont))
		VMOVDQU(vec.X(neg), Mem{Base: p, Disp: 16 * h})
		ADDQ(U8(V), p)
		CMPQ(p, pe)
		JB(LabelRef(s.Label("qclear%d_%s", h, cont)))
		JMP(LabelRef(cont))

		Label(s.Label("qidle%d_%s", h, cont))
		// An idle block goes on reading the first job's first residue
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
		JMP(LabelRef(s.Label("qdone")))
	}
	// The cell loop runs an index i from -16Q up to 0 in steps of 16
	// (one 8-lane vector of a table) against base registers that point
	// past the end of their tables: the match scores (16 bytes a vector),
	// the transitions (8 vectors of 16 bytes per q: index*8) and the M, I
	// and D rows of the DP (64 bytes a vector: index*4), so one add and
	// one branch advance every pointer.
	qn := GP64()
	Load(Param("q"), qn)
	SHLQ(U8(4), qn)
	rwv := Load(Param("rwv"), GP64())
	ADDQ(qn, rwv)
	rstride := Load(Param("rstride"), GP64())
	tr := Load(Param("tr"), GP64())
	SHLQ(U8(3), qn)
	ADDQ(qn, tr)
	SHRQ(U8(1), qn) // 64q: one DP row
	dM := Load(Param("dp"), GP64())
	ADDQ(qn, dM)
	dI, dD := GP64(), GP64()
	MOVQ(dM, dI)
	ADDQ(qn, dI)
	MOVQ(dI, dD)
	ADDQ(qn, dD)
	NEGQ(qn)
	SARQ(U8(2), qn) // -16q
	MOVQ(qn, qnMem)
	// xB = max(xJ + J move, xN + N move).
	newXB := func() {
		VPADDSW(cJmove, xJv, xBv)
		VPMAXSW(cNN, xBv, xBv)
	}
	for h := 0; h < P; h++ {
		start(h, s.Label("qinit%d", h+1))
		Label(s.Label("qinit%d", h+1))
	}
	newXB()

	i := GP64()
	var rsc [P]reg.GPVirtual
	for h := range rsc {
		rsc[h] = GP64()
	}

	Label(s.Label("qrow"))
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

	Label(s.Label("qcell"))
	tm := func(t int) Op {
		r := s.R(13 + t%2)
		VBROADCASTI32X4(Mem{Base: tr, Index: i, Scale: 8, Disp: t * 16}, r)
		return r
	}
	row := func(base reg.Register) Mem { return Mem{Base: base, Index: i, Scale: 4} }
	VMOVDQU(Mem{Base: rsc[0], Index: i, Scale: 1}, vec.X(emis))
	for h := 1; h < P; h++ {
		VINSERTI32X4(U8(h), Mem{Base: rsc[h], Index: i, Scale: 1}, emis, emis)
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
	ADDQ(U8(16), i)
	JNZ(LabelRef(s.Label("qcell")))

	// The specials of every block: E (the row's largest M, in every
	// word of its block), then J, B and C in saturating words.
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
	// A block whose E reached 32767 overflows (HMMER returns +inf).
	ovm := GP32()
	VPCMPEQW(c32767, xEv, reg.K1)
	KMOVD(reg.K1, ovm)
	TESTL(ovm, ovm)
	JNZ(LabelRef(s.Label("qovf")))
	Label(s.Label("qovfback"))

	// The lazy-F decision for all blocks (8-lane bounds in each); the
	// passes run for every block when any needs them.
	shiftIn(dcv)
	skp := GP64()
	Load(Param("skip"), skp)
	VBROADCASTI32X4(Mem{Base: skp}, tmp)
	VPADDSW(dcv, tmp, tmp)
	s.NotAllGtWJump(xBv, tmp, reg.K1, s.Label("qlazy"))
	CMPQ(Load(Param("lazyAll"), GP64()), U8(0))
	JNE(LabelRef(s.Label("qlazy")))
	MOVQ(qnMem, i)
	s.Mov(row(dD), dpv)
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, row(dD))
	JMP(LabelRef(s.Label("qlazydone")))

	Label(s.Label("qlazy"))
	MOVQ(qnMem, i)
	Label(s.Label("qlazycell"))
	s.Mov(row(dD), dpv)
	s.NoneGtWJump(dcv, dpv, reg.K2, s.Label("qlazydone"))
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, row(dD))
	s.AddsW(dpv, tm(tDD), dcv)
	ADDQ(U8(16), i)
	JNZ(LabelRef(s.Label("qlazycell")))
	shiftIn(dcv)
	JMP(LabelRef(s.Label("qlazy")))
	Label(s.Label("qlazydone"))

	// Next row; a block whose target ended (or overflowed) hands its
	// result back and takes the next job.
	for h := 0; h < P; h++ {
		r := GP64()
		MOVQ(part(h, hRowp), r)
		ADDQ(part(h, hInc), r)
		MOVQ(r, part(h, hRowp))
		CMPQ(r, part(h, hEnd))
		JEQ(LabelRef(s.Label("qfin%d", h)))
		CMPQ(part(h, hOvf), U8(0))
		JNE(LabelRef(s.Label("qfin%d", h)))
		Label(s.Label("qfinback%d", h))
	}
	JMP(LabelRef(s.Label("qrow")))

	// Overflow: mark each busy block whose E reached 32767 (a row of an
	// idle block may reach it too: ignored). ovm has a bit per word.
	Label(s.Label("qovf"))
	for h := 0; h < P; h++ {
		TESTL(U32(0xff<<(8*h)), ovm)
		JZ(LabelRef(s.Label("qovfnext%d", h)))
		CMPQ(part(h, hInc), U8(0))
		JEQ(LabelRef(s.Label("qovfnext%d", h)))
		MOVQ(U32(1), part(h, hOvf))
		Label(s.Label("qovfnext%d", h))
	}
	JMP(LabelRef(s.Label("qovfback")))

	for h := 0; h < P; h++ {
		Label(s.Label("qfin%d", h))
		job, r := GP64(), GP64()
		MOVQ(part(h, hJob), job)
		if h == 0 {
			VMOVD(vec.X(xCv), r.As32())
		} else {
			VEXTRACTI32X4(U8(h), xCv, vec.X(tmp))
			VMOVD(vec.X(tmp), r.As32())
		}
		MOVWLSX(r.As16(), r.As32())
		MOVL(r.As32(), Mem{Base: job, Disp: jobXC})
		MOVQ(part(h, hOvf), r)
		MOVL(r.As32(), Mem{Base: job, Disp: jobOvf})
		start(h, s.Label("qrefresh%d", h))
		Label(s.Label("qrefresh%d", h))
		newXB()
		JMP(LabelRef(s.Label("qfinback%d", h)))
	}

	Label(s.Label("qdone"))
	VZEROUPPER()
	RET()
}
