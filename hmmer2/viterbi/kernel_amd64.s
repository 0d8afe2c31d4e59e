//go:build !purego

#include "textflag.h"

// func rowAVX2(trans *nodeTrans, emit *int32, mmx, imx, dmx *int32,
//              xb *[8]int32, res *[8]byte, M int, xe *[8]int32)
//
// One DP row for eight lanes (one sequence each), nodes 1..M. Pointers
// point at node 1. Register use:
//   Y0 M(i-1,k-1)  Y1 I(i-1,k-1)  Y2 D(i-1,k-1)   carried across k
//   Y3 M(i,k-1)    Y4 D(i,k-1)    Y5 best M->E
//   Y6 residue of each lane (emission index)
//   Y7 -INFTY      Y8 lanes with residue > 7   Y9 lanes with residue > 15
//   Y10..Y15 temporaries
// Emission scores are looked up with three VPERMDs over the node's
// 24-entry row (8 entries each) and two blends, instead of a gather.
TEXT ·rowAVX2(SB), NOSPLIT, $0-72
	MOVQ trans+0(FP), SI
	MOVQ emit+8(FP), DI
	MOVQ mmx+16(FP), R8
	MOVQ imx+24(FP), R9
	MOVQ dmx+32(FP), R10
	MOVQ xb+40(FP), R11
	MOVQ res+48(FP), R12
	MOVQ M+56(FP), CX
	MOVQ xe+64(FP), R13

	MOVL $-987654321, AX
	VMOVD AX, X7
	VPBROADCASTD X7, Y7
	VMOVDQA Y7, Y0
	VMOVDQA Y7, Y1
	VMOVDQA Y7, Y2
	VMOVDQA Y7, Y3
	VMOVDQA Y7, Y4
	VMOVDQA Y7, Y5
	VPMOVZXBD (R12), Y6
	MOVL $7, AX
	VMOVD AX, X10
	VPBROADCASTD X10, Y10
	VPCMPGTD Y10, Y6, Y8
	MOVL $15, AX
	VMOVD AX, X10
	VPBROADCASTD X10, Y10
	VPCMPGTD Y10, Y6, Y9

	TESTQ CX, CX
	JLE done

loop:
	// match: max of M->M, I->M, D->M from row i-1 and B->M, plus emission
	VPBROADCASTD 0(SI), Y10
	VPADDD Y10, Y0, Y10
	VPBROADCASTD 4(SI), Y11
	VPADDD Y11, Y1, Y11
	VPMAXSD Y11, Y10, Y10
	VPBROADCASTD 8(SI), Y11
	VPADDD Y11, Y2, Y11
	VPMAXSD Y11, Y10, Y10
	VPBROADCASTD 12(SI), Y11
	VPADDD (R11), Y11, Y11
	VPMAXSD Y11, Y10, Y10
	VPERMD 0(DI), Y6, Y11
	VPERMD 32(DI), Y6, Y12
	VPBLENDVB Y8, Y12, Y11, Y11
	VPERMD 64(DI), Y6, Y12
	VPBLENDVB Y9, Y12, Y11, Y11
	VPADDD Y11, Y10, Y10
	VPMAXSD Y7, Y10, Y10          // Y10 = M(i,k)

	// delete: max of M(i,k-1)->D and D(i,k-1)->D
	VPBROADCASTD 20(SI), Y11
	VPADDD Y11, Y4, Y11
	VPBROADCASTD 16(SI), Y12
	VPADDD Y12, Y3, Y12
	VPMAXSD Y12, Y11, Y11
	VPMAXSD Y7, Y11, Y11          // Y11 = D(i,k)

	// insert: max of M(i-1,k)->I and I(i-1,k)->I, plus emission
	VMOVDQU (R8), Y13             // M(i-1,k)
	VMOVDQU (R9), Y14             // I(i-1,k)
	VPBROADCASTD 24(SI), Y12
	VPADDD Y12, Y13, Y12
	VPBROADCASTD 28(SI), Y15
	VPADDD Y15, Y14, Y15
	VPMAXSD Y15, Y12, Y12
	VPERMD 128(DI), Y6, Y15
	VMOVDQA Y13, Y0               // M(i-1,k) becomes next node's M(i-1,k-1)
	VPERMD 160(DI), Y6, Y13
	VPBLENDVB Y8, Y13, Y15, Y15
	VPERMD 192(DI), Y6, Y13
	VPBLENDVB Y9, Y13, Y15, Y15
	VPADDD Y15, Y12, Y12
	VPMAXSD Y7, Y12, Y12          // Y12 = I(i,k)
	VMOVDQA Y14, Y1

	// M->E
	VPBROADCASTD 32(SI), Y15
	VPADDD Y15, Y10, Y15
	VPMAXSD Y15, Y5, Y5

	VMOVDQU (R10), Y2             // D(i-1,k)
	VMOVDQU Y10, (R8)
	VMOVDQU Y12, (R9)
	VMOVDQU Y11, (R10)
	VMOVDQA Y10, Y3
	VMOVDQA Y11, Y4

	ADDQ $64, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ loop

done:
	VMOVDQU Y5, (R13)
	VZEROUPPER
	RET

// func cpuidex(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuidex(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv0() (eax, edx uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
