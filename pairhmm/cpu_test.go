package pairhmm

import (
	"math"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestSplitJobs: split jobs cover every haplotype of every batch once,
// none above the limit unless it holds one haplotype, and the results do
// not depend on the number of threads.
func TestSplitJobs(t *testing.T) {
	groups := append(mixedGroups(21), loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))...)
	var jobs []job
	var total int64
	for g := range groups {
		for i := 0; i < len(groups[g].Reads); i += 16 {
			var reads []int
			for r := i; r < min(i+16, len(groups[g].Reads)); r++ {
				reads = append(reads, r)
			}
			j := job{g, reads, 0, len(groups[g].Haplotypes), jobCells(groups, g, reads, 0, len(groups[g].Haplotypes))}
			jobs = append(jobs, j)
			total += j.cells
		}
	}
	const threads = 16
	split := splitJobs(groups, jobs, threads)
	limit := total / (threads * jobsPerThread)
	next := map[[2]int]int{} // (group, first read) -> next haplotype expected
	var sum int64
	for _, j := range split {
		key := [2]int{j.group, j.reads[0]}
		if j.hapLo != next[key] || j.hapHi <= j.hapLo {
			t.Fatalf("job %+v: expected haplotypes from %d", j, next[key])
		}
		next[key] = j.hapHi
		if j.cells > limit && j.hapHi-j.hapLo > 1 {
			t.Errorf("job of %d cells over the limit %d with %d haplotypes", j.cells, limit, j.hapHi-j.hapLo)
		}
		sum += j.cells
	}
	for _, j := range jobs {
		if next[[2]int{j.group, j.reads[0]}] != j.hapHi {
			t.Fatalf("batch %d/%d: haplotypes up to %d covered of %d", j.group, j.reads[0], next[[2]int{j.group, j.reads[0]}], j.hapHi)
		}
	}
	if sum != total {
		t.Errorf("split cells %d, whole %d", sum, total)
	}
	t.Logf("%d batches, %d jobs", len(jobs), len(split))

	one, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Threads: 1})})
	if err != nil {
		t.Fatal(err)
	}
	many, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Threads: threads})})
	if err != nil {
		t.Fatal(err)
	}
	for g := range one {
		for i := range one[g] {
			if math.Float64bits(one[g][i]) != math.Float64bits(many[g][i]) {
				t.Fatalf("group %d pair %d: 1 thread %v, %d threads %v", g, i, one[g][i], threads, many[g][i])
			}
		}
	}
}
