package prio

import (
	"sync"
	"testing"
	"time"
)

// TestRankedOrder: with the one slot held, waiters queue; released one
// at a time, the slot goes to the highest rank, the earliest of equals.
func TestRankedOrder(t *testing.T) {
	s := New(1)
	s.Acquire(0)
	ranks := []int64{1, 5, 3, 5, 0, 3}
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for k, r := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Acquire(r)
			mu.Lock()
			order = append(order, k)
			mu.Unlock()
			s.Release()
		}()
		waitQueued(t, s, k+1) // arrival order is k's order
	}
	s.Release()
	wg.Wait()
	want := []int{1, 3, 2, 5, 0, 4} // ranks 5, 5, 3, 3, 1, 0
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("served %v, want %v", order, want)
		}
	}
	if s.free != 1 {
		t.Errorf("%d slots free at the end, want 1", s.free)
	}
}

// TestCounts: n slots admit n holders at once, never more.
func TestCounts(t *testing.T) {
	const n, holders = 3, 40
	s := New(n)
	var (
		mu       sync.Mutex
		in, most int
		wg       sync.WaitGroup
	)
	for k := range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Acquire(int64(k % 4))
			mu.Lock()
			in++
			most = max(most, in)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			in--
			mu.Unlock()
			s.Release()
		}()
	}
	wg.Wait()
	if most != n || s.free != n {
		t.Errorf("%d held at once at most (want %d), %d free at the end", most, n, s.free)
	}
}

// waitQueued waits until n goroutines wait on s.
func waitQueued(t *testing.T, s *Slots, n int) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		q := len(s.waiting)
		s.mu.Unlock()
		if q == n {
			return
		}
	}
	t.Fatalf("%d waiters never queued", n)
}
