package fwdback

import "github.com/hmmgo/hmmgo/internal/simd"

// level is the kernel family the DP rows use: the SSE row kernels on
// amd64 at simd.SSE and above (they are HMMER's own four-lane operations,
// so AVX2 adds nothing that keeps the bits), the Go lanes otherwise;
// tests set it to try both.
var level = simd.Selected

// asVec4 points at the first vector of vs for the assembly kernels.
func asVec4(vs []vec) *[4]float32 { return (*[4]float32)(&vs[0]) }
