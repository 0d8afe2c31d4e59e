package fwdback

// BoundOnGPU reports, per job, whether ForwardBoundBatch would run it on
// the GPU (external tests: a job left to the CPU would pass trivially).
func BoundOnGPU(jobs []BatchJob) []bool {
	bp, err := newBoundPlan(jobs, 1<<20)
	if err != nil {
		return nil
	}
	return bp.onGPU
}

// BoundKernelRegs reports fwdbound_kernel's registers and local memory
// per thread (benchmarks).
func (g *GPU) BoundKernelRegs() (regs, local int, err error) {
	k, err := g.boundFunction(boundUse, 0)
	if err != nil {
		return 0, 0, err
	}
	const numRegs, localBytes = 4, 3 // CU_FUNC_ATTRIBUTE_NUM_REGS, _LOCAL_SIZE_BYTES
	if regs, err = k.Attribute(numRegs); err != nil {
		return 0, 0, err
	}
	local, err = k.Attribute(localBytes)
	return regs, local, err
}

// SetBoundVariant sets how fwdbound.cu is compiled for the launches that
// follow (benchmarks): regs false runs every job on the shared-memory
// path, unroll is that path's loads in flight (FB_U), minBlocks the
// launch bounds' blocks an SM (FB_MINB, 0 for none).
func SetBoundVariant(regs bool, unroll, minBlocks int) {
	boundUse = boundVariant{Regs: regs, Unroll: unroll, MinBlocks: minBlocks}
}
