// Package pairhmm computes the read/haplotype likelihoods of GATK
// HaplotypeCaller's pair-HMM: the forward algorithm over match, insertion
// and deletion states, with the probabilities, constants and floating-point
// arithmetic of GATK's native implementation (Intel GKL): a single-precision
// pass in flush-to-zero mode (as GKL sets it), recomputed in double
// precision when its result is below GKL's MIN_ACCEPTED (1e-28, before the
// log), and log10 of the result.
//
// Compute and ComputeGroups are the entry points; RecordReader reads the
// text format of GATK's PairHMM test data and gpuPairHMM. Work runs on a
// Backend: the CPU backend (NewCPU) uses all cores and an AVX-512 (16
// reads per pass) or AVX2 (8 reads) kernel when the CPU has one (chosen
// through internal/simd, so HMMGO_KERNEL can cap it); the CUDA backend (NewGPU: kernels in pairhmm.cu, compiled
// at run time through gpu/nvrtc, one or more GPUs through gpu/cuda) gives
// identical numbers, bit for bit.
// docs/pairhmm.md describes the model, the measured agreement with GKL and
// the few deliberate differences.
package pairhmm
