package queue

import (
	"context"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/redistest"
)

// BenchmarkTaskOverhead measures what the queue itself costs per task:
// one worker doing empty tasks (a 10 kB result each, about a task's hit
// list) through a loopback redis-server, everything included (enqueue,
// XREADGROUP, the job lookup, posting, XACK, the submitter's XREAD and
// checksum). Compare ns/op with a task's compute time at the default task
// size (docs/distributed.md).
func BenchmarkTaskOverhead(b *testing.B) {
	s := redistest.Start(b, redistest.Options{})
	c, err := Connect(context.Background(), s.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	result := make([]byte, 10<<10)
	empty := func(context.Context, *JobInfo, []byte) ([]byte, float64, error) { return result, 1, nil }
	wc, _ := Connect(ctx, s.URL())
	defer wc.Close()
	w := &Worker{Client: wc, Name: "bench", DBs: []string{db}, Kinds: map[string]Handler{"square": empty}, Visibility: time.Minute}
	go w.Run(ctx)
	job := squares(b.N)
	b.ResetTimer()
	if err := Submit(context.Background(), c, job, SubmitOptions{}, func(*Result) error { return nil }); err != nil {
		b.Fatal(err)
	}
}
