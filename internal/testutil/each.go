package testutil

import (
	"runtime"
	"sync"
)

// Each calls fn(i) for i in 0..n-1 on every core, each core taking every
// NumCPU-th i: the CPU references the GPU tests compare with, whose
// targets differ in length by orders of magnitude, so that long ones
// spread over the cores.
func Each(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Go(func() {
			for i := w; i < n; i += runtime.NumCPU() {
				fn(i)
			}
		})
	}
	wg.Wait()
}
