// Command msv generates hmmer3/msvfilter's SSV and MSV kernels for SSE2,
// AVX2 and AVX-512BW (see hmmer3/msvfilter/vector_amd64.go for what they
// compute).
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// maxBand is the most vectors an SSV band keeps in registers: with 16
// registers, 16 less two running maxima, the begin vector and two
// temporaries. AVX-512's 32 registers would hold 27, but a band may not
// be wider than oprofile.SSVExtra+1 (the repeated cost vectors that let
// a wrapping band read one contiguous run), and 16 already spreads the
// per-row scalar work (residue load, stride multiply, loop) over 16
// vectors.
func maxBand(s *vec.ISA) int {
	if s.Z {
		return 16
	}
	return 11
}

// bandReg is the register of a band's vector j and special is the
// register of the band kernel's other values (0: running max, 1: the
// second running max, 2: begin, 3 and 4: temporaries). On AVX-512 the
// other values take Z0-Z4 so that the horizontal max and the splats use
// registers that VEX encodings reach; the band takes Z5 up.
func bandReg(s *vec.ISA, j int) reg.VecPhysical {
	if s.Z {
		return s.R(5 + j)
	}
	return s.R(j)
}

func special(s *vec.ISA, i int) reg.VecPhysical {
	if s.Z {
		return s.R(i)
	}
	return s.R(maxBand(s) + i)
}

func main() {
	for _, s := range []*vec.ISA{vec.SSE, vec.AVX2, vec.AVX512} {
		ssvBand(s)
		msv(s)
	}
	Generate()
}

// ssvBand computes the SSV matrix along the w consecutive striped
// diagonal vectors that start at column s, for every row, keeping them
// in registers, and returns the largest cell (unsigned view, from 128).
//
// Register j holds the diagonals that were in column s+j at row 0. After
// each row every register moves one column right; a register leaving
// column Q-1 is shifted up one lane (taking the begin value -128 into
// lane 0) and continues at column 0. colp points at the cost vector of
// register 0's column for the current row, unwrapped: register j reads
// colp + j vectors, which may run past column Q-1 into the repeated
// vectors that follow every row of costs.
//
// The rows come in periods of Q: first rows where no register wraps
// ("plain", a counted loop), then w rows where registers w-1, w-2, .., 0
// wrap in turn (unrolled, with constant offsets). Only the last, partial
// period checks the sequence end row by row. Two running maxima halve
// the max chain's latency.
func ssvBand(s *vec.ISA) {
	V := s.Bytes
	maxBand := maxBand(s)
	TEXT("ssvBand"+s.Name, NOSPLIT, "func(dsq *byte, n int, sbv *byte, stride int, q int, col int, w int) uint8")
	Pragma("noescape")
	Doc(fmt.Sprintf("ssvBand%s runs SSV over w (1..%d) striped columns from col on; see ssvBand in the generator.", s.Name, maxBand))
	rowp := Load(Param("dsq"), GP64())
	end := Load(Param("n"), GP64())
	ADDQ(rowp, end)
	sbv := Load(Param("sbv"), GP64())
	stride := Load(Param("stride"), GP64())
	qv := Load(Param("q"), GP64())
	w := Load(Param("w"), GP64())
	colp := Load(Param("col"), GP64())
	SHLQ(U8(log2(V)), colp)
	ADDQ(sbv, colp)
	limA := GP64() // sbv + (q-w)*V: from there on some register sits in column Q-1
	MOVQ(qv, limA)
	SUBQ(w, limA)
	SHLQ(U8(log2(V)), limA)
	ADDQ(sbv, limA)
	SHLQ(U8(log2(V)), qv)

	xE, xE2, begin, tmp, pair := special(s, 0), special(s, 1), special(s, 2), special(s, 3), special(s, 4)
	t := GP32()
	MOVL(U32(0x80808080), t)
	s.Splat32(t, begin)
	s.Mov(begin, xE)
	s.Mov(begin, xE2)
	var fill = begin
	if !s.AVX {
		// SSE shifts in zero and ORs the begin byte into lane 0 only.
		MOVL(U32(0x80), t)
		MOVQ(t.As64(), tmp)
		fill = tmp
	}
	for k := 1; k <= maxBand; k++ {
		CMPQ(w, U8(k))
		JEQ(LabelRef(s.Label("band%d", k)))
	}
	JMP(LabelRef(s.Label("done")))

	x, cnt, r := GP64(), GP64(), GP64()
	// step advances every register one row: row rowp+dr, costs colp+dc.
	step := func(k, dr, dc int) {
		MOVBQZX(Mem{Base: rowp, Disp: dr}, x)
		IMULQ(stride, x)
		for j := 0; j < k; j++ {
			s.SubsB(bandReg(s, j), Mem{Base: colp, Index: x, Scale: 1, Disp: dc + j*V}, bandReg(s, j))
		}
		// Fold pairs first so that each running maximum takes one max
		// per two registers.
		for j := 0; j < k; j += 2 {
			acc := xE
			if (j/2)%2 == 1 {
				acc = xE2
			}
			if j+1 < k {
				s.MaxuB(bandReg(s, j), bandReg(s, j+1), pair)
				s.MaxuB(acc, pair, acc)
			} else {
				s.MaxuB(acc, bandReg(s, j), acc)
			}
		}
	}
	for k := 1; k <= maxBand; k++ {
		Label(s.Label("band%d", k))
		for j := 0; j < k; j++ {
			s.Mov(begin, bandReg(s, j))
		}
		Label(s.Label("plain%d", k))
		// cnt = min((limA-colp)/V, end-rowp) rows without a wrap.
		MOVQ(limA, cnt)
		SUBQ(colp, cnt)
		SARQ(U8(log2(V)), cnt)
		MOVQ(end, r)
		SUBQ(rowp, r)
		CMPQ(r, cnt)
		CMOVQLT(r, cnt)
		TESTQ(cnt, cnt)
		JLE(LabelRef(s.Label("wrap%d", k)))
		Label(s.Label("plainrow%d", k))
		step(k, 0, 0)
		INCQ(rowp)
		ADDQ(U8(V), colp)
		DECQ(cnt)
		JNZ(LabelRef(s.Label("plainrow%d", k)))

		// The next k rows each wrap one register, the last one first.
		Label(s.Label("wrap%d", k))
		MOVQ(end, r)
		SUBQ(rowp, r)
		CMPQ(r, U8(k))
		JL(LabelRef(s.Label("tail%d", k)))
		for tt := 0; tt < k; tt++ {
			step(k, tt, tt*V)
			s.ShiftInB(bandReg(s, k-1-tt), fill, tmp, 1)
		}
		ADDQ(U8(k), rowp)
		ADDQ(U32(k*V), colp)
		SUBQ(qv, colp)
		// With w == Q every row wraps a register: straight to the next block.
		CMPQ(colp, limA)
		JAE(LabelRef(s.Label("wrap%d", k)))
		JMP(LabelRef(s.Label("plain%d", k)))

		// Fewer than k rows left: the same rows, checking the end.
		Label(s.Label("tail%d", k))
		for tt := 0; tt < k; tt++ {
			CMPQ(rowp, end)
			JAE(LabelRef(s.Label("done")))
			step(k, 0, 0)
			s.ShiftInB(bandReg(s, k-1-tt), fill, tmp, 1)
			INCQ(rowp)
			ADDQ(U8(V), colp)
		}
		JMP(LabelRef(s.Label("done")))
	}
	Label(s.Label("done"))
	s.MaxuB(xE, xE2, xE)
	rr := GP32()
	s.HMaxUB(xE, tmp, rr)
	Store(rr.As8(), ReturnIndex(0))
	if s.AVX {
		VZEROUPPER()
	}
	RET()
}

// msv is HMMER's MSV filter row by row in the striped layout: per row,
// M(i,q) = ((max(M(i-1,q-1), xB) +sat bias) -sat cost), the row's largest
// cell gives E, and the specials (J, B) are updated in scalar registers.
// It returns J's final value, or overflow when a row's E reaches
// 255-bias (HMMER then reports an infinite score).
func msv(s *vec.ISA) {
	V := s.Bytes
	TEXT("msv"+s.Name, NOSPLIT, "func(dsq *byte, n int, rbv *byte, stride int, q int, dp *byte, bias, base, tjbm, tec int) (xJ int, overflow bool)")
	Pragma("noescape")
	Doc(fmt.Sprintf("msv%s runs the MSV filter over dsq[0:n]; dp is scratch for q vectors.", s.Name))
	rowp := Load(Param("dsq"), GP64())
	end := Load(Param("n"), GP64())
	ADDQ(rowp, end)
	rbv := Load(Param("rbv"), GP64())
	stride := Load(Param("stride"), GP64())
	dp := Load(Param("dp"), GP64())
	dpEnd := Load(Param("q"), GP64())
	SHLQ(U8(log2(V)), dpEnd)
	ADDQ(dp, dpEnd)
	bias := Load(Param("bias"), GP64())
	base := Load(Param("base"), GP64())
	tjbm := Load(Param("tjbm"), GP64())
	tec := Load(Param("tec"), GP64())

	biasv, xBv, xEv, mpv, sv, tmp := s.R(0), s.R(1), s.R(2), s.R(3), s.R(4), s.R(5)
	zero := GP64()
	XORQ(zero, zero)
	t := GP64()
	MOVQ(bias, t)
	s.SplatB(t.As32(), biasv)

	// dp[q] = 0 for every q.
	s.Zero(sv)
	p := GP64()
	MOVQ(dp, p)
	Label(s.Label("clear"))
	s.Mov(sv, Mem{Base: p})
	ADDQ(U8(V), p)
	CMPQ(p, dpEnd)
	JB(LabelRef(s.Label("clear")))

	xJ := GP64()
	XORQ(xJ, xJ)
	xB := GP64()
	MOVQ(base, xB)
	SUBQ(tjbm, xB)
	CMOVQLT(zero, xB)
	MOVQ(xB, t)
	s.SplatB(t.As32(), xBv)

	rsc := GP64()
	CMPQ(rowp, end)
	JAE(LabelRef(s.Label("finish")))
	Label(s.Label("row"))
	MOVBQZX(Mem{Base: rowp}, rsc)
	IMULQ(stride, rsc)
	ADDQ(rbv, rsc)
	s.Zero(xEv)
	s.Mov(Mem{Base: dpEnd, Disp: -V}, mpv)
	s.ShiftInB(mpv, nil, tmp, 1)
	MOVQ(dp, p)
	Label(s.Label("cell"))
	s.MaxuB(mpv, xBv, sv)
	s.AddusB(sv, biasv, sv)
	s.SubusB(sv, Mem{Base: rsc}, sv)
	s.MaxuB(xEv, sv, xEv)
	s.Mov(Mem{Base: p}, mpv)
	s.Mov(sv, Mem{Base: p})
	ADDQ(U8(V), rsc)
	ADDQ(U8(V), p)
	CMPQ(p, dpEnd)
	JB(LabelRef(s.Label("cell")))

	xE := GP64()
	s.HMaxUB(xEv, tmp, xE.As32())
	MOVQ(xE, t)
	ADDQ(bias, t)
	CMPQ(t, U32(255))
	JAE(LabelRef(s.Label("overflow")))
	SUBQ(tec, xE) // E -sat tec
	CMOVQLT(zero, xE)
	CMPQ(xE, xJ) // J = max(J, E)
	CMOVQGT(xE, xJ)
	MOVQ(base, xB) // B = max(base, J) -sat tjbm
	CMPQ(xJ, xB)
	CMOVQGT(xJ, xB)
	SUBQ(tjbm, xB)
	CMOVQLT(zero, xB)
	MOVQ(xB, t)
	s.SplatB(t.As32(), xBv)
	INCQ(rowp)
	CMPQ(rowp, end)
	JB(LabelRef(s.Label("row")))

	Label(s.Label("finish"))
	Store(xJ, Return("xJ"))
	MOVB(U8(0), t.As8())
	Store(t.As8(), Return("overflow"))
	if s.AVX {
		VZEROUPPER()
	}
	RET()
	Label(s.Label("overflow"))
	Store(zero, Return("xJ"))
	MOVB(U8(1), t.As8())
	Store(t.As8(), Return("overflow"))
	if s.AVX {
		VZEROUPPER()
	}
	RET()
}

func log2(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}
