//go:build !purego

package viterbi

import "unsafe"

//go:noescape
func rowsAVX2(trans *nodeTrans, emit *int32, mmx, imx, dmx *int32, M int, x *laneSpecials, base *[Lanes]*byte, pos *[Lanes]int64, n int)

func cpuidex(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv0() (eax, edx uint32)

// hasAVX2 reports whether the CPU and the OS support AVX2: CPUID leaf 7
// bit 5 of EBX, and the OS saving YMM state (OSXSAVE and XCR0 bits 1-2).
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuidex(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuidex(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuidex(7, 0)
	return ebx7&(1<<5) != 0
}

// rowsAVX2Go adapts the assembly kernel to the kernel signature.
func rowsAVX2Go(t *laneTables, s *laneState, n int) {
	if n <= 0 {
		return
	}
	rowsAVX2(&t.trans[1], &t.emit[emitStride], &s.mmx[Lanes], &s.imx[Lanes], &s.dmx[Lanes], t.M, &s.x, &s.base, &s.pos, n)
}

func init() {
	// The kernel steps 64 bytes per node and reads laneSpecials by
	// fixed offsets.
	if unsafe.Sizeof(nodeTrans{}) != 64 || unsafe.Offsetof(laneSpecials{}.xsc) != 160 || unsafe.Offsetof(laneSpecials{}.res) != 192 {
		panic("viterbi: lane kernel layout changed; update kernel_amd64.s")
	}
	if hasAVX2() {
		rowsKernel = rowsAVX2Go
		kernelName = "avx2"
	}
}
