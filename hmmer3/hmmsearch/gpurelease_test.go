package hmmsearch

import (
	"sync"
	"testing"
	"time"
)

// TestDevicesReleasedAfterLastQuery: the contexts are given back only
// once the last query has started and every query is done with the
// devices, and then before that query's search returns (its domains are
// defined after its last device call).
func TestDevicesReleasedAfterLastQuery(t *testing.T) {
	models, cfg, seqs := testQueries(t, "fn3", "globins4", "Pkinase")
	search := func(lastFirst bool) (*gpuSearch, time.Time) {
		g := devicelessSearch(seqs, 2, true, nil)
		var mu sync.Mutex
		var last time.Time
		var wg sync.WaitGroup
		for _, m := range models {
			g.queryStarts()
			wg.Go(func() {
				if _, _, err := g.searchQuery(m, nil, cfg, 0, true); err != nil {
					t.Error(err)
				}
				mu.Lock()
				last = time.Now()
				mu.Unlock()
			})
		}
		if lastFirst {
			g.lastQueryStarted()
		}
		wg.Wait()
		return g, last
	}
	g, _ := search(false)
	if g.releasing.Load() != nil {
		t.Fatal("contexts given back before the last query had started")
	}
	g.lastQueryStarted()
	if !g.releasedWithin(10 * time.Second) {
		t.Fatal("contexts not given back after the last query")
	}
	g, last := search(true)
	g.free()
	if !g.releasedWithin(10*time.Second) || !g.releaseFrom.Before(last) {
		t.Fatalf("contexts given back at %v, the last search returned at %v: not beside its domains", g.releaseFrom, last)
	}
}
