//go:build !amd64 || purego

package core

// Without AVX2 assembly every block goes through the portable kernel.
const haveAVX2 = false

func kernelName() string { return "go" }

func scoreAVX2x32(prof []int8, stride, L int, rows []uint16, open, ext, bias int, state []int8, best *[32]int8) {
	panic("papara/core: no AVX2 kernel in this build")
}

func scoreAVX2x16(prof []int16, stride, L int, rows []uint16, open, ext int, state []int16, best *[16]int16) {
	panic("papara/core: no AVX2 kernel in this build")
}

func scoreAVX2x8(prof []int32, stride, L int, rows []uint16, open, ext int, state []int32, best *[8]int32) {
	panic("papara/core: no AVX2 kernel in this build")
}

// FastKernel reports whether the scoring phase runs on the AVX2 kernels
// (tests skip their largest inputs on the portable kernel).
func FastKernel() bool { return false }
