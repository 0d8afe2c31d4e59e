package fwdback

// MultiKernelRegs reports the registers per thread and local memory per
// thread of fwd_multi_kernel as it is compiled for a batch with Qmax
// vectors and the walk pipe (benchmarks: spills show up as local memory).
func (g *GPU) MultiKernelRegs(qmax, pipe int) (regs, local int, shape string, err error) {
	s := chooseMultiShape(qmax, g.limits(), pipe)
	g.mu.Lock()
	k, err := g.multiKernel(s)
	g.mu.Unlock()
	if err != nil {
		return 0, 0, "", err
	}
	const numRegs, localBytes = 4, 3 // CU_FUNC_ATTRIBUTE_NUM_REGS, _LOCAL_SIZE_BYTES
	if regs, err = k.Attribute(numRegs); err != nil {
		return 0, 0, "", err
	}
	local, err = k.Attribute(localBytes)
	return regs, local, s.place.String(), err
}

// AsIndex is asIndex for the external tests: the job with its wanted
// targets named by Index instead of Want.
var AsIndex = asIndex
