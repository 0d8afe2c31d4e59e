//go:build amd64 && !purego

#include "textflag.h"

// The three scoring kernels (8-bit saturating, 16-bit, 32-bit lanes) share
// one body, written once as macros over the lane instructions.
//
// Arguments: prof, strideBytes, L, rows (profile row index of each read
// residue), n, costOff (byte offset of the open/extend vectors in a
// column), open, ext, zero (the lane value of a score of 0), small (the
// "minus infinity" seed), state (64 bytes per read residue), best.
//
// Register use:
//   Y0 open  Y1 extend                       (constants)
//   Y2 open  Y3 extend  of column c          (0 in CGAP lanes)
//   Y4 open  Y5 extend  of column c+1
//   Y6 up0 = sc(c, j-1)   Y7 up1 = sc(c+1, j-1)
//   Y8 su0 = gap-from-above score of column c, Y9 of column c+1
//   Y10 sc(c-1, j-1), the diagonal of column c
//   Y11..Y15 temporaries
//   SI profile column c, R13 column c+1, R8 stride in bytes
//   R9 state: per row j, at 64j the cell score and at 64j+32 the
//      gap-from-left score of column c-1 before a column pair, of c+1 after
//   AX byte offset of row j in state, BX &rows[j], CX &rows[n], DI &rows[0]
//   R11 best, R12 columns left, R14 costOff, DX row offset
//   0(SP) the zero vector, 32(SP) the small vector

#define PROLOGUE(BCAST) \
	MOVQ prof+0(FP), SI; \
	MOVQ strideBytes+8(FP), R8; \
	MOVQ L+16(FP), R12; \
	MOVQ rows+24(FP), DI; \
	MOVQ n+32(FP), CX; \
	MOVQ costOff+40(FP), R14; \
	MOVQ state+80(FP), R9; \
	MOVQ best+88(FP), R11; \
	MOVQ open+48(FP), AX; \
	VMOVQ AX, X0; \
	BCAST X0, Y0; \
	MOVQ ext+56(FP), AX; \
	VMOVQ AX, X1; \
	BCAST X1, Y1; \
	MOVQ zero+64(FP), AX; \
	VMOVQ AX, X14; \
	BCAST X14, Y14; \
	VMOVDQU Y14, 0(SP); \
	MOVQ small+72(FP), AX; \
	VMOVQ AX, X15; \
	BCAST X15, Y15; \
	VMOVDQU Y15, 32(SP); \
	LEAQ (DI)(CX*2), CX; \
	VMOVDQU Y15, (R11); \
	XORQ AX, AX; \
	MOVQ DI, BX

// Column -1: every row has score 0 and gap-from-left "minus infinity".
#define INITSTATE(label) \
label: \
	VMOVDQU Y14, (R9)(AX*1); \
	VMOVDQU Y15, 32(R9)(AX*1); \
	ADDQ $64, AX; \
	ADDQ $2, BX; \
	CMPQ BX, CX; \
	JB label

// Row -1 of a column strip: scores 0, gap-from-above "minus infinity".
#define STRIPINIT \
	VMOVDQU 0(SP), Y6; \
	VMOVDQA Y6, Y7; \
	VMOVDQA Y6, Y10; \
	VMOVDQU 32(SP), Y8; \
	VMOVDQA Y8, Y9; \
	XORQ AX, AX; \
	MOVQ DI, BX

// One read residue against columns c and c+1.
#define PAIRROW(ADD, MAX) \
	MOVWQZX (BX), DX; \
	SHLQ $5, DX; \
	VMOVDQU (R9)(AX*1), Y11; \
	VMOVDQU 32(R9)(AX*1), Y12; \
	ADD (SI)(DX*1), Y10, Y13; \
	VMOVDQA Y11, Y10; \
	ADD Y2, Y11, Y11; \
	ADD Y3, Y12, Y12; \
	MAX Y11, Y12, Y12; \
	ADD Y0, Y6, Y14; \
	ADD Y1, Y8, Y8; \
	MAX Y14, Y8, Y8; \
	MAX Y12, Y13, Y13; \
	MAX Y8, Y13, Y13; \
	ADD (R13)(DX*1), Y6, Y14; \
	VMOVDQA Y13, Y6; \
	ADD Y4, Y13, Y11; \
	ADD Y5, Y12, Y12; \
	MAX Y11, Y12, Y12; \
	ADD Y0, Y7, Y15; \
	ADD Y1, Y9, Y9; \
	MAX Y15, Y9, Y9; \
	MAX Y12, Y14, Y14; \
	MAX Y9, Y14, Y14; \
	VMOVDQA Y14, Y7; \
	VMOVDQU Y14, (R9)(AX*1); \
	VMOVDQU Y12, 32(R9)(AX*1)

// One read residue against the single last column c (odd L).
#define SINGLEROW(ADD, MAX) \
	MOVWQZX (BX), DX; \
	SHLQ $5, DX; \
	VMOVDQU (R9)(AX*1), Y11; \
	VMOVDQU 32(R9)(AX*1), Y12; \
	ADD (SI)(DX*1), Y10, Y13; \
	VMOVDQA Y11, Y10; \
	ADD Y2, Y11, Y11; \
	ADD Y3, Y12, Y12; \
	MAX Y11, Y12, Y12; \
	ADD Y0, Y6, Y14; \
	ADD Y1, Y8, Y8; \
	MAX Y14, Y8, Y8; \
	MAX Y12, Y13, Y13; \
	MAX Y8, Y13, Y13; \
	VMOVDQA Y13, Y6; \
	VMOVDQU Y13, (R9)(AX*1); \
	VMOVDQU Y12, 32(R9)(AX*1)

#define NEXTROW(label) \
	ADDQ $64, AX; \
	ADDQ $2, BX; \
	CMPQ BX, CX; \
	JB label

#define KERNEL(ADD, MAX, BCAST, init, pair, row, single, srow, lastcol, fin) \
	PROLOGUE(BCAST); \
	INITSTATE(init); \
pair: \
	CMPQ R12, $2; \
	JLT single; \
	LEAQ (SI)(R8*1), R13; \
	VMOVDQU (SI)(R14*1), Y2; \
	VMOVDQU 32(SI)(R14*1), Y3; \
	VMOVDQU (R13)(R14*1), Y4; \
	VMOVDQU 32(R13)(R14*1), Y5; \
	STRIPINIT; \
row: \
	PAIRROW(ADD, MAX); \
	NEXTROW(row); \
	VMOVDQU (R11), Y11; \
	MAX Y6, Y11, Y11; \
	MAX Y7, Y11, Y11; \
	VMOVDQU Y11, (R11); \
	LEAQ (SI)(R8*2), SI; \
	SUBQ $2, R12; \
	JMP pair; \
single: \
	CMPQ R12, $0; \
	JEQ lastcol; \
	VMOVDQU (SI)(R14*1), Y2; \
	VMOVDQU 32(SI)(R14*1), Y3; \
	STRIPINIT; \
srow: \
	SINGLEROW(ADD, MAX); \
	NEXTROW(srow); \
	VMOVDQU (R11), Y11; \
	MAX Y6, Y11, Y11; \
	VMOVDQU Y11, (R11); \
lastcol: \
	VMOVDQU (R11), Y11; \
	XORQ AX, AX; \
	MOVQ DI, BX; \
fin: \
	MAX (R9)(AX*1), Y11, Y11; \
	NEXTROW(fin); \
	VMOVDQU Y11, (R11); \
	VZEROUPPER; \
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// The last row and the last column may end anywhere: best is the maximum
// of the last row (collected after each strip) and of the last column
// (the state after the last strip).

// func kernelAVX2x32(prof *int8, strideBytes, L int, rows *uint16, n, costOff, open, ext, zero, small int, state *int8, best *[32]int8)
TEXT ·kernelAVX2x32(SB), NOSPLIT, $64-96
	KERNEL(VPADDSB, VPMAXSB, VPBROADCASTB, init8, pair8, row8, single8, srow8, lastcol8, fin8)

// func kernelAVX2x16(prof *int16, strideBytes, L int, rows *uint16, n, costOff, open, ext, zero, small int, state *int16, best *[16]int16)
TEXT ·kernelAVX2x16(SB), NOSPLIT, $64-96
	KERNEL(VPADDW, VPMAXSW, VPBROADCASTW, init16, pair16, row16, single16, srow16, lastcol16, fin16)

// func kernelAVX2x8(prof *int32, strideBytes, L int, rows *uint16, n, costOff, open, ext, zero, small int, state *int32, best *[8]int32)
TEXT ·kernelAVX2x8(SB), NOSPLIT, $64-96
	KERNEL(VPADDD, VPMAXSD, VPBROADCASTD, init32, pair32, row32, single32, srow32, lastcol32, fin32)
