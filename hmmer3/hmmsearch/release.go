package hmmsearch

import (
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
)

// gpuRelease frees the GPUs as soon as the last query has made its last
// accelerator call, while the cores still define that query's domains:
// otherwise the driver tears the context down (device memory, modules,
// streams) at the process's exit, after the outputs, where nothing
// overlaps it. Only hmmsearch's own run uses it: a worker keeps its
// contexts for the next task.
type gpuRelease struct {
	mu     sync.Mutex
	open   int  // queries that may still call the accelerator
	closed bool // every query has been started
	fired  bool
	free   func()
	done   chan struct{}
	took   time.Duration
}

func newGPURelease(free func()) *gpuRelease {
	return &gpuRelease{free: free, done: make(chan struct{})}
}

// begin counts a query that is about to use the accelerator; the returned
// function ends that use (calling it more than once is harmless).
func (r *gpuRelease) begin() func() {
	r.mu.Lock()
	r.open++
	r.mu.Unlock()
	var once sync.Once
	return func() { once.Do(r.end) }
}

func (r *gpuRelease) end() {
	r.mu.Lock()
	r.open--
	r.maybeFire()
	r.mu.Unlock()
}

// close says that no query will begin any more.
func (r *gpuRelease) close() {
	r.mu.Lock()
	r.closed = true
	r.maybeFire()
	r.mu.Unlock()
}

func (r *gpuRelease) maybeFire() {
	if r.fired || !r.closed || r.open > 0 {
		return
	}
	r.fired = true
	go func() {
		t := time.Now()
		r.free()
		r.took = time.Since(t)
		close(r.done)
	}()
}

// wait returns once the GPUs are freed, reporting whether the release ran
// and how long it took; a run that ended early (an error) never fires it.
func (r *gpuRelease) wait() (bool, time.Duration) {
	r.mu.Lock()
	fired := r.fired
	r.mu.Unlock()
	if !fired {
		return false, 0
	}
	<-r.done
	return true, r.took
}

// releasingAccel is one query's view of the GPU search: its Parsers call
// is the pipeline's last use of the accelerator, so it ends the query's
// use there (and the query ends it again when it returns, in case it
// failed before).
type releasingAccel struct {
	*gpuSearch
	done func()
}

func (a releasingAccel) Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error) {
	defer a.done()
	return a.gpuSearch.Parsers(om, want)
}

var (
	_ pipeline.BiasAccelerator = releasingAccel{}
	_ pipeline.ScoreRecycler   = releasingAccel{}
	_ pipeline.TargetLengths   = releasingAccel{}
)
