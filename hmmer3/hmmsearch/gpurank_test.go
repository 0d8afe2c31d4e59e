package hmmsearch

import (
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
)

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

// TestFilterGates: a gate admits as many launches at once as asked, at
// most one per lane, and one per lane when not asked; the next waits
// for a release.
func TestFilterGates(t *testing.T) {
	for _, c := range []struct{ asked, want int }{
		{filterLaunchesAtOnce, min(filterLaunchesAtOnce, gpudb.LanesPerKernel)},
		{0, gpudb.LanesPerKernel},
		{gpudb.LanesPerKernel + 5, gpudb.LanesPerKernel},
	} {
		g := newFilterGates(c.asked)
		admitted := make(chan func(), c.want+1)
		for range c.want + 1 {
			go func() { admitted <- g.enter(msvGate, 0) }()
		}
		var releases []func()
		for range c.want {
			select {
			case r := <-admitted:
				releases = append(releases, r)
			case <-time.After(5 * time.Second):
				t.Fatalf("asked %d: only %d of %d launches admitted", c.asked, len(releases), c.want)
			}
		}
		select {
		case <-admitted:
			t.Fatalf("asked %d: launch %d admitted while %d held the gate", c.asked, c.want+1, c.want)
		case <-time.After(20 * time.Millisecond):
		}
		releases[0]()
		select {
		case r := <-admitted:
			r()
		case <-time.After(5 * time.Second):
			t.Fatalf("asked %d: a release did not admit the waiting launch", c.asked)
		}
		for _, r := range releases[1:] {
			r()
		}
	}
}
