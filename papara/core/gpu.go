package core

import "errors"

// GPUBackend, when set by a GPU package (in its init), creates the GPU
// scorer that shares the block queue with the CPU scorers (hybrid mode).
var GPUBackend func() (Scorer, error)

// NewGPUScorer returns the registered GPU scorer, or an error saying why
// there is none.
func NewGPUScorer() (Scorer, error) {
	if GPUBackend == nil {
		return nil, errors.New("no GPU backend in this build")
	}
	return GPUBackend()
}
