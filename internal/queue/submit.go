package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Job is what a submitter puts on the queue: a kind that workers know
// how to run, the database its tasks read (its fingerprint names the task
// stream), a spec every task shares (models, options) and the tasks.
type Job struct {
	Kind  string
	DB    string
	Spec  []byte
	Tasks [][]byte
}

// Result is one task's result as a worker posted it.
type Result struct {
	Task     int
	Worker   string
	Device   string // what computed it, as the worker says
	Body     []byte
	Elapsed  time.Duration // the worker's time on the task
	Overhead time.Duration // the worker's queue round trips for it (WorkerStats.Overhead)
	Work     float64       // the task's work units (DP cells), for throughput
}

// WorkerRate is one worker's share of a job so far.
type WorkerRate struct {
	Name     string
	Device   string
	Tasks    int
	Work     float64       // units done
	Busy     time.Duration // time spent on them
	Overhead time.Duration // the queue's round trips around them
}

// Progress is what the submitter reports after each result.
type Progress struct {
	Done, Total int
	Duplicates  int
	Workers     []WorkerRate // by name
}

// SubmitOptions tune a submission; zero values take the defaults.
type SubmitOptions struct {
	// GiveUp is how long Redis may stay unreachable before the run fails
	// (default 2 minutes).
	GiveUp time.Duration
	// Check is the interval of the job's health checks (default 1 s).
	Check time.Duration
	// TTL is how long Redis keeps the job's keys without a health check,
	// so that the job of a killed submitter disappears (default 10 min).
	TTL time.Duration
	// Progress, if set, is called after each new result.
	Progress func(Progress)
	// Note, if set, receives notes (re-submissions, stalls) for stderr.
	Note func(string)
}

// Submit runs a job: it enqueues the tasks, passes each task's first
// good result to handle (in arrival order), and returns when every task
// has its result, handle fails, a task fails, or Redis is unreachable for
// longer than GiveUp. The job's keys are removed at the end.
func Submit(ctx context.Context, c *redis.Client, job *Job, opt SubmitOptions, handle func(*Result) error) error {
	if opt.GiveUp <= 0 {
		opt.GiveUp = 2 * time.Minute
	}
	if opt.Check <= 0 {
		opt.Check = time.Second
	}
	if opt.TTL <= 0 {
		opt.TTL = 10 * time.Minute
	}
	s := &submission{c: c, job: job, opt: opt, id: randomHex(12), token: randomHex(8),
		done: make([]bool, len(job.Tasks)), rates: make(map[string]*WorkerRate)}
	defer s.cleanup()
	if err := s.enqueue(ctx, false); err != nil {
		return err
	}
	return s.collect(ctx, handle)
}

type submission struct {
	c        *redis.Client
	job      *Job
	opt      SubmitOptions
	id       string
	token    string
	msgIDs   []string // every task message added, for cleanup
	done     []bool
	ndone    int
	dups     int
	lastRead string
	rates    map[string]*WorkerRate
}

// enqueue writes the job and its unfinished tasks. resync says that Redis
// may have lost them (the job's token vanished): everything unfinished is
// put back, and results are read again from the start of their stream.
func (s *submission) enqueue(ctx context.Context, resync bool) error {
	key := jobKey(s.id)
	stream := TaskStream(s.job.DB)
	pipe := s.c.TxPipeline()
	pipe.HSet(ctx, key, "kind", s.job.Kind, "db", s.job.DB, "spec", s.job.Spec, "token", s.token, "tasks", len(s.job.Tasks))
	pipe.Expire(ctx, key, s.opt.TTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	if err := ensureGroup(ctx, s.c, stream); err != nil {
		return err
	}
	pipe = s.c.Pipeline()
	var adds []*redis.StringCmd
	for n, body := range s.job.Tasks {
		if s.done[n] {
			continue
		}
		adds = append(adds, pipe.XAdd(ctx, &redis.XAddArgs{Stream: stream,
			Values: []any{"job", s.id, "task", strconv.Itoa(n), "body", body}}))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	for _, a := range adds {
		s.msgIDs = append(s.msgIDs, a.Val())
	}
	if resync {
		s.lastRead = "0-0"
	} else if s.lastRead == "" {
		s.lastRead = "0-0"
	}
	return nil
}

func (s *submission) collect(ctx context.Context, handle func(*Result) error) error {
	var failingSince time.Time
	var lastErr error
	lost := false // an error happened since the last good health check
	nextCheck := time.Now().Add(s.opt.Check)
	lastProgress := time.Now()
	stallNoted := false
	for s.ndone < len(s.job.Tasks) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !time.Now().Before(nextCheck) || lost {
			err := s.health(ctx, lost)
			nextCheck = time.Now().Add(s.opt.Check)
			if err == nil {
				lost, failingSince = false, time.Time{}
			} else if fail := s.failing(&failingSince, &lastErr, err); fail != nil {
				return fail
			} else {
				time.Sleep(200 * time.Millisecond)
				continue
			}
		}
		streams, err := s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{resultKey(s.id), s.lastRead},
			Count: 64, Block: s.opt.Check}).Result()
		if err == redis.Nil {
			if !stallNoted && s.opt.Note != nil && time.Since(lastProgress) > 60*time.Second {
				s.opt.Note(fmt.Sprintf("no result for %s; is an 'hmmgo worker' serving this database (sha256 %s)?",
					time.Since(lastProgress).Round(time.Second), s.job.DB))
				stallNoted = true
			}
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			lost = true
			if fail := s.failing(&failingSince, &lastErr, err); fail != nil {
				return fail
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for _, st := range streams {
			for _, m := range st.Messages {
				s.lastRead = m.ID
				if err := s.take(ctx, m, handle); err != nil {
					return err
				}
				lastProgress, stallNoted = time.Now(), false
			}
		}
	}
	return nil
}

// failing records a Redis error and returns the run's error once Redis
// has been failing for longer than GiveUp.
func (s *submission) failing(since *time.Time, last *error, err error) error {
	*last = err
	if since.IsZero() {
		*since = time.Now()
		return nil
	}
	if time.Since(*since) > s.opt.GiveUp {
		return fmt.Errorf("lost Redis for %s (%v): %d of %d tasks done; the run is incomplete",
			s.opt.GiveUp, err, s.ndone, len(s.job.Tasks))
	}
	return nil
}

// health refreshes the job's keys and checks that Redis still holds the
// job; when it does not (or after errors), the job is put back.
func (s *submission) health(ctx context.Context, afterErrors bool) error {
	tok, err := s.c.HGet(ctx, jobKey(s.id), "token").Result()
	if err != nil && err != redis.Nil {
		return err
	}
	if err == redis.Nil || tok != s.token || afterErrors {
		undone := len(s.job.Tasks) - s.ndone
		if err == redis.Nil || tok != s.token {
			if s.opt.Note != nil {
				s.opt.Note(fmt.Sprintf("Redis lost this run's state (restarted?); submitting the %d unfinished tasks again", undone))
			}
		} else if s.opt.Note != nil {
			s.opt.Note(fmt.Sprintf("Redis is back; submitting the %d unfinished tasks again in case it lost them", undone))
		}
		return s.enqueue(ctx, true)
	}
	pipe := s.c.Pipeline()
	pipe.Expire(ctx, jobKey(s.id), s.opt.TTL)
	pipe.Expire(ctx, resultKey(s.id), s.opt.TTL)
	_, err = pipe.Exec(ctx)
	return err
}

// take checks one result message and hands a task's first good result on.
func (s *submission) take(ctx context.Context, m redis.XMessage, handle func(*Result) error) error {
	n, err := strconv.Atoi(field(m, "task"))
	if err != nil || n < 0 || n >= len(s.job.Tasks) {
		return fmt.Errorf("a result names task %q, not one of this run's %d", field(m, "task"), len(s.job.Tasks))
	}
	worker := field(m, "worker")
	if st := field(m, "status"); st != "ok" {
		if s.done[n] {
			return nil // a late failure of a task another worker did
		}
		return fmt.Errorf("task %d failed on worker %s: %s", n+1, worker, field(m, "error"))
	}
	if s.done[n] {
		s.dups++
		return nil
	}
	body := []byte(field(m, "body"))
	if Checksum(body) != field(m, "sum") {
		// A damaged result: do the task again rather than trust it.
		if s.opt.Note != nil {
			s.opt.Note(fmt.Sprintf("result of task %d from %s fails its checksum; the task is queued again", n+1, worker))
		}
		_, err := s.c.XAdd(ctx, &redis.XAddArgs{Stream: TaskStream(s.job.DB),
			Values: []any{"job", s.id, "task", strconv.Itoa(n), "body", s.job.Tasks[n]}}).Result()
		return err
	}
	work, _ := strconv.ParseFloat(field(m, "work"), 64)
	r := &Result{Task: n, Worker: worker, Device: field(m, "device"), Body: body, Elapsed: duration(field(m, "elapsed_ms")),
		Overhead: duration(field(m, "overhead_ms")), Work: work}
	if err := handle(r); err != nil {
		return fmt.Errorf("task %d (worker %s): %w", n+1, worker, err)
	}
	s.done[n] = true
	s.ndone++
	wr := s.rates[worker]
	if wr == nil {
		wr = &WorkerRate{Name: worker}
		s.rates[worker] = wr
	}
	wr.Device = r.Device
	wr.Tasks++
	wr.Work += work
	wr.Busy += r.Elapsed
	wr.Overhead += r.Overhead
	if s.opt.Progress != nil {
		p := Progress{Done: s.ndone, Total: len(s.job.Tasks), Duplicates: s.dups}
		for _, w := range s.rates {
			p.Workers = append(p.Workers, *w)
		}
		sort.Slice(p.Workers, func(a, b int) bool { return p.Workers[a].Name < p.Workers[b].Name })
		s.opt.Progress(p)
	}
	return nil
}

// cleanup removes the job: its tasks (done or not), its keys.
func (s *submission) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pipe := s.c.Pipeline()
	for i := 0; i < len(s.msgIDs); i += 512 {
		pipe.XDel(ctx, TaskStream(s.job.DB), s.msgIDs[i:min(i+512, len(s.msgIDs))]...)
	}
	pipe.Del(ctx, jobKey(s.id), resultKey(s.id))
	pipe.Exec(ctx)
}

// duration reads a message's milliseconds field (0 when absent: older
// workers).
func duration(ms string) time.Duration {
	v, _ := strconv.ParseFloat(ms, 64)
	return time.Duration(v * float64(time.Millisecond))
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
