package lenorder

import (
	"math/rand"
	"sort"
	"testing"
)

// TestLongestFirstIsStable checks the radix sort against a stable
// comparison sort, on lengths that need both 16-bit passes and on ties.
func TestLongestFirstIsStable(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, n := range []int{0, 1, 2, 17, 5000} {
		lens := make([]int, n)
		for i := range lens {
			L := rng.Intn(40)
			if rng.Intn(4) == 0 {
				L = rng.Intn(1 << 20) // above 65,535: the high pass moves entries
			}
			lens[i] = L
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool { return lens[want[a]] > lens[want[b]] })
		got := LongestFirst(n, func(i int) int { return lens[i] })
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d entries back", n, len(got))
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("n=%d: position %d is %d, want %d", n, k, got[k], want[k])
			}
		}
	}
}
