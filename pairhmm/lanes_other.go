//go:build !amd64

package pairhmm

// simdLaneKernels is empty: the SIMD kernels are amd64 assembly.
var simdLaneKernels []simdLaneKernel

// simdFusedLaneKernels is empty too.
var simdFusedLaneKernels []simdLaneKernel
