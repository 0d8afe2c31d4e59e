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

// func rowPass2AVX2(la, lb *laneRow, hap *uint8, h int, ma, xa, ya, mb, xb, yb *float32)
//
// rowPassAVX2 for two batches of eight reads against the same haplotype,
// interleaved: the deletion chain (Y from the left) is a serial dependency
// along the row, and two independent chains keep the floating-point units
// busy while each waits on its own. Per lane the operations are those of
// rowPassAVX2.
TEXT ·rowPass2AVX2(SB), NOSPLIT, $0-80
	MOVQ la+0(FP), SI
	MOVQ lb+8(FP), DX
	MOVQ hap+16(FP), BX
	MOVQ h+24(FP), CX
	MOVQ ma+32(FP), DI
	MOVQ xa+40(FP), R9
	MOVQ ya+48(FP), R10
	MOVQ mb+56(FP), R11
	MOVQ xb+64(FP), R12
	MOVQ yb+72(FP), R13

	// batch A state: Y0 dM, Y1 dX, Y2 dY, Y3 lM, Y4 lY
	// batch B state: Y5 dM, Y6 dX, Y7 dY, Y8 lM, Y9 lY
	// temporaries: Y10-Y15
	VMOVUPS (DI), Y0
	VMOVUPS (R9), Y1
	VMOVUPS (R10), Y2
	VMOVUPS (R11), Y5
	VMOVUPS (R12), Y6
	VMOVUPS (R13), Y7
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VMOVUPS Y3, (DI)
	VMOVUPS Y3, (R9)
	VMOVUPS Y3, (R10)
	VMOVUPS Y3, (R11)
	VMOVUPS Y3, (R12)
	VMOVUPS Y3, (R13)
	ADDQ $32, DI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $32, R13

loop2:
	MOVBLZX (BX), R8
	SHLQ $5, R8
	// batch A: M = ((dM*mm + dX*gapm) + dY*gapm) * prior
	VMULPS 0(SI), Y0, Y10
	VMULPS 32(SI), Y1, Y11
	VADDPS Y11, Y10, Y10
	VMULPS 32(SI), Y2, Y11
	VADDPS Y11, Y10, Y10
	VMULPS 160(SI)(R8*1), Y10, Y10
	// batch B: the same
	VMULPS 0(DX), Y5, Y13
	VMULPS 32(DX), Y6, Y14
	VADDPS Y14, Y13, Y13
	VMULPS 32(DX), Y7, Y14
	VADDPS Y14, Y13, Y13
	VMULPS 160(DX)(R8*1), Y13, Y13
	// the row above becomes next column's diagonal
	VMOVUPS (DI), Y0
	VMOVUPS (R9), Y1
	VMOVUPS (R10), Y2
	VMOVUPS (R11), Y5
	VMOVUPS (R12), Y6
	VMOVUPS (R13), Y7
	// batch A: X = uM*mx + uX*gcp ; Y = lM*my + lY*gcp
	VMULPS 64(SI), Y0, Y11
	VMULPS 96(SI), Y1, Y12
	VADDPS Y12, Y11, Y11
	VMULPS 128(SI), Y3, Y12
	VMULPS 96(SI), Y4, Y4
	VADDPS Y4, Y12, Y4
	// batch B
	VMULPS 64(DX), Y5, Y14
	VMULPS 96(DX), Y6, Y15
	VADDPS Y15, Y14, Y14
	VMULPS 128(DX), Y8, Y15
	VMULPS 96(DX), Y9, Y9
	VADDPS Y9, Y15, Y9
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, (R9)
	VMOVUPS Y4, (R10)
	VMOVUPS Y13, (R11)
	VMOVUPS Y14, (R12)
	VMOVUPS Y9, (R13)
	VMOVAPS Y10, Y3
	VMOVAPS Y13, Y8
	ADDQ $32, DI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $32, R13
	INCQ BX
	DECQ CX
	JNZ loop2
	VZEROUPPER
	RET
