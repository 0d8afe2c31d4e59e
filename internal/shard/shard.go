// Package shard splits a search into N static parts for batch schedulers
// (Slurm array jobs, Kubernetes indexed jobs) and carries each part's
// results to `hmmgo merge` in a self-checking side file.
//
// Two ways of dealing out work are provided. Interleaved sorts the items
// by length and deals them round-robin, as ClawHMMER partitions its
// database, so that every shard gets the same mix of long and short
// items and the shards finish together. Contiguous cuts the items, in
// order, into runs of nearly equal weight, for outputs that merge by
// plain concatenation.
package shard

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Spec is one shard: number Index (1-based) of Count.
type Spec struct {
	Index, Count int
}

// String is the "i/N" form Parse reads.
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Parse reads "i/N" with 1 <= i <= N. It is 1-based so that "1/4" reads
// as "the first of four" (Slurm: --array=1-4 and --shard $SLURM_ARRAY_TASK_ID/4).
func Parse(s string) (Spec, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard %q: expected i/N, e.g. 1/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("--shard %q: expected two integers i/N, e.g. 1/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return Spec{}, fmt.Errorf("--shard %q: need 1 <= i <= N", s)
	}
	return Spec{Index: i, Count: n}, nil
}

// Interleaved returns, in increasing order, the items of shard s when
// items 0..len(lengths)-1 are sorted by decreasing length (ties in item
// order) and dealt out round-robin: the item of rank r goes to shard
// r mod N + 1.
func Interleaved(lengths []int64, s Spec) []int64 {
	order := make([]int64, len(lengths))
	for i := range order {
		order[i] = int64(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return lengths[order[a]] > lengths[order[b]] })
	var mine []int64
	for r := s.Index - 1; r < len(order); r += s.Count {
		mine = append(mine, order[r])
	}
	sort.Slice(mine, func(a, b int) bool { return mine[a] < mine[b] })
	return mine
}

// Contiguous returns the items [first, end) of shard s when the items,
// in order, are cut into N runs of nearly equal total weight: an item
// belongs to the shard in whose share of the total weight its midpoint
// falls. Every item belongs to exactly one shard and runs are in shard
// order, so concatenating the shards' outputs gives the whole output.
func Contiguous(weights []int64, s Spec) (first, end int) {
	var total float64
	for _, w := range weights {
		total += float64(w)
	}
	owner := func(before, w float64) int {
		if total == 0 {
			return 0
		}
		k := int((before + w/2) / total * float64(s.Count))
		return min(k, s.Count-1)
	}
	first, end = -1, -1
	var before float64
	for i, w := range weights {
		k := owner(before, float64(w))
		before += float64(w)
		if k == s.Index-1 {
			if first < 0 {
				first = i
			}
			end = i + 1
		}
	}
	if first < 0 {
		// An empty shard sits where its run would have been.
		before = 0
		first = len(weights)
		for i, w := range weights {
			if owner(before, float64(w)) >= s.Index-1 {
				first = i
				break
			}
			before += float64(w)
		}
		end = first
	}
	return first, end
}
