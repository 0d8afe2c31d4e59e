// Package vec lets one generator body emit the SSE2, AVX2 and AVX-512
// forms of a kernel: every operation is written "dst = op(a, b)" and each
// ISA spells it in its own encoding (SSE's two-operand forms get a move
// first when dst is not a; AVX-512 uses the EVEX forms on ZMM registers).
package vec

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// ISA is one instruction set's spelling of the vector operations.
type ISA struct {
	Name  string // "SSE", "AVX2" or "AVX512": the suffix of generated functions
	Bytes int    // bytes per vector
	AVX   bool   // VEX or EVEX three-operand forms
	Z     bool   // AVX-512 (F, BW): ZMM registers, opmask compares
	Regs  int    // vector registers
}

var (
	SSE    = &ISA{Name: "SSE", Bytes: 16, Regs: 16}
	AVX2   = &ISA{Name: "AVX2", Bytes: 32, AVX: true, Regs: 16}
	AVX512 = &ISA{Name: "AVX512", Bytes: 64, AVX: true, Z: true, Regs: 32}
)

// R returns physical vector register i (X, Y or Z).
func (s *ISA) R(i int) reg.VecPhysical {
	xs := []reg.VecPhysical{reg.X0, reg.X1, reg.X2, reg.X3, reg.X4, reg.X5, reg.X6, reg.X7, reg.X8, reg.X9, reg.X10, reg.X11, reg.X12, reg.X13, reg.X14, reg.X15}
	ys := []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}
	zs := []reg.VecPhysical{reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7, reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
		reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23, reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31}
	switch {
	case s.Z:
		return zs[i]
	case s.AVX:
		return ys[i]
	}
	return xs[i]
}

// Y returns the 256-bit register of v.
func Y(v reg.VecPhysical) reg.VecPhysical { return v.AsY().(reg.VecPhysical) }

// X returns the 128-bit register of v.
func X(v reg.VecPhysical) reg.VecPhysical { return v.AsX().(reg.VecPhysical) }

// Mov is an unaligned load, store or register move.
func (s *ISA) Mov(src, dst Op) {
	if s.Z {
		VMOVDQU64(src, dst)
		return
	}
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
func (s *ISA) CmpgtW(a, b, dst Op) {
	if s.Z {
		panic("vec: AVX-512 compares write opmasks: use NotAllGtWJump or NoneGtWJump")
	}
	s.three(PCMPGTW, VPCMPGTW, a, b, dst)
}
func (s *ISA) Or(a, b, dst Op) {
	if s.Z {
		VPORD(b, a, dst)
		return
	}
	s.three(POR, func(o ...Op) { VPOR(o[0], o[1], o[2]) }, a, b, dst)
}
func (s *ISA) Xor(a, b, dst Op) {
	if s.Z {
		VPXORD(b, a, dst)
		return
	}
	s.three(PXOR, func(o ...Op) { VPXOR(o[0], o[1], o[2]) }, a, b, dst)
}
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
	if s.Z {
		panic("vec: no VPMOVMSKB on ZMM")
	}
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
//
// On AVX-512 lane 0 gets fill's top byte (of all 512 bits): VALIGND
// moves v's 128-bit blocks up one block, fill's top block entering block
// 0, and VPALIGNR then takes each block's bytes from its predecessor, as
// on AVX2 (only AVX-512F and BW; VPERMB would need VBMI).
func (s *ISA) ShiftInB(v, fill, tmp reg.VecPhysical, by int) {
	if s.Z {
		if fill == nil {
			VPXORD(tmp, tmp, tmp)
			fill = tmp
		}
		VALIGND(U8(12), fill, v, tmp)
		VPALIGNR(U8(16-by), tmp, v, v)
		return
	}
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
	if s.Z {
		VEXTRACTI64X4(U8(1), v, Y(tmp))
		VPMAXUB(Y(tmp), Y(v), Y(v))
		v, tmp = Y(v), Y(tmp)
	}
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
	if s.Z {
		VEXTRACTI64X4(U8(1), v, Y(tmp))
		VPMAXSW(Y(tmp), Y(v), Y(v))
		v, tmp = Y(v), Y(tmp)
	}
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

// NotAllGtWJump sets opmask k to the word lanes where a > b (signed)
// and jumps to label unless every lane is set (AVX-512: VPCMPGTW into an
// opmask, KORTESTD's carry). Other ISAs use CmpgtW and MoveMask.
func (s *ISA) NotAllGtWJump(a, b Op, k reg.Register, label string) {
	VPCMPGTW(b, a, k)
	KORTESTD(k, k)
	JCC(LabelRef(label))
}

// NoneGtWJump sets opmask k to the word lanes where a > b (signed) and
// jumps to label when no lane is set (AVX-512).
func (s *ISA) NoneGtWJump(a, b Op, k reg.Register, label string) {
	VPCMPGTW(b, a, k)
	KORTESTD(k, k)
	JZ(LabelRef(label))
}

// Label makes labels unique per ISA.
func (s *ISA) Label(format string, args ...any) string {
	return s.Name + "_" + fmt.Sprintf(format, args...)
}
