package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// Layout of hmmer3/vitfilter's kernelJob (checked by a test there).
const (
	jobDsq   = 0
	jobN     = 8
	jobXW    = 16
	jobXC    = 32
	jobOvf   = 36
	jobBytes = 40
)

// Per-half state on the stack: the two targets in flight.
const (
	hRowp = 8 * iota // next residue
	hEnd             // one past the last residue; 0 when idle
	hInc             // 1 while a target is in flight, 0 when idle
	hJob             // the job being scored
	hOvf             // 1 once a row's E reached 32767
	hBytes
)

// vitPair is the Viterbi filter for a list of targets, two at a time:
// target A in the low 128 bits of every YMM register and target B in the
// high 128 bits, each in the 8-lane striped layout (Q = ceil(M/8)).
// Every 256-bit operation then does one SSE step of both targets, and
// the two targets' dependency chains (the specials between rows, the
// horizontal maxima, the lazy-F decision) overlap instead of following
// each other. The lane shifts stay inside each half (VPSLLDQ), so they
// are cheaper than the 16-lane kernel's cross-half shift.
//
// The specials (E, J, C, B; N stays at base) live in vector registers too,
// one word per lane of each half, and are updated with saturating word
// operations: exact when the N, C and J loops are 0, E's loop and move
// and J's move are not positive, and base + N's move is a word (as for
// every profile oprofile.Convert makes, whatever the target length);
// vitfilter falls back to one target at a time otherwise. Then int
// arithmetic never leaves the word range except in a term that the max
// beside it discards: HMMER's int16 stores change nothing. This keeps
// the path from one row's E to the next row's B short and free of
// scalar work.
//
// When a target ends (or overflows) its half records the result in its
// job and starts the next job from the list, resetting only its own half
// of the DP rows and specials; the other target goes on undisturbed.
// With no job left the half idles on a fixed residue, its results
// ignored, until the other target ends too.
//
// tr and rwv are the 8-lane tables of the SSE kernel (oprofile.VitStripes
// for 8 lanes), read 16 bytes at a time.
func vitPair() {
	s := vec.AVX2
	const V = 32 // bytes per YMM vector
	TEXT("vitPairAVX2", NOSPLIT, "func(jobs *byte, njobs int, rwv *int16, rstride int, tr *int16, q int, dp *int16, base int, skip *int16, lazyAll int)")
	Pragma("noescape")
	Doc("vitPairAVX2 scores jobs[0:njobs] (kernelJob) two at a time; dp is scratch for 3q YMM vectors.")

	loc := AllocLocal(2*hBytes + 24 + 5*V)
	half := func(h, f int) Mem { return loc.Offset(h*hBytes + f) }
	next := loc.Offset(2 * hBytes)
	jobsEnd := loc.Offset(2*hBytes + 8)
	qnMem := loc.Offset(2*hBytes + 16)
	// Each half's special-state scores in its 8 words: E loop, E move,
	// J move, base + N move; and 32767 everywhere.
	cEloop, cEmove, cJmove, cNN, c32767 := loc.Offset(2*hBytes+24), loc.Offset(2*hBytes+24+V), loc.Offset(2*hBytes+24+2*V), loc.Offset(2*hBytes+24+3*V), loc.Offset(2*hBytes+24+4*V)

	t, jobs := GP64(), GP64()
	Load(Param("jobs"), jobs)
	Load(Param("njobs"), t)
	IMUL3Q(U32(jobBytes), t, t)
	ADDQ(jobs, t)
	MOVQ(jobs, next)
	MOVQ(t, jobsEnd)

	xBv, xEv, mpv, ipv, dpv, dcv, sv, tmp, tmp2, neg, fill, emis := s.R(0), s.R(1), s.R(2), s.R(3), s.R(4), s.R(5), s.R(6), s.R(7), s.R(8), s.R(9), s.R(11), s.R(12)
	xJv, xCv := s.R(10), s.R(15)
	MOVL(U32(0x8000), t.As32())
	s.SplatW(t.As32(), neg)
	VPCMPEQW(tmp, tmp, tmp)
	VPXOR(neg, tmp, tmp)
	VMOVDQU(tmp, c32767)
	VPXOR(tmp, tmp, tmp)
	for _, c := range []Mem{cEloop, cEmove, cJmove, cNN} {
		VMOVDQU(tmp, c)
	}
	s.Mov(neg, xJv)
	s.Mov(neg, xCv)
	// fill: -32768 in the first word of each half, zero elsewhere.
	MOVL(U32(0x8000), t.As32())
	VMOVD(t.As32(), vec.X(fill))
	VINSERTI128(U8(1), vec.X(fill), fill, fill)

	shiftIn := func(v reg.VecPhysical) {
		VPSLLDQ(U8(2), v, v)
		VPOR(fill, v, v)
	}

	// start puts the next job (if any) into half h, or idles the half;
	// then it jumps to cont. A start that idles the last busy half ends
	// the kernel.
	start := func(h int, cont string) {
		job, r, a, p, pe := GP64(), GP64(), GP64(), GP64(), GP64()
		MOVQ(next, job)
		CMPQ(job, jobsEnd)
		JAE(LabelRef(s.Label("idle%d_%s", h, cont)))
		ADDQ(U8(jobBytes), next)
		MOVQ(job, half(h, hJob))
		MOVQ(Mem{Base: job, Disp: jobDsq}, r)
		MOVQ(r, half(h, hRowp))
		ADDQ(Mem{Base: job, Disp: jobN}, r)
		MOVQ(r, half(h, hEnd))
		MOVQ(U32(1), half(h, hInc))
		MOVQ(U32(0), half(h, hOvf))
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
		blend := U8(0x0f)
		if h == 1 {
			blend = U8(0xf0)
		}
		VPBLENDD(blend, neg, xJv, xJv)
		VPBLENDD(blend, neg, xCv, xCv)
		// This half's M, I and D start at -infinity.
		Load(Param("dp"), p)
		Load(Param("q"), pe)
		IMUL3Q(U32(3*V), pe, pe)
		ADDQ(p, pe)
		Label(s.Label("clear%d_%s", h, cont))
		VMOVDQU(vec.X(neg), Mem{Base: p, Disp: 16 * h})
		ADDQ(U8(V), p)
		CMPQ(p, pe)
		JB(LabelRef(s.Label("clear%d_%s", h, cont)))
		JMP(LabelRef(cont))

		Label(s.Label("idle%d_%s", h, cont))
		// An idle half goes on reading the first job's first residue
		// and special-state scores; its results are ignored.
		Load(Param("jobs"), r)
		MOVQ(r, half(h, hJob))
		MOVQ(Mem{Base: r, Disp: jobDsq}, r)
		MOVQ(r, half(h, hRowp))
		MOVQ(U32(0), half(h, hEnd))
		MOVQ(U32(0), half(h, hInc))
		MOVQ(U32(0), half(h, hOvf))
		MOVQ(half(1-h, hInc), r)
		TESTQ(r, r)
		JZ(LabelRef(s.Label("done")))
		JMP(LabelRef(cont))
	}
	// The cell loop runs an index i from -16Q up to 0 in steps of 16
	// (one 8-lane vector of a table) against base registers that point
	// past the end of their tables: the match scores (16 bytes a vector),
	// the transitions (8 vectors of 16 bytes per q: index*8) and the M, I
	// and D rows of the DP (32 bytes a vector: index*2), so one add and
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
	SHRQ(U8(2), qn) // 32q: one DP row
	dM := Load(Param("dp"), GP64())
	ADDQ(qn, dM)
	dI, dD := GP64(), GP64()
	MOVQ(dM, dI)
	ADDQ(qn, dI)
	MOVQ(dI, dD)
	ADDQ(qn, dD)
	NEGQ(qn)
	SARQ(U8(1), qn) // -16q
	MOVQ(qn, qnMem)
	// xB = max(xJ + J move, xN + N move).
	newXB := func() {
		VPADDSW(cJmove, xJv, xBv)
		VPMAXSW(cNN, xBv, xBv)
	}
	start(0, s.Label("init1"))
	Label(s.Label("init1"))
	start(1, s.Label("init2"))
	Label(s.Label("init2"))
	newXB()

	i, rscA, rscB := GP64(), GP64(), GP64()

	Label(s.Label("row"))
	MOVQ(half(0, hRowp), t)
	MOVBQZX(Mem{Base: t}, rscA)
	IMULQ(rstride, rscA)
	ADDQ(rwv, rscA)
	MOVQ(half(1, hRowp), t)
	MOVBQZX(Mem{Base: t}, rscB)
	IMULQ(rstride, rscB)
	ADDQ(rwv, rscB)
	s.Mov(neg, dcv)
	s.Mov(neg, xEv)
	s.Mov(Mem{Base: dM, Disp: -V}, mpv)
	shiftIn(mpv)
	s.Mov(Mem{Base: dI, Disp: -V}, ipv)
	shiftIn(ipv)
	s.Mov(Mem{Base: dD, Disp: -V}, dpv)
	shiftIn(dpv)
	MOVQ(qnMem, i)

	Label(s.Label("cell"))
	// Both halves use the same transitions: each 8-lane vector is
	// loaded into both halves of a register. (A table holding every
	// vector twice, read as memory operands, was 4% faster for fn3 but
	// 30% slower from M = 800 on, where it no longer fits in L1.)
	tm := func(t int) Op {
		r := s.R(13 + t%2)
		VBROADCASTI128(Mem{Base: tr, Index: i, Scale: 8, Disp: t * 16}, r)
		return r
	}
	row := func(base reg.Register) Mem { return Mem{Base: base, Index: i, Scale: 2} }
	VMOVDQU(Mem{Base: rscA, Index: i, Scale: 1}, vec.X(emis))
	VINSERTI128(U8(1), Mem{Base: rscB, Index: i, Scale: 1}, emis, emis)
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
	JNZ(LabelRef(s.Label("cell")))

	// The specials of both halves: E (the row's largest M, in every
	// word of its half), then J, B and C as in the one-target kernel, in
	// saturating words (see above).
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
	// A half whose E reached 32767 overflows (HMMER returns +inf).
	ovm := GP32()
	VPCMPEQW(c32767, xEv, tmp)
	VPMOVMSKB(tmp, ovm)
	TESTL(ovm, ovm)
	JNZ(LabelRef(s.Label("ovf")))
	Label(s.Label("ovfback"))

	// The lazy-F decision of the one-target kernel for both halves
	// (8-lane bounds in each); the passes run for both halves when
	// either needs them (on a half that does not, they reach the same
	// fixed point and change nothing that the next row reads).
	shiftIn(dcv)
	skp, lmask := GP64(), GP32()
	Load(Param("skip"), skp)
	VBROADCASTI128(Mem{Base: skp}, tmp)
	VPADDSW(dcv, tmp, tmp)
	VPCMPGTW(tmp, xBv, tmp)
	VPMOVMSKB(tmp, lmask)
	INCL(lmask)
	JNZ(LabelRef(s.Label("lazy")))
	CMPQ(Load(Param("lazyAll"), GP64()), U8(0))
	JNE(LabelRef(s.Label("lazy")))
	MOVQ(qnMem, i)
	s.Mov(row(dD), dpv)
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, row(dD))
	JMP(LabelRef(s.Label("lazydone")))

	mask := GP32()
	Label(s.Label("lazy"))
	MOVQ(qnMem, i)
	Label(s.Label("lazycell"))
	s.Mov(row(dD), dpv)
	s.CmpgtW(dcv, dpv, tmp)
	s.MoveMask(tmp, mask)
	TESTL(mask, mask)
	JZ(LabelRef(s.Label("lazydone")))
	s.MaxsW(dpv, dcv, dpv)
	s.Mov(dpv, row(dD))
	s.AddsW(dpv, tm(tDD), dcv)
	ADDQ(U8(16), i)
	JNZ(LabelRef(s.Label("lazycell")))
	shiftIn(dcv)
	JMP(LabelRef(s.Label("lazy")))
	Label(s.Label("lazydone"))

	// Next row; a half whose target ended (or overflowed) hands its
	// result back and takes the next job.
	for h := 0; h < 2; h++ {
		r := GP64()
		MOVQ(half(h, hRowp), r)
		ADDQ(half(h, hInc), r)
		MOVQ(r, half(h, hRowp))
		CMPQ(r, half(h, hEnd))
		JEQ(LabelRef(s.Label("fin%d", h)))
		CMPQ(half(h, hOvf), U8(0))
		JNE(LabelRef(s.Label("fin%d", h)))
		Label(s.Label("finback%d", h))
	}
	JMP(LabelRef(s.Label("row")))

	// Overflow: mark each busy half whose E reached 32767 (a row of an
	// idle half may reach it too: ignored).
	Label(s.Label("ovf"))
	for h := 0; h < 2; h++ {
		TESTL(U32(0xffff<<(16*h)), ovm)
		JZ(LabelRef(s.Label("ovfnext%d", h)))
		CMPQ(half(h, hInc), U8(0))
		JEQ(LabelRef(s.Label("ovfnext%d", h)))
		MOVQ(U32(1), half(h, hOvf))
		Label(s.Label("ovfnext%d", h))
	}
	JMP(LabelRef(s.Label("ovfback")))

	for h := 0; h < 2; h++ {
		Label(s.Label("fin%d", h))
		job, r := GP64(), GP64()
		MOVQ(half(h, hJob), job)
		if h == 0 {
			VMOVD(vec.X(xCv), r.As32())
		} else {
			VEXTRACTI128(U8(1), xCv, vec.X(tmp))
			VMOVD(vec.X(tmp), r.As32())
		}
		MOVWLSX(r.As16(), r.As32())
		MOVL(r.As32(), Mem{Base: job, Disp: jobXC})
		MOVQ(half(h, hOvf), r)
		MOVL(r.As32(), Mem{Base: job, Disp: jobOvf})
		start(h, s.Label("refresh%d", h))
		Label(s.Label("refresh%d", h))
		newXB()
		JMP(LabelRef(s.Label("finback%d", h)))
	}

	Label(s.Label("done"))
	VZEROUPPER()
	RET()
}
