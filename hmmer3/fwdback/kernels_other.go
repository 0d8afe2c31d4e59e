//go:build !amd64

package fwdback

// useAsm: no assembly row kernels on this architecture.
func useAsm() bool { return false }

// useWide: no wide row kernels on this architecture.
func useWide() bool { return false }

func fwdRowAVX2(dpp, dpc, tw, dd, rf *[4]float32, q int, xB float32, all4 bool, xEv *[4]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckRowInAVX2(dpp, dpc, tw, rf *[4]float32, q int, xBv *[4]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckRowOutAVX2(dpc, tw, dd *[4]float32, q int, xE float32) { panic("fwdback: no AVX2 kernels") }
func bckRowIn3AVX2(dpp, dpc, tw, dd, rf *[4]float32, q int, xE float32, xBv, carry *[4]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckRowOut45AVX2(dpc, tw, dd *[4]float32, q int, xE float32, carry *[4]float32) {
	panic("fwdback: no AVX2 kernels")
}

func fwdRowSSE(dpp, dpc, tf, rf *[4]float32, q int, xB float32, all4 bool, xEv *[4]float32) {
	panic("fwdback: no SSE kernels")
}
func bckRowInSSE(dpp, dpc, tf, rf *[4]float32, q int, xBv *[4]float32) {
	panic("fwdback: no SSE kernels")
}
func bckRowOutSSE(dpc, tf *[4]float32, q int, xE float32) { panic("fwdback: no SSE kernels") }
func scaleRowSSE(dp *[4]float32, n int, inv float32)      { panic("fwdback: no SSE kernels") }
func streamRowSSE(dst, src *[4]float32, n int)            { panic("fwdback: no SSE kernels") }
func storeFence()                                         { panic("fwdback: no SSE kernels") }
func fwdRowPairAVX2(dpp, dpc *[8]float32, tf *[4]float32, rf *[2]*[4]float32, q int, xB *[8]float32, all4 bool, xEv *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func scaleRowPairAVX2(dp *[8]float32, n int, inv *[8]float32) { panic("fwdback: no AVX2 kernels") }

// useQuad: no AVX-512 kernels on this architecture.
func useQuad() bool { return false }

func fwdRowQuadAVX512(dpp, dpc *[16]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xB *[16]float32, all4 bool, xEv *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
func scaleRowQuadAVX512(dp *[16]float32, n int, inv *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}

func fwdEnvPairAVX2(dc *[2]*[4]float32, tf *[4]float32, rf *[2]*[4]float32, q int, xB *[8]float32, all4 bool, xEv *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckEnvInPairAVX2(dc *[2]*[4]float32, tf *[4]float32, rf *[2]*[4]float32, q int, xBv *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckEnvOutPairAVX2(dc *[2]*[4]float32, tf *[4]float32, q int, xE *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func fwdEnvQuadAVX512(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xB *[16]float32, all4 bool, xEv *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
func bckEnvInQuadAVX512(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xBv *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
func bckEnvOutQuadAVX512(dc *[4]*[4]float32, tf *[4]float32, q int, xE *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
func bckEnvIn3PairAVX2(dc *[2]*[4]float32, tf *[4]float32, rf *[2]*[4]float32, q int, xE *[8]float32, xBv *[8]float32, carry *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckEnvOut45PairAVX2(dc *[2]*[4]float32, tf *[4]float32, q int, carry *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckEnvIn3QuadAVX512(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xE *[16]float32, xBv *[16]float32, carry *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
func bckEnvOut45QuadAVX512(dc *[4]*[4]float32, tf *[4]float32, q int, carry *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
func bckParInPairAVX2(dc *[2]*[4]float32, tf *[4]float32, rf *[2]*[4]float32, q int, xBv *[8]float32) {
	panic("fwdback: no AVX2 kernels")
}
func bckParInQuadAVX512(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xBv *[16]float32) {
	panic("fwdback: no AVX-512 kernels")
}
