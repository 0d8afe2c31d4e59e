package vitfilter

import (
	"fmt"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// SetKernel forces the GPU kernel ("sat32": vit_kernel for every model;
// "dpx16": vit16_kernel wherever planDPX allows) and the fewest nodes a
// vit16_kernel thread owns, for benchmarks; it returns the restore.
func SetKernel(choice string, minNodes int) func() {
	c, n := kernelChoice, dpxMinNodes
	kernelChoice, dpxMinNodes = choice, minNodes
	return func() { kernelChoice, dpxMinNodes = c, n }
}

// HandedBack is how many targets vit16_kernel has handed to vit_kernel.
func (g *GPU) HandedBack() int64 { return atomic.LoadInt64(&g.handedBack) }

// PrecompileWith starts compiling the kernels Scores will need under
// SetKernel(choice, minNodes).
func PrecompileWith(M, Kp int, t nvrtc.Target, minNodes int) {
	n := dpxMinNodes
	dpxMinNodes = minNodes
	defer func() { dpxMinNodes = n }()
	Precompile(M, Kp, t)
}

// Resources describes the kernel Scores runs for a model of M nodes under
// SetKernel(choice, minNodes): shape, registers and local (spill) bytes.
func (g *GPU) Resources(M, Kp int, choice string, minNodes int) string {
	s, dpx := shapeFor(M, Kp), choice != "sat32"
	if dpx {
		s = shapeMin(M, Kp, minNodes)
	}
	f, err := g.kernel(s, dpx)
	if err != nil {
		return err.Error()
	}
	regs, _ := f.Attribute(cuda.FuncNumRegs)
	local, _ := f.Attribute(cuda.FuncLocalSizeBytes)
	return fmt.Sprintf("T%d/C%d/r%d/l%d", s.T, s.C, regs, local)
}
