//go:build !purego

#include "textflag.h"

// laneSpecials offsets (lanes.go)
#define XN 0
#define XB 32
#define XC 64
#define XJ 96
#define XE 128
#define NLOOP 160
#define NMOVE 164
#define ELOOP 168
#define EMOVE 172
#define CLOOP 176
#define JLOOP 184
#define JMOVE 188
#define RES 192

// Frame locals: the node pointers at node 1, M and the rows left.
#define TRANS0 0(SP)
#define EMIT0 8(SP)
#define MMX0 16(SP)
#define IMX0 24(SP)
#define DMX0 32(SP)
#define NODES 40(SP)
#define ROWS 48(SP)

// Load lane w's next residue into the scratch row and advance it.
#define NEXTRES(w) \
	MOVQ (w*8)(R12), AX; \
	MOVQ (w*8)(R13), BX; \
	MOVBLZX (AX)(BX*1), DX; \
	MOVB DX, (RES+w)(R11); \
	INCQ BX; \
	MOVQ BX, (w*8)(R13)

// func rowsAVX2(trans *nodeTrans, emit *int32, mmx, imx, dmx *int32, M int,
//               x *laneSpecials, base *[8]*byte, pos *[8]int64, n int)
//
// n DP rows for eight lanes (one sequence each): for every row, the M, I
// and D cells of nodes 1..M, then the special states N, E, J, B, C, all
// in HMMER2's int32 arithmetic. Node pointers point at node 1.
// Register use in the node loop:
//   Y0 M(i-1,k-1)  Y1 I(i-1,k-1)  Y2 D(i-1,k-1)   carried across k
//   Y3 M(i,k-1)    Y4 D(i,k-1)    Y5 best M->E
//   Y6 residue of each lane (emission index)
//   Y7 -INFTY      Y8 lanes with residue > 7   Y9 lanes with residue > 15
//   Y10..Y15 temporaries
// Emission scores are looked up with three VPERMDs over the node's
// 24-entry row (8 entries each) and two blends, instead of a gather.
TEXT ·rowsAVX2(SB), NOSPLIT, $56-80
	MOVQ trans+0(FP), AX
	MOVQ AX, TRANS0
	MOVQ emit+8(FP), AX
	MOVQ AX, EMIT0
	MOVQ mmx+16(FP), AX
	MOVQ AX, MMX0
	MOVQ imx+24(FP), AX
	MOVQ AX, IMX0
	MOVQ dmx+32(FP), AX
	MOVQ AX, DMX0
	MOVQ M+40(FP), AX
	MOVQ AX, NODES
	MOVQ x+48(FP), R11
	MOVQ base+56(FP), R12
	MOVQ pos+64(FP), R13
	MOVQ n+72(FP), AX
	MOVQ AX, ROWS
	TESTQ AX, AX
	JLE done

	MOVL $-987654321, AX
	VMOVD AX, X7
	VPBROADCASTD X7, Y7

row:
	NEXTRES(0)
	NEXTRES(1)
	NEXTRES(2)
	NEXTRES(3)
	NEXTRES(4)
	NEXTRES(5)
	NEXTRES(6)
	NEXTRES(7)
	VPMOVZXBD RES(R11), Y6
	MOVL $7, AX
	VMOVD AX, X10
	VPBROADCASTD X10, Y10
	VPCMPGTD Y10, Y6, Y8
	MOVL $15, AX
	VMOVD AX, X10
	VPBROADCASTD X10, Y10
	VPCMPGTD Y10, Y6, Y9

	VMOVDQA Y7, Y0
	VMOVDQA Y7, Y1
	VMOVDQA Y7, Y2
	VMOVDQA Y7, Y3
	VMOVDQA Y7, Y4
	VMOVDQA Y7, Y5
	MOVQ TRANS0, SI
	MOVQ EMIT0, DI
	MOVQ MMX0, R8
	MOVQ IMX0, R9
	MOVQ DMX0, R10
	MOVQ NODES, CX
	TESTQ CX, CX
	JLE specials

node:
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
	VPADDD XB(R11), Y11, Y11
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
	VPERMD 96(DI), Y6, Y15
	VMOVDQA Y13, Y0               // M(i-1,k) becomes next node's M(i-1,k-1)
	VPERMD 128(DI), Y6, Y13
	VPBLENDVB Y8, Y13, Y15, Y15
	VPERMD 160(DI), Y6, Y13
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
	ADDQ $192, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ node

specials:
	// N = max(N + N->N, -INF)
	VPBROADCASTD NLOOP(R11), Y10
	VPADDD XN(R11), Y10, Y10
	VPMAXSD Y7, Y10, Y10
	// J = max(max(J + J->J, -INF), E + E->J)
	VPBROADCASTD JLOOP(R11), Y11
	VPADDD XJ(R11), Y11, Y11
	VPMAXSD Y7, Y11, Y11
	VPBROADCASTD ELOOP(R11), Y12
	VPADDD Y5, Y12, Y12
	VPMAXSD Y12, Y11, Y11
	// B = max(max(N + N->B, -INF), J + J->B)
	VPBROADCASTD NMOVE(R11), Y12
	VPADDD Y10, Y12, Y12
	VPMAXSD Y7, Y12, Y12
	VPBROADCASTD JMOVE(R11), Y13
	VPADDD Y11, Y13, Y13
	VPMAXSD Y13, Y12, Y12
	// C = max(max(C + C->C, -INF), E + E->C)
	VPBROADCASTD CLOOP(R11), Y13
	VPADDD XC(R11), Y13, Y13
	VPMAXSD Y7, Y13, Y13
	VPBROADCASTD EMOVE(R11), Y14
	VPADDD Y5, Y14, Y14
	VPMAXSD Y14, Y13, Y13
	VMOVDQU Y10, XN(R11)
	VMOVDQU Y12, XB(R11)
	VMOVDQU Y13, XC(R11)
	VMOVDQU Y11, XJ(R11)
	VMOVDQU Y5, XE(R11)

	DECQ ROWS
	JNZ row

done:
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
