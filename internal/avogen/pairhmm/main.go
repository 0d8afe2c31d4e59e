// Command pairhmm generates pairhmm's float-pass kernels: GATK's pair-HMM
// forward recurrence for one read per float lane (8 with AVX2, 16 with
// AVX-512F) against one haplotype. Per lane and cell they perform exactly
// the operations of forwardFloat() in pairhmm/forward.go, each product
// rounded on its own (no fused multiply-add), with MXCSR's flush-to-zero
// bit set for their duration as GKL sets it, so every lane gives the Go
// kernel's float to the bit.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/hmmgo/hmmgo/internal/avogen/vec"
)

// A lane row (one read position of every lane, pairhmm's lane layout) is
// ten vectors: mm, gapm, mx, gcp, my, then the emission priors of
// haplotype codes 0..4.
const (
	fMM = iota
	fGapM
	fMX
	fGCP
	fMY
	fEmis
	rowVectors = fEmis + 5
)

// maxStrip is the most rows one strip keeps in registers: a strip of k
// rows uses k+2 register triples (M, X, Y) and one temporary, 3k+7 vector
// registers, of AVX2's 16 and AVX-512's 32.
func maxStrip(s *vec.ISA) int { return (s.Regs - 7) / 3 }

func main() {
	for _, s := range []*vec.ISA{vec.AVX2, vec.AVX512} {
		stripPass(s, false)
		sumRow(s)
	}
	// The fused arithmetic (pairhmm.ArithFused): the same code with
	// VFMADD231PS in place of a product and a sum.
	stripPass(vec.AVX2, true)
	stripPass(vec.AVX512, true)
	mxcsr()
	Generate()
}

// stripPass writes stripPass<ISA>(lanes, rows, hap, h, src, dst).
//
// It computes rows (1..maxStrip) consecutive DP rows of a lane batch,
// starting at lane row lanes, against hap[0:h]. src holds the row above
// the strip and dst receives the strip's last row; each is three arrays
// (M, X, Y) of h+1 vectors, one after the other, interleaved by lane.
// The rows in between live only in registers: one sweep along the
// haplotype computes every strip row's cell of a column, top to bottom.
// So the DP rows go through memory once per strip rather than once per
// row, and the strip's deletion chains (Y from the left, the one serial
// dependency along a row) are independent and overlap.
//
// fused selects pairhmm's fused arithmetic (fused.go defines it):
// M = fma(dX + dY, gapm, dM*mm) * prior, X = fma(uM, mx, uX*gcp),
// Y = fma(lM, my, lY*gcp), VFMADD231PS rounding once, flushed by FTZ as
// the products are.
func stripPass(s *vec.ISA, fused bool) {
	name := "stripPass" + s.Name
	if fused {
		name = "stripPassFused" + s.Name
	}
	TEXT(name, NOSPLIT, "func(lanes *float32, rows int, hap *uint8, h int, src, dst *float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s computes rows (1..%d) DP rows of %d reads, one per float lane, in one sweep over hap[0:h]: src holds the row above, dst receives the last row.", name, maxStrip(s), s.Bytes/4))
	slot := vec.SetMXCSR(vec.FTZ) // as GKL runs its kernels
	lanes := Load(Param("lanes"), GP64())
	rows := Load(Param("rows"), GP64())
	for k := maxStrip(s); k >= 1; k-- {
		if k > 1 {
			CMPQ(rows, U8(k))
			JNE(LabelRef(s.Label("strip%d_not", k)))
		}
		strip(s, k, lanes, slot, fused)
		if k > 1 {
			Label(s.Label("strip%d_not", k))
		}
	}
}

// strip emits the sweep of a strip of k rows, ending in RET.
//
// Registers: k+2 triples. At the start of a column, P[r] (row r's values
// in the column to the left) is in triple base+r (mod k+2) and two
// triples are free. Row r's new values N[r] need P[r-1] (diagonal), N[r-1]
// (above) and P[r] (left), so N[0] and N[1] go to the two free triples
// and N[r], r >= 2, to P[r-2]'s, which row r-1 was the last to read. The
// next column then finds P[r] in triple base+k+r: the assignment turns by
// k each column, and the loop is unrolled until it comes round. Row 0's
// diagonal and above come from src directly.
func strip(s *vec.ISA, k int, lanes reg.Register, mxcsr Mem, fused bool) {
	vb := s.Bytes
	hp := Load(Param("hap"), GP64())
	cnt := Load(Param("h"), GP64())
	src := Load(Param("src"), GP64())
	dst := Load(Param("dst"), GP64())
	// The X and Y arrays follow M at (h+1) vectors each.
	stride := GP64()
	MOVQ(cnt, stride)
	INCQ(stride)
	SHLQ(U8(log2(vb)), stride)
	var in, out [3]reg.Register
	in[0], out[0] = src, dst
	for i := 1; i < 3; i++ {
		in[i], out[i] = GP64(), GP64()
		LEAQ(Mem{Base: in[i-1], Index: stride, Scale: 1}, in[i])
		LEAQ(Mem{Base: out[i-1], Index: stride, Scale: 1}, out[i])
	}
	off, code := GP64(), GP64()
	field := func(r, f int) Mem { return Mem{Base: lanes, Disp: (r*rowVectors + f) * vb} }
	n := k + 2
	triple := func(t int) [3]reg.VecPhysical {
		t %= n
		return [3]reg.VecPhysical{s.R(3 * t), s.R(3*t + 1), s.R(3*t + 2)}
	}
	tmp := s.R(3 * n)

	// Column 0 of every row computed here is zero; so are the strip
	// rows' values to the left of column 1.
	for t := 0; t < k; t++ {
		for _, v := range triple(t) {
			s.Zero(v)
		}
	}
	for i := range 3 {
		s.MovPS(triple(0)[0], Mem{Base: out[i]})
	}
	MOVQ(U32(vb), off)

	column := func(base int) {
		MOVBLZX(Mem{Base: hp}, code.As32())
		SHLQ(U8(log2(vb)), code)
		cur := func(i int) Mem { return Mem{Base: in[i], Index: off, Scale: 1} }
		prev := func(i int) Mem { return cur(i).Offset(-vb) }
		for r := range k {
			var o [3]reg.VecPhysical
			switch r {
			case 0:
				o = triple(base + k)
			case 1:
				o = triple(base + k + 1)
			default:
				o = triple(base + r - 2)
			}
			left := triple(base + r)
			var up [3]reg.VecPhysical // the row above, this column (r >= 1)
			switch r {
			case 0:
			case 1:
				up = triple(base + k)
			case 2:
				up = triple(base + k + 1)
			default:
				up = triple(base + r - 3)
			}
			if fused {
				// M = fma(dX + dY, gapm, dM*mm) * prior
				if r == 0 {
					s.MovPS(prev(0), tmp)
					s.MulPS(tmp, field(r, fMM), o[0])
					s.MovPS(prev(1), tmp)
					s.AddPS(tmp, prev(2), tmp)
				} else {
					diag := triple(base + r - 1)
					s.MulPS(diag[0], field(r, fMM), o[0])
					s.AddPS(diag[1], diag[2], tmp)
				}
				VFMADD231PS(field(r, fGapM), tmp, o[0])
				s.MulPS(o[0], Mem{Base: lanes, Index: code, Scale: 1, Disp: (r*rowVectors + fEmis) * vb}, o[0])
				// X = fma(uM, mx, uX*gcp)
				if r == 0 {
					s.MovPS(cur(1), tmp)
					s.MulPS(tmp, field(r, fGCP), o[1])
					s.MovPS(cur(0), tmp)
					VFMADD231PS(field(r, fMX), tmp, o[1])
				} else {
					s.MulPS(up[1], field(r, fGCP), o[1])
					VFMADD231PS(field(r, fMX), up[0], o[1])
				}
				// Y = fma(lM, my, lY*gcp)
				s.MulPS(left[2], field(r, fGCP), o[2])
				VFMADD231PS(field(r, fMY), left[0], o[2])
			} else {
				// M = ((dM*mm + dX*gapm) + dY*gapm) * prior
				if r == 0 {
					s.MovPS(prev(0), tmp)
					s.MulPS(tmp, field(r, fMM), o[0])
					s.MovPS(prev(1), tmp)
					s.MulPS(tmp, field(r, fGapM), tmp)
					s.AddPS(o[0], tmp, o[0])
					s.MovPS(prev(2), tmp)
					s.MulPS(tmp, field(r, fGapM), tmp)
					s.AddPS(o[0], tmp, o[0])
				} else {
					diag := triple(base + r - 1)
					s.MulPS(diag[0], field(r, fMM), o[0])
					s.MulPS(diag[1], field(r, fGapM), tmp)
					s.AddPS(o[0], tmp, o[0])
					s.MulPS(diag[2], field(r, fGapM), tmp)
					s.AddPS(o[0], tmp, o[0])
				}
				s.MulPS(o[0], Mem{Base: lanes, Index: code, Scale: 1, Disp: (r*rowVectors + fEmis) * vb}, o[0])
				// X = uM*mx + uX*gcp
				if r == 0 {
					s.MovPS(cur(0), tmp)
					s.MulPS(tmp, field(r, fMX), o[1])
					s.MovPS(cur(1), tmp)
					s.MulPS(tmp, field(r, fGCP), tmp)
				} else {
					s.MulPS(up[0], field(r, fMX), o[1])
					s.MulPS(up[1], field(r, fGCP), tmp)
				}
				s.AddPS(o[1], tmp, o[1])
				// Y = lM*my + lY*gcp
				s.MulPS(left[0], field(r, fMY), o[2])
				s.MulPS(left[2], field(r, fGCP), tmp)
				s.AddPS(o[2], tmp, o[2])
			}
			if r == k-1 {
				for i := range 3 {
					s.MovPS(o[i], Mem{Base: out[i], Index: off, Scale: 1})
				}
			}
		}
		ADDQ(U32(vb), off)
		INCQ(hp)
	}
	period := n / gcd(n, k)
	loop, done := s.Label("strip%d_loop", k), s.Label("strip%d_done", k)
	Label(loop)
	for c := range period {
		column(c * k)
		DECQ(cnt)
		if c < period-1 {
			JZ(LabelRef(done))
		} else {
			JNZ(LabelRef(loop))
		}
	}
	Label(done)
	VZEROUPPER()
	vec.RestoreMXCSR(mxcsr)
	RET()
}

// sumRow writes sumRow<ISA>(m, x, h, out): per lane, the sum of m's h
// vectors left to right from zero, the same for x, then the two sums, as
// GKL sums the last row.
func sumRow(s *vec.ISA) {
	name := "sumRow" + s.Name
	TEXT(name, NOSPLIT, "func(m, x *float32, h int, out *float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s stores in out[l] (sum of m[j][l]) + (sum of x[j][l]) over j < h, each sum taken left to right from zero.", name))
	mp := Load(Param("m"), GP64())
	xp := Load(Param("x"), GP64())
	cnt := Load(Param("h"), GP64())
	out := Load(Param("out"), GP64())
	sm, sx := s.R(0), s.R(1)
	s.Zero(sm)
	s.Zero(sx)
	loop := s.Label("sum_loop")
	Label(loop)
	s.AddPS(sm, Mem{Base: mp}, sm)
	s.AddPS(sx, Mem{Base: xp}, sx)
	ADDQ(U32(s.Bytes), mp)
	ADDQ(U32(s.Bytes), xp)
	DECQ(cnt)
	JNZ(LabelRef(loop))
	s.AddPS(sm, sx, sm)
	s.MovPS(sm, Mem{Base: out})
	VZEROUPPER()
	RET()
}

// mxcsr writes getMXCSR, with which the tests check that the kernels
// leave MXCSR as they found it.
func mxcsr() {
	TEXT("getMXCSR", NOSPLIT, "func() uint32")
	Doc("getMXCSR returns the SSE control and status register.")
	slot := AllocLocal(8) // frames are whole words
	STMXCSR(slot)
	r := GP32()
	MOVL(slot, r)
	Store(r, ReturnIndex(0))
	RET()
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
