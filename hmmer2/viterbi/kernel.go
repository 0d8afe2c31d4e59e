package viterbi

// rowKernel is the row update the CPU scorer uses: the assembly kernel
// where the CPU has it (see kernel_amd64.go), else rowGeneric.
var rowKernel = rowGeneric
