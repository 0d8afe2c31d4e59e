package pipeline

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// A staged search makes a worker per --cpu for every query in flight
// (hmmsearch --gpu keeps 12 in flight), and a worker's scratch (DP
// matrices and domain definition's buffers) grows to the longest
// envelope it meets: hundreds of megabytes for a model of 2,400 nodes.
// Held per worker for the whole Forward and domain definition stages,
// the 24-model GPU run ended with 20-25 GB of heap, in 4 KiB pages that
// the kernel then spent more than a second unmapping at the process's
// exit (docs/BENCHMARKS.md, issue 5). The tasks that need scratch
// (forEachOf's groups) therefore take one of GOMAXPROCS slots for the
// process and hand their scratch back after each group, so the scratch in
// use is at most one per core, whatever the queries in flight; the cores
// could not run more of those tasks at once anyway. The slots go in
// slotQueue's order.
var scratchSlots = sync.OnceValue(func() *slotQueue {
	n := runtime.GOMAXPROCS(0)
	return newSlotQueue(n, scratchReserve(n))
})

// scratchReserve is how many of n slots the tasks past their query's
// device stages leave free while other queries are in theirs and more are
// to start: half. Measured on two H200s with 32 cores (docs/BENCHMARKS.md,
// issue 5), the 1,000-model run took 4.9-5.3 s with 16 reserved, 5.3-5.5 s
// with 8, 5.3-5.6 s with none; the 24-model run on 16 cores 0.04-0.07 s
// longer than with none. $HMMGO_SCRATCH_RESERVE sets it, for A/B runs.
func scratchReserve(n int) int {
	if v, err := strconv.Atoi(os.Getenv("HMMGO_SCRATCH_RESERVE")); err == nil && v >= 0 {
		return v
	}
	return n / 2
}

// QueriesToStart says whether the caller (a many-model GPU search) has
// queries still to start: the scratch slots keep their reserve only then
// (slotQueue).
func QueriesToStart(more bool) { scratchSlots().queriesToStart(more) }

// withScratchSlot runs fn on w in a slot and gives w's scratch back to
// the pool afterwards (the next group's worker takes it, reset). urgent
// says whether w's query is still in its device stages (slotQueue).
func withScratchSlot(w *worker, urgent bool, fn func() error) error {
	slots := scratchSlots()
	slots.take(urgent, w.om.M)
	defer func() {
		w.release()
		slots.give(urgent)
	}()
	return fn()
}

// scratchOut counts the scratch workers hold; scratchPeak is its largest
// value, which tests check.
var scratchOut, scratchPeak atomic.Int64

// scratchKeepBytes is how much of domain definition's matrices a scratch
// keeps when it goes back to the pool; larger ones are freed (-1: all
// kept). The matrices live in huge pages (domaindef.NewInHugePages), so
// freeing them is quick, but the next worker to need them faults them in
// again. HMMGO_SCRATCH_KEEP_MB sets it, for A/B runs; tests replace it.
var scratchKeepBytes = sync.OnceValue(func() int {
	if mb, err := strconv.Atoi(os.Getenv("HMMGO_SCRATCH_KEEP_MB")); err == nil && mb >= 0 {
		return mb << 20
	}
	return -1
})
