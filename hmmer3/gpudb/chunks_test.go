package gpudb

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every index is visited once, in consecutive ranges, for sizes around
// the thresholds where ForChunks changes how it splits.
func TestForChunksCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 1023, 4095, 4096, 8191, 8192, 10000, 65537, 485000} {
		seen := make([]int32, n)
		var bad atomic.Bool
		ForChunks(n, func(lo, hi int) {
			if lo < 0 || hi > n || lo >= hi {
				bad.Store(true)
				return
			}
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		if bad.Load() {
			t.Fatalf("n=%d: a range out of bounds or empty", n)
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

// ForEachOf visits the indexes idx names, each once, and no other.
func TestForEachOfVisitsIdx(t *testing.T) {
	const n = 100000
	var idx []int
	for i := 3; i < n; i += 7 {
		idx = append(idx, i)
	}
	seen := make([]int32, n)
	ForEachOf(idx, func(i int) { atomic.AddInt32(&seen[i], 1) })
	for i, c := range seen {
		want := int32(0)
		if i%7 == 3 {
			want = 1
		}
		if c != want {
			t.Fatalf("index %d visited %d times, want %d", i, c, want)
		}
	}
}

// With every core held by goroutines that never block, the caller still
// finishes the work itself instead of waiting for helpers to be
// scheduled.
func TestForChunksBusyCores(t *testing.T) {
	defer occupyCores()()
	var sum atomic.Int64
	start := time.Now()
	for range 20 {
		ForChunks(485000, func(lo, hi int) { sum.Add(int64(hi - lo)) })
	}
	if sum.Load() != 20*485000 {
		t.Fatalf("covered %d of %d", sum.Load(), 20*485000)
	}
	t.Logf("20 calls with the cores busy: %v", time.Since(start))
}

// BenchmarkForChunksBusy is one pass over 485,000 targets (a query's
// conversion of a filter's results) while every core runs other work.
func BenchmarkForChunksBusy(b *testing.B) {
	defer occupyCores()()
	out := make([]uint32, 485000)
	b.ResetTimer()
	for range b.N {
		ForChunks(len(out), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = uint32(i) * 3
			}
		})
	}
}

// occupyCores starts one goroutine a core that computes without blocking
// until the returned function is called, which waits for them to end.
func occupyCores() (release func()) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range 100000 {
					x += i
				}
			}
		}()
	}
	return func() { close(stop); wg.Wait() }
}
