package simd

//go:generate go run -C ../avogen ./cpuid -out ../simd/cpuid_amd64.s -stubs ../simd/cpuid_stubs_amd64.go -pkg simd

// detect asks CPUID for AVX2 and XGETBV whether the OS saves the YMM
// registers (without that, AVX instructions fault).
func detect() Level {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return SSE
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 || xgetbv0()&6 != 6 {
		return SSE
	}
	if _, b7, _, _ := cpuid(7, 0); b7&(1<<5) == 0 {
		return SSE
	}
	return AVX2
}
