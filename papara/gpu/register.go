// Package gpu scores PaPaRa reads against the branches of a reference tree
// on an NVIDIA GPU, with exactly the CPU kernels' scores (see papara.cu for
// the kernel's design). Importing it registers the scorer as
// core.GPUBackend: `hmmgo papara` then runs it beside the CPU threads on
// one queue of branch blocks whenever a GPU is usable (hybrid mode), as
// the 2012 paper's hybrid PaPaRa did.
package gpu

import (
	"errors"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/papara/core"
)

func init() { core.GPUBackend = firstGPU }

// firstGPU is the registered backend: a scorer on the first usable GPU
// (CUDA_VISIBLE_DEVICES picks another), or an error saying why there is
// none. Every GPU hmmgo compiles for works: DPX is native on sm_90 and
// later, and the compiler emulates it before.
func firstGPU() (core.Scorer, error) {
	devs, err := devices.Usable()
	if err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, errors.New("no GPU")
	}
	return New(devs[0])
}
