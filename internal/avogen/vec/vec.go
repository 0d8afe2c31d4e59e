// Package vec lets one generator body emit both the SSE2 and the AVX2
// form of a kernel: every operation is written "dst = op(a, b)" and each
// ISA spells it in its own encoding (SSE's two-operand forms get a move
// first when dst is not a).
package vec

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// ISA is one instruction set's spelling of the vector operations.
type ISA struct {
	Name  string // "SSE" or "AVX2": the suffix of generated functions
	Bytes int    // bytes per vector
	AVX   bool
}

var (
	SSE  = &ISA{Name: "SSE", Bytes: 16}
	AVX2 = &ISA{Name: "AVX2", Bytes: 32, AVX: true}
)

// R returns physical vector register i (X or Y).
func (s *ISA) R(i int) reg.VecPhysical {
	xs := []reg.VecPhysical{reg.X0, reg.X1, reg.X2, reg.X3, reg.X4, reg.X5, reg.X6, reg.X7, reg.X8, reg.X9, reg.X10, reg.X11, reg.X12, reg.X13, reg.X14, reg.X15}
	ys := []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}
	if s.AVX {
		return ys[i]
	}
	return xs[i]
}

// X returns the 128-bit register of v.
func X(v reg.VecPhysical) reg.VecPhysical { return v.AsX().(reg.VecPhysical) }

// Mov is an unaligned load, store or register move.
func (s *ISA) Mov(src, dst Op) {
	if s.AVX {
		VMOVDQU(src, dst)
	} else {
		MOVOU(src, dst)
	}
}

// MovPS moves four or eight floats.
func (s *ISA) MovPS(src, dst Op) {
	if s.AVX {
		VMOVUPS(src, dst)
	} else {
		MOVUPS(src, dst)
	}
}

type op2 func(src, dst Op)
type op3 func(ops ...Op)

// three emits dst = f(a, b) (a is the first operand in Intel order).
func (s *ISA) three(sse op2, avx op3, a, b, dst Op) {
	if s.AVX {
		avx(b, a, dst)
		return
	}
	if dst == b && dst != a {
		panic("vec: dst may be the first operand, not only the second")
	}
	if dst != a {
		if IsMem(a) {
			panic("vec: SSE form needs a register first operand")
		}
		MOVOU(a, dst)
	}
	sse(b, dst)
}

func (s *ISA) SubsB(a, b, dst Op)  { s.three(PSUBSB, VPSUBSB, a, b, dst) }
func (s *ISA) AddusB(a, b, dst Op) { s.three(PADDUSB, VPADDUSB, a, b, dst) }
func (s *ISA) SubusB(a, b, dst Op) { s.three(PSUBUSB, VPSUBUSB, a, b, dst) }
func (s *ISA) MaxuB(a, b, dst Op)  { s.three(PMAXUB, VPMAXUB, a, b, dst) }
func (s *ISA) AddsW(a, b, dst Op)  { s.three(PADDSW, VPADDSW, a, b, dst) }
func (s *ISA) MaxsW(a, b, dst Op)  { s.three(PMAXSW, VPMAXSW, a, b, dst) }
func (s *ISA) CmpgtW(a, b, dst Op) { s.three(PCMPGTW, VPCMPGTW, a, b, dst) }
func (s *ISA) Or(a, b, dst Op)     { s.three(POR, func(o ...Op) { VPOR(o[0], o[1], o[2]) }, a, b, dst) }
func (s *ISA) Xor(a, b, dst Op)    { s.three(PXOR, func(o ...Op) { VPXOR(o[0], o[1], o[2]) }, a, b, dst) }
func (s *ISA) AddPS(a, b, dst Op) {
	s.three(ADDPS, func(o ...Op) { VADDPS(o[0], o[1], o[2]) }, a, b, dst)
}
func (s *ISA) MulPS(a, b, dst Op) {
	s.three(MULPS, func(o ...Op) { VMULPS(o[0], o[1], o[2]) }, a, b, dst)
}

// Zero clears v.
func (s *ISA) Zero(v Op) { s.Xor(v, v, v) }

// MoveMask sets r to the byte sign mask of v.
func (s *ISA) MoveMask(v Op, r reg.Register) {
	if s.AVX {
		VPMOVMSKB(v, r)
	} else {
		PMOVMSKB(v, r)
	}
}

// Splat32 broadcasts the low 32 bits of GP register r into every dword of v.
func (s *ISA) Splat32(r reg.Register, v reg.VecPhysical) {
	if s.AVX {
		VMOVD(r, X(v))
		VPBROADCASTD(X(v), v)
	} else {
		MOVQ(r.(reg.GP).As64(), v) // the upper half is ignored
		PSHUFD(U8(0), v, v)
	}
}

// SplatB broadcasts the low byte of r (whose other bits are zero) into
// every byte of v; r is clobbered.
func (s *ISA) SplatB(r reg.Register, v reg.VecPhysical) {
	IMUL3L(U32(0x01010101), r, r)
	s.Splat32(r, v)
}

// SplatW broadcasts the low 16 bits of r (upper bits zero) into every
// word of v; r is clobbered.
func (s *ISA) SplatW(r reg.Register, v reg.VecPhysical) {
	IMUL3L(U32(0x00010001), r, r)
	s.Splat32(r, v)
}

// ShiftInB moves every byte of v up one lane (lane i to i+1 across the
// whole vector); lane 0 gets fill's top byte of its low 128 bits on AVX2,
// or, on SSE, the byte fill has in lane 0 (its other bytes must be zero;
// a nil fill shifts in zero).
func (s *ISA) ShiftInB(v, fill, tmp reg.VecPhysical, by int) {
	if s.AVX {
		if fill == nil {
			VPERM2I128(U8(0x28), v, v, tmp)
		} else {
			// tmp = fill's low half below v's low half. VINSERTI128
			// does in one cycle what VPERM2I128 does in three or four
			// (Zen 3), and this shift is on the SSV and Viterbi
			// filters' critical path.
			VINSERTI128(U8(1), X(v), fill, tmp)
		}
		VPALIGNR(U8(16-by), tmp, v, v)
		return
	}
	PSLLDQ(U8(by), v)
	if fill != nil {
		POR(fill, v)
	}
}

// HMaxUB leaves the largest unsigned byte of v in r (zero-extended); v
// and tmp are clobbered.
func (s *ISA) HMaxUB(v, tmp reg.VecPhysical, r reg.Register) {
	x, t := X(v), X(tmp)
	if s.AVX {
		VEXTRACTI128(U8(1), v, t)
		VPMAXUB(t, x, x)
		for _, n := range []int{8, 4, 2, 1} {
			VPSRLDQ(U8(n), x, t)
			VPMAXUB(t, x, x)
		}
		VMOVD(x, r)
	} else {
		for _, n := range []int{8, 4, 2, 1} {
			MOVOU(x, t)
			PSRLDQ(U8(n), t)
			PMAXUB(t, x)
		}
		MOVQ(x, r.(reg.GP).As64())
	}
	ANDL(U32(0xff), r)
}

// HMaxSW leaves the largest signed word of v in r (sign-extended to 32
// bits); v and tmp are clobbered.
func (s *ISA) HMaxSW(v, tmp reg.VecPhysical, r reg.Register) {
	x, t := X(v), X(tmp)
	if s.AVX {
		VEXTRACTI128(U8(1), v, t)
		VPMAXSW(t, x, x)
		for _, n := range []int{8, 4, 2} {
			VPSRLDQ(U8(n), x, t)
			VPMAXSW(t, x, x)
		}
		VMOVD(x, r)
	} else {
		for _, n := range []int{8, 4, 2} {
			MOVOU(x, t)
			PSRLDQ(U8(n), t)
			PMAXSW(t, x)
		}
		MOVQ(x, r.(reg.GP).As64())
	}
	MOVWLSX(r.(reg.GP).As16(), r)
}

// Label makes labels unique per ISA.
func (s *ISA) Label(format string, args ...any) string {
	return s.Name + "_" + fmt.Sprintf(format, args...)
}
