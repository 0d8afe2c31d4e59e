package pipeline

import (
	"container/heap"
	"sync"
)

// slotQueue hands out the process's scratch slots (scratchslots.go) in an
// order that keeps the GPUs fed when queries of very different cost run
// at once: a many-model search whose first models are large spends a
// second or more of every core on their domain definition, and first
// come, first served left the small queries behind them waiting, in their
// Forward stage, for a slot, while they held the devices' places in
// flight (docs/BENCHMARKS.md, issue 5).
//
//   - A query's tasks before its last device call (CallsDone: the exact
//     Forward filter) are urgent and go first.
//   - The others (Backward parsers, domain definition) go smallest model
//     first, ties in arrival order: the small queries' few targets pass
//     the large ones' many.
//   - While some query is still in its device stages and more are to
//     start (QueriesToStart), those other tasks leave reserve slots free,
//     so that the cores the filters' host passes need between launches
//     (not slot-bound) are not all held by domain definition. Once the
//     last query has started every slot serves them: a run of a few
//     large models is bound by its domains on the cores.
//
// A search with no CallsDone accelerator (the cores alone) has only
// urgent tasks: first come, first served, as a plain semaphore.
type slotQueue struct {
	mu        sync.Mutex
	size      int  // slots
	reserve   int  // left free by later tasks while onDevice > 0 and toStart
	held      int  // slots taken
	heldLater int  // of which by later tasks
	onDevice  int  // queries before their CallsDone
	toStart   bool // queries are still to start (QueriesToStart)
	seq       int64
	urgent    []slotWaiter // in arrival order
	later     laterWaiters // served smallest key first, then by seq
}

type slotWaiter struct {
	key int
	seq int64
	ch  chan struct{}
}

// laterWaiters is a heap of the later tasks' waiters: a query's domain
// definition may have a waiter for each of its workers.
type laterWaiters []slotWaiter

func (h laterWaiters) Len() int { return len(h) }
func (h laterWaiters) Less(i, j int) bool {
	return h[i].key < h[j].key || (h[i].key == h[j].key && h[i].seq < h[j].seq)
}
func (h laterWaiters) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *laterWaiters) Push(x any)   { *h = append(*h, x.(slotWaiter)) }
func (h *laterWaiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	return w
}

func newSlotQueue(size, reserve int) *slotQueue {
	return &slotQueue{size: max(1, size), reserve: min(max(0, reserve), size-1)}
}

// take waits for a slot; key orders later tasks (the model's length).
func (q *slotQueue) take(urgent bool, key int) {
	ch := make(chan struct{})
	q.mu.Lock()
	q.seq++
	w := slotWaiter{key: key, seq: q.seq, ch: ch}
	if urgent {
		q.urgent = append(q.urgent, w)
	} else {
		heap.Push(&q.later, w)
	}
	q.dispatch()
	q.mu.Unlock()
	<-ch
}

// give returns a slot taken by take(urgent, ...).
func (q *slotQueue) give(urgent bool) {
	q.mu.Lock()
	q.held--
	if !urgent {
		q.heldLater--
	}
	q.dispatch()
	q.mu.Unlock()
}

// deviceStages counts a query into (+1) or out of (-1) its device stages.
func (q *slotQueue) deviceStages(delta int) {
	q.mu.Lock()
	q.onDevice += delta
	q.dispatch()
	q.mu.Unlock()
}

// queriesToStart sets q.toStart.
func (q *slotQueue) queriesToStart(more bool) {
	q.mu.Lock()
	q.toStart = more
	q.dispatch()
	q.mu.Unlock()
}

// dispatch wakes the waiters that may have a slot now; q.mu is held.
func (q *slotQueue) dispatch() {
	for q.held < q.size && len(q.urgent) > 0 {
		close(q.urgent[0].ch)
		q.urgent = q.urgent[1:]
		q.held++
	}
	limit := q.size
	if q.onDevice > 0 && q.toStart {
		limit -= q.reserve
	}
	for q.held < q.size && q.heldLater < limit && len(q.later) > 0 {
		close(heap.Pop(&q.later).(slotWaiter).ch)
		q.held++
		q.heldLater++
	}
}
