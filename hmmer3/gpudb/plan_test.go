package gpudb

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// lognormalEntries is n whole-target entries of protein-like lengths.
func lognormalEntries(n int) []entry {
	rng := rand.New(rand.NewSource(1))
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{i, 0, int(math.Exp(rng.NormFloat64()*0.6+5.6)) + 1}
	}
	return es
}

// BenchmarkPlanLayout plans one layout of a 485,000-target database (the
// 175M-residue benchmark's size): a run plans one per kernel shape.
func BenchmarkPlanLayout(b *testing.B) {
	es := lognormalEntries(485000)
	for b.Loop() {
		planLayout(es, 4)
	}
}

// TestLongestFirstIsStable checks the radix sort (LongestFirst, through
// longestFirst) against a stable
// comparison sort, on lengths that need both 16-bit passes and on ties.
func TestLongestFirstIsStable(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, n := range []int{0, 1, 2, 17, 5000} {
		es := make([]entry, n)
		for i := range es {
			L := rng.Intn(40)
			if rng.Intn(4) == 0 {
				L = rng.Intn(1 << 20) // above 65,535: the high pass moves entries
			}
			es[i] = entry{i, rng.Intn(3), L}
		}
		want := append([]entry(nil), es...)
		sort.SliceStable(want, func(a, b int) bool { return want[a].n > want[b].n })
		got := longestFirst(es)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d entries back", n, len(got))
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("n=%d: position %d is %+v, want %+v", n, k, got[k], want[k])
			}
		}
	}
}
