package pairhmm

import _ "embed"

// CUDASource is the CUDA C++ source of the GPU kernels (pairhmm.cu), to be
// compiled at run time with NVRTC once per configuration of gpuConfigs,
// with -DPH_GROUP, -DPH_ROWS and -DPH_BLOCK.
//
//go:embed pairhmm.cu
var CUDASource string

// gpuConfig is one compiled specialisation of the kernels: reads of up to
// group*rows bases, one group of threads per pair.
type gpuConfig struct{ group, rows int }

// gpuConfigs are the length bins, smallest first: a read goes to the first
// configuration that holds it. Sub-warps serve short reads so that few
// threads idle; rows per thread grow with the length to keep the wavefront
// (group-1 idle steps at each end) short relative to the haplotype.
var gpuConfigs = []gpuConfig{
	{4, 4}, {8, 4}, {16, 4}, {16, 8}, {32, 6}, {32, 8}, {32, 12}, {32, 16},
}

// gpuMaxReadLen is the longest read the GPU kernels take; longer reads are
// computed by the CPU backend (same numbers).
func gpuMaxReadLen() int {
	c := gpuConfigs[len(gpuConfigs)-1]
	return c.group * c.rows
}

// gpuBin returns the index of the configuration for a read length, or -1.
func gpuBin(readLen int) int {
	for i, c := range gpuConfigs {
		if readLen <= c.group*c.rows {
			return i
		}
	}
	return -1
}
