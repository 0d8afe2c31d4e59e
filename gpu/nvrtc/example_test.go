package nvrtc_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// Compile a kernel for a Hopper GPU through the on-disk cache. This needs
// NVRTC but no GPU.
func ExampleCompile() {
	p := nvrtc.Program{
		Name:    "scale.cu",
		Source:  `extern "C" __global__ void scale(float *x, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= s; }`,
		Options: []string{"-DBLOCK=256"},
	}
	img, err := nvrtc.Compile(p, nvrtc.Target{Major: 9, Minor: 0}, nvrtc.DefaultCache())
	if err != nil {
		fmt.Println(err) // NVRTC missing, or the compile log
		return
	}
	fmt.Println(img.Kind, img.Arch, img.FromCache)
}
