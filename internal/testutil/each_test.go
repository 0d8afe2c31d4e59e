package testutil

import (
	"sync/atomic"
	"testing"
)

// TestEach: every index once, for counts below, at and above the cores.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1000} {
		seen := make([]atomic.Int32, n)
		Each(n, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}
