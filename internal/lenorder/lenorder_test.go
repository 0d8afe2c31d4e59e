package lenorder

import (
	"math/rand"
	"sort"
	"testing"
)

// TestLongestFirstIsStable checks the radix sort against a stable
// comparison sort, on lengths that need both 16-bit passes and on ties,
// in random order, longest first already (returned as they are), and
// longest first but for the last.
func TestLongestFirstIsStable(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, shape := range []string{"random", "sorted", "last out of order"} {
		for _, n := range []int{0, 1, 2, 17, 5000} {
			lens := make([]int, n)
			for i := range lens {
				L := rng.Intn(40)
				if rng.Intn(4) == 0 {
					L = rng.Intn(1 << 20) // above 65,535: the high pass moves entries
				}
				lens[i] = L
			}
			if shape != "random" {
				sort.Sort(sort.Reverse(sort.IntSlice(lens)))
			}
			if shape == "last out of order" && n > 1 {
				lens[n-1] = lens[0] + 1
			}
			checkLongestFirst(t, lens)
		}
	}
}

func checkLongestFirst(t *testing.T, lens []int) {
	t.Helper()
	n := len(lens)
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
