// Package lenorder orders sequences by length in linear time, as the
// GPU layouts (CUDAMPF++'s warp blocks, ClawHMMER's length-sorted
// batches) and the CPU lane groups need, longest first.
package lenorder

// LongestFirst is the order of items 0..n-1 by length, longest first,
// ties in index order. It is a two-pass radix sort on the 32-bit length:
// O(n), where a comparison sort of a 485,000-target database took
// seconds (sort.SliceStable), and a GPU run sorts its database once and
// plans a layout per kernel shape.
func LongestFirst(n int, length func(i int) int) []int {
	key := make([]uint32, n)
	src := make([]int, n)
	sorted := true
	for i := range src {
		src[i] = i
		key[i] = ^uint32(length(i)) // ascending key = descending length
		sorted = sorted && (i == 0 || key[i] >= key[i-1])
	}
	if sorted {
		// A GPU's subsets are some of its targets, which it holds longest
		// first: the counting passes (two tables of 65,536 counts) cost
		// more than a subset of a few thousand targets.
		return src
	}
	dst := make([]int, n)
	for shift := 0; shift < 32 && n > 1; shift += 16 {
		var count [1<<16 + 1]int
		for _, k := range key {
			count[int(k>>shift&0xffff)+1]++
		}
		if count[int(key[0]>>shift&0xffff)+1] == n {
			continue // one digit value: this pass would move nothing
		}
		for d := 1; d <= 1<<16; d++ {
			count[d] += count[d-1]
		}
		for _, i := range src {
			d := int(key[i] >> shift & 0xffff)
			dst[count[d]] = i
			count[d]++
		}
		src, dst = dst, src
	}
	return src
}
