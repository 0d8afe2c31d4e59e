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
				if _, _, err := g.searchQuery(m, nil, cfg, 0, true, nil); err != nil {
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

// TestLeaveDevicesOnce: a query gives its place on the devices back once,
// at its last device call, also when a device failed under it and it was
// searched again on the other.
func TestLeaveDevicesOnce(t *testing.T) {
	models, cfg, seqs := testQueries(t, "fn3", "globins4")
	for _, failures := range []map[int]failure{nil, {0: {at: 1}}} {
		g := devicelessSearch(seqs, 2, true, failures)
		g.handBack, g.warn = true, func(string) {}
		for _, m := range models {
			left := 0
			if _, _, err := g.searchQuery(m, nil, cfg, 0, false, func() { left++ }); err != nil {
				t.Fatal(err)
			}
			if left != 1 {
				t.Errorf("failures %v, %s: left the devices %d times, want 1", failures, m.HMM.Name, left)
			}
		}
	}
}

// TestRunningQueries: a GPU search runs up to eight times its places in
// queries, fewer when their per-target arrays would pass runningBytes,
// never fewer than its places.
func TestRunningQueries(t *testing.T) {
	for _, c := range []struct{ places, targets, want int }{
		{12, 485_000, 96},
		{24, 485_000, 192},
		{24, 0, 192},
		{12, 50_000_000, 12},
		{12, runningBytes / (40 * 50), 50},
	} {
		if got := runningQueries(c.places, c.targets); got != c.want {
			t.Errorf("runningQueries(%d, %d) = %d, want %d", c.places, c.targets, got, c.want)
		}
	}
}
