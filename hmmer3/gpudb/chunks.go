package gpudb

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForChunks calls fn on consecutive ranges [lo, hi) covering [0, n), on all
// cores at once: the host's per-target work around a kernel (turning its
// raw results into scores) is as long as the database.
//
// The caller works through the ranges itself, and helper goroutines take
// the next range when they get to run. In hmmsearch --gpu every core is
// busy with other queries' Forward and domain work, and a goroutine that
// is started may wait for a core; the caller does not wait for helpers
// that never started, only for ranges a helper has begun. Small n runs on
// the caller alone.
func ForChunks(n int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	if workers == 1 {
		fn(0, n)
		return
	}
	// Four ranges a worker, so that a helper that starts late still finds
	// work, and one preempted in its range holds up little.
	pieces := min(4*workers, max(1, n/1024))
	step := (n + pieces - 1) / pieces
	pieces = (n + step - 1) / step
	var next atomic.Int64
	var done sync.WaitGroup
	done.Add(pieces)
	work := func() {
		for {
			k := int(next.Add(1) - 1)
			if k >= pieces {
				return
			}
			lo := k * step
			fn(lo, min(lo+step, n))
			done.Done()
		}
	}
	for range workers - 1 {
		go work()
	}
	work()
	done.Wait()
}

// ForEachOf calls fn on every index of idx (targets a filter wants), on
// all cores.
func ForEachOf(idx []int, fn func(i int)) {
	ForChunks(len(idx), func(lo, hi int) {
		for _, i := range idx[lo:hi] {
			fn(i)
		}
	})
}
