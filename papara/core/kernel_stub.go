package core

// Placeholders until the AVX2 kernels exist.
var haveAVX2 = false

func kernelName() string { return "go" }

func scoreBlockAVX2x16(prof []int16, stride, L int, rows []uint16, open, ext int16, scprev, slprev []int16, best *[16]int16) {
	panic("no AVX2 kernel")
}

func scoreBlockAVX2x8(prof []int32, stride, L int, rows []uint16, open, ext int32, scprev, slprev []int32, best *[8]int32) {
	panic("no AVX2 kernel")
}
