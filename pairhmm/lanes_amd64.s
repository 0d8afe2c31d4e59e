#include "textflag.h"

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() uint32
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET

// func rowPassAVX2(lr *laneRow, hap *uint8, h int, m, x, y *float32)
//
// One DP row for eight reads (one per float lane) against one haplotype.
// m, x, y hold the previous row, (h+1)*8 floats interleaved by lane, and
// are overwritten with the new row. Per lane and cell it performs exactly
// the operations of forward() in forward.go, in the same order, with no
// fused multiply-add, so the results are identical to the bit.
TEXT ·rowPassAVX2(SB), NOSPLIT, $0-48
	MOVQ lr+0(FP), SI
	MOVQ hap+8(FP), BX
	MOVQ h+16(FP), CX
	MOVQ m+24(FP), DI
	MOVQ x+32(FP), R9
	MOVQ y+40(FP), R10

	VMOVUPS 0(SI), Y0   // mm
	VMOVUPS 32(SI), Y1  // gapm
	VMOVUPS 64(SI), Y2  // mx
	VMOVUPS 96(SI), Y3  // gcp
	VMOVUPS 128(SI), Y4 // my

	// Diagonal of column 1 = previous row's column 0, which becomes zero.
	VMOVUPS (DI), Y5
	VMOVUPS (R9), Y6
	VMOVUPS (R10), Y7
	VXORPS Y8, Y8, Y8   // left M
	VXORPS Y9, Y9, Y9   // left Y
	VMOVUPS Y8, (DI)
	VMOVUPS Y8, (R9)
	VMOVUPS Y8, (R10)
	ADDQ $32, DI
	ADDQ $32, R9
	ADDQ $32, R10

loop:
	MOVBLZX (BX), R8
	SHLQ $5, R8
	// M = ((dM*mm + dX*gapm) + dY*gapm) * prior
	VMULPS Y0, Y5, Y13
	VMULPS Y1, Y6, Y14
	VADDPS Y14, Y13, Y13
	VMULPS Y1, Y7, Y14
	VADDPS Y14, Y13, Y13
	VMULPS 160(SI)(R8*1), Y13, Y13
	// values of the row above, this column
	VMOVUPS (DI), Y10
	VMOVUPS (R9), Y11
	VMOVUPS (R10), Y12
	// X = uM*mx + uX*gcp
	VMULPS Y2, Y10, Y14
	VMULPS Y3, Y11, Y15
	VADDPS Y15, Y14, Y14
	// Y = lM*my + lY*gcp
	VMULPS Y4, Y8, Y15
	VMULPS Y3, Y9, Y9
	VADDPS Y9, Y15, Y9
	VMOVUPS Y13, (DI)
	VMOVUPS Y14, (R9)
	VMOVUPS Y9, (R10)
	VMOVAPS Y10, Y5
	VMOVAPS Y11, Y6
	VMOVAPS Y12, Y7
	VMOVAPS Y13, Y8
	ADDQ $32, DI
	ADDQ $32, R9
	ADDQ $32, R10
	INCQ BX
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func sumRowAVX2(m, x *float32, h int, out *[8]float32)
//
// out[l] = (sum over j of m[j][l]) + (sum over j of x[j][l]), each sum
// taken left to right from zero, as GKL sums the last row.
TEXT ·sumRowAVX2(SB), NOSPLIT, $0-32
	MOVQ m+0(FP), DI
	MOVQ x+8(FP), R9
	MOVQ h+16(FP), CX
	MOVQ out+24(FP), DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
sumloop:
	VADDPS (DI), Y0, Y0
	VADDPS (R9), Y1, Y1
	ADDQ $32, DI
	ADDQ $32, R9
	DECQ CX
	JNZ sumloop
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, (DX)
	VZEROUPPER
	RET
