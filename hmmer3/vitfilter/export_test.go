package vitfilter

import (
	"fmt"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// SetKernel forces the GPU kernel ("sat32": vit_kernel for every model;
// "dpx16", "dpx16p": vit16_kernel or vit16p_kernel wherever planDPX
// allows; "dpx": the DPX kernel dpxConfig.kernelFor picks) and the fewest nodes
// a DPX kernel's thread owns, for benchmarks; it returns the restore.
func SetKernel(choice string, minNodes int) func() {
	c, k, n := kernelChoice, dpxKernel, dpxMinNodes
	kernelChoice, dpxMinNodes = choice, minNodes
	switch choice {
	case "dpx16":
		dpxKernel = "vit16_kernel"
	case "dpx16p":
		dpxKernel = "vit16p_kernel"
	case "dpx":
		dpxKernel = ""
	}
	return func() { kernelChoice, dpxKernel, dpxMinNodes = c, k, n }
}

// HandedBack is how many targets vit16_kernel has handed to vit_kernel.
func (g *GPU) HandedBack() int64 { return atomic.LoadInt64(&g.handedBack) }

// PrecompileWith starts compiling the kernels Scores will need under
// SetKernel(choice, minNodes).
func PrecompileWith(M, Kp int, t nvrtc.Target, choice string, minNodes int) {
	defer SetKernel(choice, minNodes)()
	Precompile(M, Kp, t)
}

// Resources describes the kernel Scores runs for a model of M nodes under
// SetKernel(choice, minNodes): shape, registers and local (spill) bytes.
func (g *GPU) Resources(M, Kp int, choice string, minNodes int) string {
	defer SetKernel(choice, minNodes)()
	s, name := shapeFor(M, Kp), satKernel
	if choice != "sat32" {
		s = shapeMin(M, Kp, minNodes)
		name = currentDPX().kernelFor(s.T)
	}
	f, err := g.kernel(s, name)
	if err != nil {
		return err.Error()
	}
	regs, _ := f.Attribute(cuda.FuncNumRegs)
	local, _ := f.Attribute(cuda.FuncLocalSizeBytes)
	return fmt.Sprintf("T%d/C%d/r%d/l%d", s.T, s.C, regs, local)
}
