package viterbi

// rowsKernel is the row update the CPU scorer uses: the AVX2 assembly
// kernel where the CPU has it (kernel_amd64.go), else rowsGeneric.
var rowsKernel = rowsGeneric

// kernelName names the kernel in use ("avx2" or "generic").
var kernelName = "generic"

// KernelName reports which lane kernel the CPU scorer runs.
func KernelName() string { return kernelName }
