package pairhmm

import (
	"runtime"
	"testing"
)

// TestKernelsRestoreMXCSR: the SIMD kernels set MXCSR's flush-to-zero bit
// for their own duration only (Go code after them must see the defaults),
// and the sums they give with it are the portable kernel's, which flushes
// in Go (forwardFloat), on pairs whose cells reach the subnormal range.
func TestKernelsRestoreMXCSR(t *testing.T) {
	ks := simdKernels(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	groups := hardGroups(9)
	want := rawSums(goLaneKernel, groups)
	before := getMXCSR()
	for _, k := range ks {
		got := rawSums(k, groups)
		if after := getMXCSR(); after != before {
			t.Fatalf("%s: MXCSR %#x after the kernel, %#x before", k.name, after, before)
		}
		sameRaw(t, k.name, want, got, "go", k.name)
	}
}
