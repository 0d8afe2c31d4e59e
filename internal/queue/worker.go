package queue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// JobInfo is a job as a worker sees it.
type JobInfo struct {
	ID, Kind, DB string
	Spec         []byte
}

// Handler does one task. It must check that the task only names what
// this worker serves (the job's database, ranges inside it): task bodies
// come from the network. work is the task's size in work units (DP
// cells), reported for throughput. An error fails the task (and the
// run), unless it is Transient.
type Handler func(ctx context.Context, job *JobInfo, task []byte) (body []byte, work float64, err error)

// Transient marks a handler's error as one that may pass (a lost
// connection while fetching a block): the task is not failed but left
// pending, and after the visibility timeout a worker takes it again,
// up to MaxDeliveries times.
func Transient(err error) error { return &transientError{err} }

type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// IsTransient reports whether err was marked Transient.
func IsTransient(err error) bool {
	var t *transientError
	return errors.As(err, &t)
}

// WorkerStats is what a worker has done since it started.
type WorkerStats struct {
	Tasks int
	Work  float64       // work units of the tasks done
	Busy  time.Duration // in handlers (each task's own time, when several run at once)
	// Overhead is the queue's share of the worker's time: the round trips
	// that fetch a waiting task and the job, and those that post the
	// result and acknowledge the task. Waiting for work is not counted.
	Overhead time.Duration
}

// Worker takes tasks from the streams of its databases.
type Worker struct {
	Client *redis.Client
	Name   string   // consumer name, unique per worker process
	DBs    []string // fingerprints of the databases served
	Kinds  map[string]Handler
	// Visibility is how long a task may go without its worker's heartbeat
	// before another worker takes it over (default 30 s).
	Visibility time.Duration
	// MaxDeliveries: a task handed out this many times (its workers died)
	// is failed instead of handed out again (default 5).
	MaxDeliveries int64
	// Idle, if positive, makes Run return after this long without a task.
	Idle time.Duration
	// Log receives one line per event worth knowing (stderr).
	Log func(string)
	// AfterTask, if set, runs between computing a result and posting it
	// (tests use it to be killed mid-task).
	AfterTask func()
	// Device says what computes (e.g. "GPU 0 NVIDIA H100", "CPU x16");
	// results carry it to the submitter's progress report.
	Device string
	// Tasks is how many tasks the worker does at once (default 1). With
	// more than one, the next task starts while the others run: what a
	// task does alone (reading its block, its slowest query's last
	// steps, the queue's round trips) overlaps the others' work. The
	// handlers must then be safe to run at once.
	Tasks int

	jobs    map[string]*JobInfo
	mu      sync.Mutex
	stats   WorkerStats
	posting chan struct{} // closed when the result being posted in the background is in
	slots   chan struct{} // one per task running
	running sync.WaitGroup
}

// Stats returns what the worker has done so far.
func (w *Worker) Stats() WorkerStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(fmt.Sprintf(format, args...))
	}
}

// Run takes and does tasks until ctx ends (or the worker has been idle
// for Idle). Redis errors are retried forever: a worker outlives restarts.
func (w *Worker) Run(ctx context.Context) error {
	if w.Visibility <= 0 {
		w.Visibility = 30 * time.Second
	}
	if w.MaxDeliveries <= 0 {
		w.MaxDeliveries = 5
	}
	w.jobs = make(map[string]*JobInfo)
	w.slots = make(chan struct{}, max(1, w.Tasks))
	streams := make([]string, len(w.DBs))
	for i, db := range w.DBs {
		streams[i] = TaskStream(db)
	}
	ready := false
	lastTask := time.Now()
	// Looking for silent workers' tasks costs a round trip; doing it a few
	// times per visibility timeout is enough, and keeps it off the path of
	// every task.
	var lastReclaim time.Time
	reclaimEvery := min(w.Visibility/4, time.Second)
	var lastErr string
	defer w.waitPost()     // the last result goes out before Run returns
	defer w.running.Wait() // and the tasks still running end first
	for ctx.Err() == nil {
		if w.Idle > 0 && time.Since(lastTask) > w.Idle && len(w.slots) == 0 {
			return nil
		}
		// A task is taken only when it can start.
		select {
		case w.slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		err := func() error {
			started := false
			defer func() {
				if !started {
					<-w.slots
				}
			}()
			if !ready {
				for _, s := range streams {
					if err := ensureGroup(ctx, w.Client, s); err != nil {
						return err
					}
				}
				ready = true
			}
			// Round trips spent while tasks are waiting count as the queue's
			// overhead, from here; a blocking read that waits for work
			// restarts the clock when it returns.
			asked := time.Now()
			if time.Since(lastReclaim) >= reclaimEvery {
				did, err := w.reclaim(ctx, streams, asked, &started)
				if err != nil || did {
					if did {
						lastTask = time.Now()
					}
					return err
				}
				lastReclaim = time.Now()
			}
			args := make([]string, 0, 2*len(streams))
			args = append(args, streams...)
			for range streams {
				args = append(args, ">")
			}
			read := func(block time.Duration) ([]redis.XStream, error) {
				return w.Client.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: w.Name,
					Streams: args, Count: 1, Block: block}).Result()
			}
			res, err := read(-1) // no BLOCK: answers at once
			if err == redis.Nil {
				res, err = read(min(w.Visibility/2, 2*time.Second))
				asked = time.Now()
			}
			if err == redis.Nil {
				return nil
			}
			if err != nil {
				return err
			}
			for _, st := range res {
				for _, m := range st.Messages {
					lastTask = time.Now()
					if err := w.do(ctx, st.Stream, m, asked, &started); err != nil {
						return err
					}
				}
			}
			return nil
		}()
		if err != nil && ctx.Err() == nil {
			if isNoGroup(err) {
				ready = false // Redis lost the group (a restart): make it again
			}
			if msg := err.Error(); msg != lastErr {
				w.logf("Redis: %v (retrying)", err)
				lastErr = msg
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		if err == nil && lastErr != "" {
			w.logf("Redis: working again")
			lastErr = ""
		}
	}
	return nil
}

// reclaim takes over one task whose worker has not been heard of for the
// visibility timeout.
func (w *Worker) reclaim(ctx context.Context, streams []string, asked time.Time, started *bool) (bool, error) {
	for _, s := range streams {
		msgs, _, err := w.Client.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: s, Group: group,
			MinIdle: w.Visibility, Start: "0-0", Count: 1, Consumer: w.Name}).Result()
		if err != nil {
			return false, err
		}
		for _, m := range msgs {
			pend, err := w.Client.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: s, Group: group,
				Start: m.ID, End: m.ID, Count: 1}).Result()
			if err != nil {
				return false, err
			}
			if len(pend) == 1 && pend[0].RetryCount > w.MaxDeliveries {
				w.logf("task %s of job %s was handed out %d times; failing it", field(m, "task"), field(m, "job"), pend[0].RetryCount)
				return true, w.fail(ctx, s, m, fmt.Sprintf("handed out %d times without a result (its workers died?)", pend[0].RetryCount))
			}
			w.logf("took over task %s of job %s (its worker went silent)", field(m, "task"), field(m, "job"))
			return true, w.do(ctx, s, m, asked, started)
		}
	}
	return false, nil
}

// job fetches (and caches) a task's job; nil when it is gone.
func (w *Worker) job(ctx context.Context, id string) (*JobInfo, error) {
	if j, ok := w.jobs[id]; ok {
		return j, nil
	}
	v, err := w.Client.HGetAll(ctx, jobKey(id)).Result()
	if err != nil {
		return nil, err
	}
	if v["kind"] == "" {
		return nil, nil
	}
	j := &JobInfo{ID: id, Kind: v["kind"], DB: v["db"], Spec: []byte(v["spec"])}
	if len(w.jobs) > 16 {
		clear(w.jobs)
	}
	w.jobs[id] = j
	return j, nil
}

// do runs one task, then posts its result and acknowledges the task (in
// the background). A failure to post leaves the task pending, to be done
// again. asked is when the worker started fetching the task, for the
// overhead account. The task holds one of the worker's slots, which do
// hands on (setting *started) when the task goes on in the background;
// otherwise Run frees it.
func (w *Worker) do(ctx context.Context, stream string, m redis.XMessage, asked time.Time, started *bool) error {
	id := field(m, "job")
	j, err := w.job(ctx, id)
	if err != nil {
		return err
	}
	if j == nil {
		// The job is over (or its submitter died): drop the task.
		return w.Client.XAck(ctx, stream, group, m.ID).Err()
	}
	if TaskStream(j.DB) != stream {
		return w.fail(ctx, stream, m, "the task's stream is not its job's database")
	}
	h, ok := w.Kinds[j.Kind]
	if !ok {
		return w.fail(ctx, stream, m, fmt.Sprintf("this worker does not run %q jobs", j.Kind))
	}
	if cap(w.slots) <= 1 {
		return w.run(ctx, stream, m, j, h, asked)
	}
	// Several at once: the task runs in the background and posts its own
	// result; its slot is free as soon as it is computed.
	*started = true
	w.running.Add(1)
	go func() {
		defer w.running.Done()
		if err := w.run(ctx, stream, m, j, h, asked); err != nil && ctx.Err() == nil {
			w.logf("task %s of job %s: Redis: %v (the task stays pending; it will be done again)", field(m, "task"), id, err)
		}
	}()
	return nil
}

// run computes a task with h and posts its result: in the background
// when the worker does one task at a time (the next task's fetch and
// computation overlap the post), else before it returns.
func (w *Worker) run(ctx context.Context, stream string, m redis.XMessage, j *JobInfo, h Handler, asked time.Time) error {
	id := j.ID
	several := cap(w.slots) > 1
	hbCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.heartbeat(hbCtx, stream, m.ID) }()
	start := time.Now()
	body, work, herr := h(ctx, j, []byte(field(m, "body")))
	elapsed := time.Since(start)
	if herr == nil && w.AfterTask != nil {
		w.AfterTask()
	}
	if several {
		<-w.slots // computed: the next task may start
	}
	defer func() {
		stop()
		wg.Wait()
	}()
	if herr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if IsTransient(herr) {
			// Left pending: taken again after the visibility timeout.
			w.logf("task %s of job %s: %v (leaving it for a retry)", field(m, "task"), id, herr)
			return nil
		}
		w.logf("task %s of job %s failed: %v", field(m, "task"), id, herr)
		return w.fail(ctx, stream, m, herr.Error())
	}
	// The queue's cost to this task is what it waited for: fetching the
	// task and its job, and (one task at a time) the previous post if
	// still under way.
	overhead := start.Sub(asked)
	if !several {
		// The result is posted in the background while the next task
		// runs, so the post's round trip is off the worker's path; one
		// post at a time.
		waitFrom := time.Now()
		w.waitPost()
		overhead += time.Since(waitFrom)
	}
	values := []any{"task", field(m, "task"), "worker", w.Name, "device", w.Device, "status", "ok",
		"body", body, "sum", Checksum(body), "elapsed_ms", millis(elapsed), "overhead_ms", millis(overhead),
		"work", strconv.FormatFloat(work, 'g', -1, 64)}
	post := func() error {
		// Not ctx: a result computed before the worker was told to stop
		// still goes out.
		pctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.post(pctx, stream, m, values); err != nil {
			w.logf("%v (the task stays pending; it will be done again)", err)
			return nil
		}
		w.mu.Lock()
		w.stats.Tasks++
		w.stats.Work += work
		w.stats.Busy += elapsed
		w.stats.Overhead += overhead
		w.mu.Unlock()
		return nil
	}
	if several {
		return post()
	}
	done := make(chan struct{})
	w.posting = done
	go func() {
		defer close(done)
		post()
	}()
	return nil
}

// waitPost waits for the result being posted in the background, if any.
func (w *Worker) waitPost() {
	if w.posting != nil {
		<-w.posting
		w.posting = nil
	}
}

func millis(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1e3, 'f', 3, 64) }

// heartbeat keeps a task claimed while it runs: re-claiming resets its
// idle time, so no other worker takes it over.
func (w *Worker) heartbeat(ctx context.Context, stream, id string) {
	t := time.NewTicker(w.Visibility / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.Client.XClaimJustID(ctx, &redis.XClaimArgs{Stream: stream, Group: group, Consumer: w.Name,
				MinIdle: 0, Messages: []string{id}})
		}
	}
}

func (w *Worker) fail(ctx context.Context, stream string, m redis.XMessage, why string) error {
	return w.post(ctx, stream, m, []any{"task", field(m, "task"), "worker", w.Name, "status", "error", "error", why})
}

// postScript adds a result, only while the job exists (a late result, of
// a task finished twice after the submitter is done, would leave a stream
// behind), and acknowledges the task, in one round trip and atomically:
// a worker dying before it leaves the task pending, to be done again.
// KEYS: the job, its results, the task stream; ARGV: the group, the task's
// message ID, then the result's fields.
var postScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('XADD', KEYS[2], '*', unpack(ARGV, 3))
  redis.call('EXPIRE', KEYS[2], 600)
end
redis.pcall('XACK', KEYS[3], ARGV[1], ARGV[2])
return 1`)

// post adds a result to the job's result stream and acknowledges the
// task.
func (w *Worker) post(ctx context.Context, stream string, m redis.XMessage, values []any) error {
	id := field(m, "job")
	args := append([]any{group, m.ID}, values...)
	if err := postScript.Run(ctx, w.Client, []string{jobKey(id), resultKey(id), stream}, args...).Err(); err != nil {
		return fmt.Errorf("posting the result of task %s: %w", field(m, "task"), err)
	}
	return nil
}
