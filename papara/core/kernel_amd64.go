//go:build amd64 && !purego

package core

import "os"

// The AVX2 kernels evaluate the same DP as scoreBlockGo, one 256-bit
// vector per cell (32 branches in 8-bit lanes, 16 in 16-bit or 8 in 32-bit
// lanes), column pair by column pair with the read running down the inner
// loop: the per-residue state (two vectors) stays in L1 and only the block
// profile streams from memory. Every cell is computed from the same
// neighbours as in PaPaRa's row order, so the scores are identical.

//go:noescape
func kernelAVX2x32(prof *int8, strideBytes, L int, rows *uint16, n, costOff, open, ext, zero, small int, state *int8, best *[32]int8)

//go:noescape
func kernelAVX2x16(prof *int16, strideBytes, L int, rows *uint16, n, costOff, open, ext, zero, small int, state *int16, best *[16]int16)

//go:noescape
func kernelAVX2x8(prof *int32, strideBytes, L int, rows *uint16, n, costOff, open, ext, zero, small int, state *int32, best *[8]int32)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// haveAVX2 reports whether the CPU and the OS support AVX2 (set
// HMMGO_NOAVX2=1 to force the portable kernel).
var haveAVX2 = detectAVX2()

func detectAVX2() bool {
	if os.Getenv("HMMGO_NOAVX2") != "" {
		return false
	}
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

func kernelName() string {
	if haveAVX2 {
		return "avx2"
	}
	return "go"
}

// The wrappers take a profile with K residue rows (stride = (K+2)*lanes),
// the read as profile row indices, and scratch state of 2*lanes elements
// per read residue (64-byte aligned for speed).

func scoreAVX2x32(prof []int8, stride, L int, rows []uint16, open, ext, bias int, state []int8, best *[32]int8) {
	K := stride/32 - 2
	kernelAVX2x32(&prof[0], stride, L, &rows[0], len(rows), K*32, open, ext, bias, -128, &state[0], best)
}

func scoreAVX2x16(prof []int16, stride, L int, rows []uint16, open, ext int, state []int16, best *[16]int16) {
	K := stride/16 - 2
	kernelAVX2x16(&prof[0], stride*2, L, &rows[0], len(rows), K*32, open, ext, 0, int16Small, &state[0], best)
}

func scoreAVX2x8(prof []int32, stride, L int, rows []uint16, open, ext int, state []int32, best *[8]int32) {
	K := stride/8 - 2
	kernelAVX2x8(&prof[0], stride*4, L, &rows[0], len(rows), K*32, open, ext, 0, int32Small, &state[0], best)
}

// FastKernel reports whether the scoring phase runs on the AVX2 kernels
// (tests skip their largest inputs on the portable kernel).
func FastKernel() bool { return useAVX2() }
