//go:build !purego

package viterbi

import "unsafe"

//go:noescape
func rowAVX2(trans *nodeTrans, emit *int32, mmx, imx, dmx *int32, xb *[Lanes]int32, res *[Lanes]byte, M int, xe *[Lanes]int32)

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

// rowAVX2Go adapts the assembly kernel to the kernel signature.
func rowAVX2Go(t *laneTables, s *laneState) {
	if t.M == 0 {
		return
	}
	rowAVX2(&t.trans[1], &t.emit[emitStride], &s.mmx[Lanes], &s.imx[Lanes], &s.dmx[Lanes], &s.xb, &s.res, t.M, &s.xe)
}

var _ = unsafe.Sizeof(nodeTrans{}) // the kernel steps 64 bytes per node

func init() {
	if unsafe.Sizeof(nodeTrans{}) != 64 {
		panic("viterbi: nodeTrans must be 64 bytes for the AVX2 kernel")
	}
	if hasAVX2() {
		rowKernel = rowAVX2Go
		kernelName = "avx2"
	}
}
