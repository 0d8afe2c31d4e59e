package fwdback

import "github.com/hmmgo/hmmgo/internal/simd"

// level is the kernel family the DP rows use: the wide row kernels at
// simd.AVX2 and above (HMMER's four-lane operations, two striped vectors
// per register where that keeps the order), the SSE row kernels at
// simd.SSE, the Go lanes otherwise; tests set it to try each.
var level = simd.Selected

// asVec4 points at the first vector of vs for the assembly kernels.
func asVec4(vs []vec) *[4]float32 { return (*[4]float32)(&vs[0]) }
