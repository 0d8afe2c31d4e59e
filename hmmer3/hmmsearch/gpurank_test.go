package hmmsearch

import "testing"

// TestQueryRank: the larger model ranks first, and of equal models the
// earlier in the file; each query's accelerator carries its rank.
func TestQueryRank(t *testing.T) {
	if !(queryRank(300, 7) > queryRank(299, 1)) {
		t.Error("a model of 300 nodes ranks below one of 299")
	}
	if !(queryRank(300, 1) > queryRank(300, 2)) {
		t.Error("query 1 ranks below query 2 of the same size")
	}
	g := &gpuSearch{gpus: []*gpuKernels{{}}}
	g.splitTargets(nil, nil, false)
	acc, done := g.forQuery(queryRank(300, 1))
	defer done()
	if r := acc.(gpuOn).rank; r != queryRank(300, 1) {
		t.Errorf("the query's accelerator has rank %d, want %d", r, queryRank(300, 1))
	}
}
