package simd

//go:generate go run -C ../avogen ./cpuid -out ../simd/cpuid_amd64.s -stubs ../simd/cpuid_stubs_amd64.go -pkg simd

// detect asks CPUID for AVX2 and AVX-512 (F, BW, VL, DQ: the subsets the
// byte, word and float kernels need) and XGETBV whether the OS saves the
// YMM, and for AVX-512 the opmask and ZMM, registers (without that, the
// instructions fault).
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
	_, b7, _, _ := cpuid(7, 0)
	if b7&(1<<5) == 0 {
		return SSE
	}
	const avx512f, avx512dq, avx512bw, avx512vl = 1 << 16, 1 << 17, 1 << 30, 1 << 31
	const zmmState = 0xe0 // opmask, upper halves of ZMM0-15, ZMM16-31
	if want := uint32(avx512f | avx512dq | avx512bw | avx512vl); b7&want == want && xgetbv0()&zmmState == zmmState {
		return AVX512
	}
	return AVX2
}

// intel reports whether CPUID's vendor string is GenuineIntel.
func intel() bool {
	_, b, c, d := cpuid(0, 0)
	return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e // "Genu" "ineI" "ntel"
}
