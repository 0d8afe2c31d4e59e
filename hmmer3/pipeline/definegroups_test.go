package pipeline

import (
	"slices"
	"testing"
)

// TestDefineGroups: the survivors are dealt longest first, round robin,
// into groups of at most size; every survivor once, ties in database
// order; group g starts with the g-th longest, so no group holds two of
// the longest len(groups).
func TestDefineGroups(t *testing.T) {
	lens := map[int]int{3: 100, 8: 5000, 11: 2400, 20: 2500, 21: 5200, 30: 90, 42: 2500}
	survivors := []int{3, 8, 11, 20, 21, 30, 42}
	length := func(j int) int { return lens[j] }
	for _, c := range []struct {
		size int
		want [][]int
	}{
		{1, [][]int{{21}, {8}, {20}, {42}, {11}, {3}, {30}}},
		{2, [][]int{{21, 11}, {8, 3}, {20, 30}, {42}}},
		{3, [][]int{{21, 42, 30}, {8, 11}, {20, 3}}},
		{16, [][]int{{21, 8, 20, 42, 11, 3, 30}}},
	} {
		got := defineGroups(survivors, length, c.size)
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("size %d: groups %v, want %v", c.size, got, c.want)
		}
	}
	if !slices.Equal(survivors, []int{3, 8, 11, 20, 21, 30, 42}) {
		t.Error("defineGroups reordered its argument")
	}
	if got := defineGroups(nil, length, 1); len(got) != 0 {
		t.Errorf("no survivors gave %d groups", len(got))
	}
}

// TestDefineGroupSize: single targets while there are at most four a
// worker, then 2 to 16 so that each worker gets about eight groups.
func TestDefineGroupSize(t *testing.T) {
	for _, c := range []struct{ survivors, workers, want int }{
		{0, 16, 1}, {46, 16, 1}, {64, 16, 1}, {65, 16, 2}, {300, 16, 2}, {1000, 16, 7}, {100000, 16, 16}, {5, 1, 2},
	} {
		if got := defineGroupSize(c.survivors, c.workers); got != c.want {
			t.Errorf("defineGroupSize(%d, %d) = %d, want %d", c.survivors, c.workers, got, c.want)
		}
	}
}
