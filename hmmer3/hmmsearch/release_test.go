package hmmsearch

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
)

// TestGPURelease: the GPUs are freed once, only after every query is
// started (close) and every one has ended its use, and ending twice does
// not count twice.
func TestGPURelease(t *testing.T) {
	var freed atomic.Int32
	r := newGPURelease(func() { freed.Add(1) })
	a, b := r.begin(), r.begin()
	a()
	a() // a second end of the same query
	r.close()
	time.Sleep(10 * time.Millisecond)
	if freed.Load() != 0 {
		t.Fatal("freed while a query still used the GPUs")
	}
	b()
	if ran, _ := r.wait(); !ran || freed.Load() != 1 {
		t.Fatalf("after the last query: ran %v, freed %d times", ran, freed.Load())
	}

	// Without close (a run that failed), nothing fires.
	r = newGPURelease(func() { freed.Add(1) })
	r.begin()()
	if ran, _ := r.wait(); ran {
		t.Error("released before every query was started")
	}
}

// TestCostliestFirst: a GPU search's runner starts each chunk's queries
// the longest model first, prints the results in file order, and with
// $HMMGO_QUERY_ORDER=file keeps the file's order; every query ends its
// GPU use, so the release fires after the last.
func TestCostliestFirst(t *testing.T) {
	lengths := []int{5, 50, 10, 40, 30, 20, 60}
	for _, c := range []struct {
		order string
		want  []int // start order, by model length
	}{
		{"", []int{50, 40, 10, 5, 60, 30, 20}}, // chunks of 4: {5 50 10 40} {30 20 60}
		{"file", lengths},
	} {
		s := &search{shard: &shardRun{}, queryOrder: c.order}
		released := make(chan struct{})
		s.release = newGPURelease(func() { close(released) })
		q := newQueryRunner(s, pipeline.DefaultConfig(), report.Options{})
		// Two queries at once, but started one at a time, so that the start
		// order is the runner's alone.
		q.parallel, q.slots, q.chunkSize = 2, make(chan struct{}, 1), 4
		if c.order == "file" {
			q.chunkSize = 1
		}
		var mu sync.Mutex
		var started []int
		q.run = func(h *hmm.HMM, nquery int, _ pipeline.Config, gpuDone func()) (*queryResult, error) {
			mu.Lock()
			started = append(started, h.M)
			mu.Unlock()
			gpuDone()
			return &queryResult{Name: h.Name, M: h.M}, nil
		}
		for i, m := range lengths {
			if err := q.add(&hmm.HMM{Name: fmt.Sprint(m), M: m}, i+1); err != nil {
				t.Fatal(err)
			}
		}
		s.release.close()
		if err := q.flush(); err != nil {
			t.Fatal(err)
		}
		<-released
		if fmt.Sprint(started) != fmt.Sprint(c.want) {
			t.Errorf("order %q: started %v, want %v", c.order, started, c.want)
		}
		var printed []int
		for _, r := range s.shard.results {
			printed = append(printed, r.M)
		}
		if fmt.Sprint(printed) != fmt.Sprint(lengths) {
			t.Errorf("order %q: results in the order %v, want the file's %v", c.order, printed, lengths)
		}
	}
}
