package pairhmm

import (
	"math"
	"runtime"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// withFlushToZero runs f on a locked thread with MXCSR's flush-to-zero
// and denormals-are-zero bits set, as GKL runs its kernels. The kernels
// themselves never set them: these tests only measure what it would
// change and gain.
func withFlushToZero(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old := getMXCSR()
	setMXCSR(old | 0x8040)
	defer setMXCSR(old)
	f()
}

// TestFlushToZeroEffect logs how many raw float sums of each SIMD kernel
// change under flush-to-zero, and how many of those are above GKL's
// MIN_ACCEPTED (the others go to the double pass, which is unaffected
// here). It fails only if a kernel gives different sums with MXCSR left
// alone.
func TestFlushToZeroEffect(t *testing.T) {
	ks := simdKernels(t)
	groups := append(hardGroups(5), loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))...)
	if testing.Short() {
		groups = groups[:5]
	} else {
		groups = append(groups, loadGroups(t, testutil.SharedData(t, "PairHMM/1m.in.gz"))...)
	}
	want := rawSums(goLaneKernel, groups)
	for _, k := range ks {
		var ftz []float32
		withFlushToZero(func() { ftz = rawSums(k, groups) })
		sameRaw(t, k.name, want, rawSums(k, groups), "go", k.name)
		changed, above := 0, 0
		for i := range want {
			if math.Float32bits(want[i]) != math.Float32bits(ftz[i]) {
				changed++
				if want[i] >= minAccepted || ftz[i] >= minAccepted {
					above++
					t.Logf("%s pair %d: %x without FTZ, %x with", k.name, i, want[i], ftz[i])
				}
			}
		}
		t.Logf("%s with flush-to-zero: %d of %d raw sums change, %d of them at or above MIN_ACCEPTED", k.name, changed, len(want), above)
	}
}

// BenchmarkLaneKernelsFTZ is BenchmarkLaneKernels with
// flush-to-zero set: on CPUs where subnormal operands or results take a
// microcode assist, the difference is what keeping subnormals costs.
func BenchmarkLaneKernelsFTZ(b *testing.B) { benchLaneKernels(b, true, withFlushToZero) }
