package hmmsearch

import (
	"sync"
	"time"
)

// The GPUs are given back before the run ends. The driver takes about
// 0.1 s to tear a context down (docs/BENCHMARKS.md), and at the
// process's exit that is on the critical path. But once hmmsearch --gpu
// has started its last query and every query has made its last device
// call (pipeline.CallsDone), the workers still define the domains of the
// last queries' survivors: the contexts are released then, beside them.

// queryStarts counts a query that will make device calls; the main loop
// calls it before the query starts.
func (g *gpuSearch) queryStarts() { g.inflight.Add(1) }

// queryCallsDone is called once by a query started by queryStarts when
// it will make no more device calls.
func (g *gpuSearch) queryCallsDone() {
	if g.inflight.Add(-1) == 0 && g.allStarted.Load() {
		g.release()
	}
}

// lastQueryStarted says that no query will start after those counted.
func (g *gpuSearch) lastQueryStarted() {
	g.allStarted.Store(true)
	if g.inflight.Load() == 0 {
		g.release()
	}
}

// release gives every device's context back, in the background.
func (g *gpuSearch) release() {
	g.releaseOnce.Do(func() {
		done := make(chan struct{})
		g.releaseFrom = time.Now() // before the Store that publishes it
		g.releasing.Store(&done)
		go func() {
			defer close(done)
			var wg sync.WaitGroup
			for _, k := range g.gpus {
				if k.ctx != nil { // (tests have parts without devices)
					wg.Go(func() { k.ctx.Release() }) // an error leaves the teardown to the exit
				}
			}
			wg.Wait()
			g.releaseTo = time.Now()
		}()
	})
}

// releaseStarted reports whether release has begun; the process may end
// before it is done (the exit then tears down what is left, as it would
// have torn down everything).
func (g *gpuSearch) releaseStarted() bool { return g.releasing.Load() != nil }

// releasedWithin reports whether a release is done, waiting up to d.
func (g *gpuSearch) releasedWithin(d time.Duration) bool {
	done := g.releasing.Load()
	if done == nil {
		return false
	}
	select {
	case <-*done:
		return true
	default:
	}
	select {
	case <-*done:
		return true
	case <-time.After(d):
		return false
	}
}
