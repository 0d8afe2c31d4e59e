package gpudb

import "sync"

// Pool keeps per-target arrays of the host passes around the filters
// (results copied back, words uploaded, scores: ~2 MB each at 485,000
// targets) for the next query instead of fresh, cleared memory each
// launch. Unlike
// sync.Pool it keeps what it is given until Max arrays are held, so a
// test can see the reuse, and memory stays bounded by Max arrays.
// Arrays come back uncleared: callers write every entry they read.
type Pool[T any] struct {
	// Max is the most arrays kept (0: 32, about three a query in flight).
	Max  int
	mu   sync.Mutex
	free [][]T
}

// Get returns an array of n bytes, reused when a kept one is large
// enough. Its contents are whatever its last user left.
func (p *Pool[T]) Get(n int) []T {
	p.mu.Lock()
	for k := len(p.free) - 1; k >= 0; k-- {
		if b := p.free[k]; cap(b) >= n {
			last := len(p.free) - 1
			p.free[k] = p.free[last]
			p.free[last] = nil
			p.free = p.free[:last]
			p.mu.Unlock()
			return b[:n]
		}
	}
	p.mu.Unlock()
	return make([]T, n)
}

// Put keeps b for a later Get, or drops it when the pool is full.
func (p *Pool[T]) Put(b []T) {
	if cap(b) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	limit := p.Max
	if limit <= 0 {
		limit = 32
	}
	if len(p.free) < limit {
		p.free = append(p.free, b[:0])
	}
}
