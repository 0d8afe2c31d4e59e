package cuda_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// Copy data to the GPU, run a kernel from a PTX or CUBIN image, and copy
// the result back. Without a GPU, Load says why.
func Example() {
	if err := cuda.Load(); err != nil {
		fmt.Println("CPU only:", err)
		return
	}
	dev, _ := cuda.DeviceByOrdinal(0)
	ctx, _ := dev.Context()
	mod, err := ctx.LoadModule(kernelsPTX) // e.g. an NVRTC image
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mod.Unload()
	vecadd, _ := mod.Function("vecadd")

	a, b := []float32{1, 2, 3}, []float32{10, 20, 30}
	da, _ := ctx.Alloc(12)
	db, _ := ctx.Alloc(12)
	dc, _ := ctx.Alloc(12)
	defer da.Free()
	defer db.Free()
	defer dc.Free()
	da.CopyFromHost(0, cuda.Bytes(a))
	db.CopyFromHost(0, cuda.Bytes(b))

	var args cuda.Args
	args.Buffer(da).Buffer(db).Buffer(dc).Int32(3)
	if err := vecadd.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 32}}, &args); err != nil {
		fmt.Println(err)
		return
	}
	c := make([]float32, 3)
	dc.CopyToHost(cuda.Bytes(c), 0) // waits for the kernel (default stream)
	fmt.Println(c)
}
