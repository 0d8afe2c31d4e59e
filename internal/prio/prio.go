// Package prio is a counting semaphore that hands each freed slot to the
// waiter of the highest rank, the earliest among equals: the queries a
// GPU search keeps in flight take the device's lanes in turn, largest
// model first, instead of all advancing a little at a time
// (hmmer3/hmmsearch/gpurank.go).
package prio

import (
	"container/heap"
	"sync"
)

// Slots is a counting semaphore with ranked waiters. The zero value has
// no slots; use New.
type Slots struct {
	mu      sync.Mutex
	free    int
	arrived uint64
	waiting waiters
}

// New returns n slots (at least one).
func New(n int) *Slots { return &Slots{free: max(1, n)} }

// Acquire takes a slot, waiting while none is free; of the waiters, the
// one of the highest rank gets the next slot freed, the earliest among
// equal ranks.
func (s *Slots) Acquire(rank int64) {
	s.mu.Lock()
	if s.free > 0 { // then no one waits: Release hands slots to waiters first
		s.free--
		s.mu.Unlock()
		return
	}
	w := &waiter{rank: rank, arrived: s.arrived, ready: make(chan struct{})}
	s.arrived++
	heap.Push(&s.waiting, w)
	s.mu.Unlock()
	<-w.ready
}

// Release gives a slot back: to the first waiter, or free.
func (s *Slots) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) > 0 {
		close(heap.Pop(&s.waiting).(*waiter).ready)
		return
	}
	s.free++
}

type waiter struct {
	rank    int64
	arrived uint64
	ready   chan struct{}
}

// waiters is a heap, the next to serve at its root.
type waiters []*waiter

func (h waiters) Len() int { return len(h) }
func (h waiters) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank > h[j].rank
	}
	return h[i].arrived < h[j].arrived
}
func (h waiters) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *waiters) Push(x any)   { *h = append(*h, x.(*waiter)) }
func (h *waiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}
