package pairhmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// rawSums runs a lane kernel over every group and returns the raw float
// sums in read-major order.
func rawSums(k laneKernel, groups []Group) []float32 {
	var out []float32
	var prepared [laneWidth]preparedRead
	var b laneBatch
	for g := range groups {
		res := make([]float32, groups[g].Pairs())
		nh := len(groups[g].Haplotypes)
		reads := groups[g].Reads
		for i := 0; i < len(reads); i += laneWidth {
			n := min(laneWidth, len(reads)-i)
			for l := 0; l < n; l++ {
				prepared[l].prepare(&reads[i+l])
			}
			b.load(prepared[:n])
			for h, hap := range groups[g].Haplotypes {
				codes, _ := encodeBases(nil, hap)
				var raw [laneWidth]float32
				k.run(&b, codes, &raw)
				for l := 0; l < n; l++ {
					res[(i+l)*nh+h] = raw[l]
				}
			}
		}
		out = append(out, res...)
	}
	return out
}

// TestKernelsIdentical: every float kernel the CPU can run gives the same
// raw sums, bit for bit, on reads of mixed lengths in one batch.
func TestKernelsIdentical(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU: only the portable kernel can run")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var groups []Group
	for g := 0; g < 6; g++ {
		haps := [][]byte{synthHap(rng, 50+rng.IntN(400)), synthHap(rng, 1+rng.IntN(30))}
		var reads []Read
		for r := 0; r < 1+rng.IntN(20); r++ {
			reads = append(reads, synthRead(rng, haps[0], 1+rng.IntN(300), rng.IntN(20), 20+rng.IntN(40), rng.IntN(3) > 0))
		}
		groups = append(groups, Group{Reads: reads, Haplotypes: haps})
	}
	groups = append(groups, loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))...)
	a, b := rawSums(goLaneKernel, groups), rawSums(avx2LaneKernel, groups)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("pair %d: go kernel %x, avx2 kernel %x", i, a[i], b[i])
		}
	}
	t.Logf("%d pairs identical", len(a))
	// Through the backend, which also pairs batches of eight (run2).
	ra, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Kernel: "go"})})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Kernel: "avx2"})})
	if err != nil {
		t.Fatal(err)
	}
	for g := range ra {
		for i := range ra[g] {
			if math.Float64bits(ra[g][i]) != math.Float64bits(rb[g][i]) {
				t.Fatalf("group %d pair %d: go %v, avx2 %v", g, i, ra[g][i], rb[g][i])
			}
		}
	}
}
