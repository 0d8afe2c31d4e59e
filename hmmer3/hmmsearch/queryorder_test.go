package hmmsearch

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
)

// TestCostliestFirst: with $HMMGO_QUERY_ORDER=cost a GPU search's runner
// starts each chunk's queries the longest model first, and by default in
// the file's order; either way it prints the results in the file's order.
func TestCostliestFirst(t *testing.T) {
	lengths := []int{5, 50, 10, 40, 30, 20, 60}
	for _, c := range []struct {
		order string
		want  []int // start order, by model length
	}{
		{"cost", []int{50, 40, 10, 5, 60, 30, 20}}, // chunks of 4: {5 50 10 40} {30 20 60}
		{"", lengths},
	} {
		s := &search{shard: &shardRun{}, queryOrder: c.order}
		q := newQueryRunner(s, pipeline.DefaultConfig(), report.Options{})
		// Two queries at once, but started one at a time, so that the start
		// order is the runner's alone.
		q.parallel, q.slots, q.chunkSize = 2, make(chan struct{}, 1), 1
		if c.order == "cost" {
			q.chunkSize = 4
		}
		var mu sync.Mutex
		var started []int
		q.run = func(h *hmm.HMM, nquery int, _ pipeline.Config) (*queryResult, error) {
			mu.Lock()
			started = append(started, h.M)
			mu.Unlock()
			return &queryResult{Name: h.Name, M: h.M}, nil
		}
		for i, m := range lengths {
			if err := q.add(&hmm.HMM{Name: fmt.Sprint(m), M: m}, i+1); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.flush(); err != nil {
			t.Fatal(err)
		}
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
