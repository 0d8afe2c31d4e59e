package gpucheck_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/gpucheck"
)

// Check a GPU end to end: compile the check kernels, add vectors, verify
// the DPX intrinsics and measure copy bandwidth.
func Example() {
	d, err := cuda.DeviceByOrdinal(0)
	if err != nil {
		fmt.Println("no GPU:", err)
		return
	}
	ctx, _ := d.Context()
	k, err := gpucheck.Kernels(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Unload()
	fmt.Println(gpucheck.VectorAdd(ctx, k, 1<<20))
	r, err := gpucheck.DPX(ctx, k, 1<<16)
	fmt.Println(r, err)
	bw, err := gpucheck.CopyBandwidth(ctx, k, 1<<30, 10)
	fmt.Println(bw, err)
}
