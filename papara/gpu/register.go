// Package gpu scores PaPaRa reads against the branches of a reference tree
// on an NVIDIA GPU, with exactly the CPU kernels' scores (see papara.cu for
// the kernel's design). Importing it registers the scorer as
// core.GPUBackend: `hmmgo papara` then runs it beside the CPU threads on
// one queue of branch blocks whenever a GPU is usable (hybrid mode), as
// the 2012 paper's hybrid PaPaRa did.
package gpu

import (
	"errors"
	"sync"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/papara/core"
)

func init() { core.GPUBackend = firstGPU }

var (
	firstOnce   sync.Once
	firstScorer *Scorer
	firstErr    error
)

// firstGPU is the registered backend: a scorer on the first usable GPU
// (CUDA_VISIBLE_DEVICES picks another), or an error saying why there is
// none. Every GPU hmmgo compiles for works: DPX is native on sm_90 and
// later, and the compiler emulates it before. The scorer is made once per
// process and serves every run (it keeps one job on the device at a time).
func firstGPU() (core.Scorer, error) {
	firstOnce.Do(func() {
		devs, err := devices.Usable()
		switch {
		case err != nil:
			firstErr = err
		case len(devs) == 0:
			firstErr = errors.New("no GPU")
		default:
			firstScorer, firstErr = New(devs[0])
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return firstScorer, nil
}
