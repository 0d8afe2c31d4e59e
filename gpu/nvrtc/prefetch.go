package nvrtc

import (
	"runtime"
	"sync"
)

// A search over many models needs kernels specialised on each model's
// length, and NVRTC takes about a second per program: compiled one query
// at a time, that would dominate the run. Prefetch lets the caller start
// the compilations of upcoming queries on idle cores; Compile then picks
// up the result (or waits for the one compilation in flight) instead of
// compiling the same program twice.

type job struct {
	done chan struct{}
	img  *Image
	err  error
}

var jobs = struct {
	sync.Mutex
	m    map[string]*job // in flight, or prefetched and not yet collected
	seen map[string]bool // every program this process has compiled
}{m: map[string]*job{}, seen: map[string]bool{}}

// prefetchSlots bounds the compilations running in the background.
var prefetchSlots = make(chan struct{}, max(1, runtime.NumCPU()/2))

// Prefetch compiles p for t in the background, through cache c when c is
// not nil, and holds the result for the first Compile of the same program.
// Errors are reported by that Compile.
func Prefetch(p Program, t Target, c *Cache) {
	go func() {
		prefetchSlots <- struct{}{}
		defer func() { <-prefetchSlots }()
		if b, err := plan(p, t); err == nil {
			shared(b.key, true, func() (*Image, error) { return b.run(c) })
		}
	}()
}

// shared runs build for key unless a compilation of key is in flight or
// was prefetched, in which case it waits for that one. A prefetch of a
// program this process already compiled does nothing.
func shared(key string, prefetch bool, build func() (*Image, error)) (*Image, error) {
	jobs.Lock()
	if j := jobs.m[key]; j != nil || (prefetch && jobs.seen[key]) {
		jobs.Unlock()
		if prefetch {
			return nil, nil
		}
		<-j.done
		jobs.Lock()
		if jobs.m[key] == j {
			delete(jobs.m, key)
		}
		jobs.Unlock()
		return j.img, j.err
	}
	j := &job{done: make(chan struct{})}
	jobs.m[key] = j
	jobs.seen[key] = true
	jobs.Unlock()
	j.img, j.err = build()
	close(j.done)
	if !prefetch {
		jobs.Lock()
		delete(jobs.m, key)
		jobs.Unlock()
	}
	return j.img, j.err
}
