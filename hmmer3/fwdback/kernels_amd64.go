package fwdback

import "github.com/hmmgo/hmmgo/internal/simd"

//go:generate go run -C ../../internal/avogen ./fwd -out ../../hmmer3/fwdback/kernels_amd64.s -stubs ../../hmmer3/fwdback/kernels_stubs_amd64.go -pkg fwdback

// useAsm reports whether the SSE row kernels run (every amd64 CPU has
// SSE2; HMMGO_KERNEL=generic or a test can turn them off).
func useAsm() bool { return level >= simd.SSE }

// useWide reports whether the wide (AVX2) row kernels run: at simd.AVX2
// and above (AVX-512 machines run them too).
func useWide() bool { return level >= simd.AVX2 }

// useQuad reports whether the quad (AVX-512) Forward filter rows run.
func useQuad() bool { return level >= simd.AVX512 }
