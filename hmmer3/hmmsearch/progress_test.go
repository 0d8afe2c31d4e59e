package hmmsearch

import (
	"bytes"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/queue"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	t0 := p.start
	p.now = func() time.Time { return t0.Add(2 * time.Second) }
	p.done(100, 1_000_000_000)
	p.done(300, 1_000_000_000)
	p.end()
	p.end() // a second end adds nothing
	want := "\rhmmgo hmmsearch: 1 queries done in 2.0 s; 500.0 M residues/s, 50.00 GCUPS" +
		"\rhmmgo hmmsearch: 2 queries done in 2.0 s; 1000.0 M residues/s, 200.00 GCUPS\n"
	if b.String() != want {
		t.Errorf("progress printed\n%q\nwant\n%q", b.String(), want)
	}
}

// The queue's progress line and closing lines name each worker's device.
func TestQueueProgressLines(t *testing.T) {
	p := queue.Progress{Done: 3, Total: 10, Workers: []queue.WorkerRate{
		{Name: "a", Device: "GPU 0 NVIDIA H100", Tasks: 2, Work: 4e9, Busy: time.Second, Overhead: 2 * time.Millisecond},
		{Name: "b", Device: "CPU x16", Tasks: 1, Work: 1e9, Busy: 2 * time.Second, Overhead: time.Millisecond},
	}}
	var b bytes.Buffer
	progressLine(&b, p, 5*time.Second)
	want := "\rhmmgo hmmsearch: 3/10 tasks, 5s; a (GPU 0 NVIDIA H100) 2 tasks 4.00 Gcells/s; b (CPU x16) 1 tasks 0.50 Gcells/s\x1b[K"
	if b.String() != want {
		t.Errorf("progress line\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	workerLines(&b, p)
	want = "hmmgo hmmsearch: worker a (GPU 0 NVIDIA H100): 2 tasks, 4.00 Gcells/s, queue overhead 1.000 ms per task (0.20% of task time)\n" +
		"hmmgo hmmsearch: worker b (CPU x16): 1 tasks, 0.50 Gcells/s, queue overhead 1.000 ms per task (0.05% of task time)\n"
	if b.String() != want {
		t.Errorf("worker lines\n%q\nwant\n%q", b.String(), want)
	}
}
