package queue

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// A toy job: task n's result is "n squared"; the database fingerprint is
// made up (it only names the task stream).
const db = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func squares(n int) *Job {
	j := &Job{Kind: "square", DB: db, Spec: []byte("spec")}
	for i := 0; i < n; i++ {
		j.Tasks = append(j.Tasks, []byte(strconv.Itoa(i)))
	}
	return j
}

func square(_ context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
	if string(job.Spec) != "spec" {
		return nil, 0, fmt.Errorf("bad spec %q", job.Spec)
	}
	n, err := strconv.Atoi(string(task))
	if err != nil {
		return nil, 0, err
	}
	return []byte(strconv.Itoa(n * n)), 1, nil
}

func connect(t *testing.T, s *redistest.Server) *redis.Client {
	t.Helper()
	c, err := Connect(context.Background(), s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// collect submits a job and returns each task's result.
func collect(t *testing.T, c *redis.Client, job *Job, opt SubmitOptions) (map[int]string, error) {
	t.Helper()
	got := make(map[int]string)
	var mu sync.Mutex
	err := Submit(context.Background(), c, job, opt, func(r *Result) error {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[r.Task]; dup {
			return fmt.Errorf("task %d handed on twice", r.Task)
		}
		got[r.Task] = string(r.Body)
		return nil
	})
	return got, err
}

func checkSquares(t *testing.T, got map[int]string, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d results for %d tasks", len(got), n)
	}
	for i := 0; i < n; i++ {
		if got[i] != strconv.Itoa(i*i) {
			t.Fatalf("task %d: %q", i, got[i])
		}
	}
}

func startWorkers(t *testing.T, ctx context.Context, s *redistest.Server, n int, h Handler, vis time.Duration) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		w := &Worker{Client: connect(t, s), Name: fmt.Sprintf("w%d", i), DBs: []string{db},
			Kinds: map[string]Handler{"square": h}, Visibility: vis}
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	return &wg
}

// TestDuplicatesDiscarded: a worker that posts every result twice (as a
// reclaimed task finished by two workers would) does not make the
// submitter hand a task on twice.
func TestDuplicatesDiscarded(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	twice := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		body, work, err := square(ctx, job, task)
		c.XAdd(ctx, &redis.XAddArgs{Stream: resultKey(job.ID), Values: []any{"task", string(task), "worker", "dup",
			"status", "ok", "body", body, "sum", Checksum(body)}})
		return body, work, err
	}
	wg := startWorkers(t, ctx, s, 2, twice, time.Second)
	var last Progress
	got, err := collect(t, c, squares(40), SubmitOptions{Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got, 40)
	if last.Done != 40 || last.Duplicates == 0 {
		t.Errorf("progress %+v: want 40 done and duplicates dropped", last)
	}
	cancel()
	wg.Wait()
	// The job's keys are gone.
	if n, _ := c.Keys(context.Background(), prefix+"job:*").Result(); len(n) != 0 {
		t.Errorf("keys left behind: %v", n)
	}
}

// TestDeadWorkersTasksAreReclaimed: a worker that dies in the middle of
// tasks (its context ends before it posts) leaves them pending; another
// worker takes them over after the visibility timeout.
func TestDeadWorkersTasksAreReclaimed(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	dieCtx, die := context.WithCancel(context.Background())
	started := make(chan struct{}, 100)
	hang := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		started <- struct{}{}
		<-ctx.Done() // never finishes: dies with its worker
		return nil, 0, ctx.Err()
	}
	doomed := &Worker{Client: connect(t, s), Name: "doomed", DBs: []string{db}, Kinds: map[string]Handler{"square": hang}, Visibility: 300 * time.Millisecond}
	go doomed.Run(dieCtx)
	go func() { <-started; die() }()
	// The healthy worker starts after the doomed one holds a task.
	var logs []string
	var mu sync.Mutex
	go func() {
		<-dieCtx.Done()
		w := &Worker{Client: connect(t, s), Name: "healthy", DBs: []string{db}, Kinds: map[string]Handler{"square": square},
			Visibility: 300 * time.Millisecond, Idle: 5 * time.Second,
			Log: func(l string) { mu.Lock(); logs = append(logs, l); mu.Unlock() }}
		w.Run(context.Background())
	}()
	got, err := collect(t, c, squares(10), SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got, 10)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(logs, "\n"), "took over task") {
		t.Errorf("no task was taken over; worker log:\n%s", strings.Join(logs, "\n"))
	}
}

// TestFailedTaskFailsTheRun: a task whose handler fails ends the run with
// the worker's message.
func TestFailedTaskFailsTheRun(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bad := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		if string(task) == "3" {
			return nil, 0, fmt.Errorf("block 3 is unreadable")
		}
		return square(ctx, job, task)
	}
	startWorkers(t, ctx, s, 1, bad, time.Second)
	_, err := collect(t, c, squares(5), SubmitOptions{})
	if err == nil || !strings.Contains(err.Error(), "task 4 failed on worker w0: block 3 is unreadable") {
		t.Fatalf("error %v", err)
	}
}

// TestRedisRestartResubmits: Redis restarted empty in the middle of a job
// loses its tasks; the submitter notices and submits the unfinished ones
// again, and every result arrives.
func TestRedisRestartResubmits(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	slow := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		if string(task) == "5" {
			once.Do(s.Restart)
		}
		time.Sleep(20 * time.Millisecond)
		return square(ctx, job, task)
	}
	startWorkers(t, ctx, s, 2, slow, time.Second)
	var notes []string
	got, err := collect(t, c, squares(30), SubmitOptions{Check: 200 * time.Millisecond, Note: func(n string) { notes = append(notes, n) }})
	if err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got, 30)
	if !strings.Contains(strings.Join(notes, "\n"), "submitting the") {
		t.Errorf("no resubmission noted: %q", notes)
	}
}

// TestRedisGoneFails: when Redis stays away, the run fails saying how
// much was done, instead of waiting forever or returning short.
func TestRedisGoneFails(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	s.Kill()
	err := Submit(context.Background(), c, squares(3), SubmitOptions{GiveUp: time.Second}, func(*Result) error { return nil })
	if err == nil {
		t.Fatal("no error without Redis")
	}
}

// TestConnectRedactsPassword: errors name the server but never repeat
// its password.
func TestConnectRedactsPassword(t *testing.T) {
	s := redistest.Start(t, redistest.Options{Password: "s3cret-pw"})
	if _, err := Connect(context.Background(), s.URL()); err != nil {
		t.Fatal(err)
	}
	wrong := strings.Replace(s.URL(), "s3cret-pw", "wrong-pw", 1)
	_, err := Connect(context.Background(), wrong)
	if err == nil || strings.Contains(err.Error(), "wrong-pw") || !strings.Contains(err.Error(), "xxxxx@127.0.0.1") {
		t.Fatalf("error %v", err)
	}
}

// Example_redact shows how URLs appear in messages.
func ExampleRedact() {
	fmt.Println(Redact("rediss://:hunter2@redis.example:6380/0"))
	// Output: rediss://:xxxxx@redis.example:6380/0
}

// TestDeviceAndOverhead: results carry the worker's device and its queue
// overhead to the submitter's progress; the worker keeps the same account.
func TestDeviceAndOverhead(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		time.Sleep(5 * time.Millisecond)
		return square(ctx, job, task)
	}
	w := &Worker{Client: connect(t, s), Name: "g", Device: "GPU 7 test", DBs: []string{db},
		Kinds: map[string]Handler{"square": slow}, Visibility: time.Second}
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	var last Progress
	got, err := collect(t, c, squares(20), SubmitOptions{Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got, 20)
	if len(last.Workers) != 1 || last.Workers[0].Device != "GPU 7 test" || last.Workers[0].Tasks != 20 {
		t.Fatalf("progress %+v", last)
	}
	wr := last.Workers[0]
	if wr.Busy < 20*5*time.Millisecond || wr.Overhead <= 0 || wr.Overhead > wr.Busy {
		t.Errorf("busy %s, overhead %s: want busy >= 100ms and 0 < overhead < busy", wr.Busy, wr.Overhead)
	}
	cancel()
	<-done
	st := w.Stats()
	if st.Tasks != 20 || st.Work != 20 || st.Busy < 100*time.Millisecond || st.Overhead <= 0 || st.Overhead > st.Busy {
		t.Errorf("worker stats %+v", st)
	}
}

// TestTransientErrorRetried: a handler error marked Transient leaves the
// task pending; it is taken again after the visibility timeout and the
// run completes.
func TestTransientErrorRetried(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	flaky := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		failed := false
		if string(task) == "2" {
			once.Do(func() { failed = true })
		}
		if failed {
			return nil, 0, Transient(fmt.Errorf("connection reset"))
		}
		return square(ctx, job, task)
	}
	startWorkers(t, ctx, s, 1, flaky, 300*time.Millisecond)
	got, err := collect(t, c, squares(5), SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got, 5)
	if !IsTransient(Transient(fmt.Errorf("x"))) || IsTransient(fmt.Errorf("x")) {
		t.Error("IsTransient")
	}
}

// TestSeveralTasksAtOnce: a worker with Tasks 3 runs up to three tasks at
// once, never more, and every result comes back once; a dying worker's
// tasks in flight are all taken over.
func TestSeveralTasksAtOnce(t *testing.T) {
	s := redistest.Start(t, redistest.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	running, most := 0, 0
	slow := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return square(ctx, job, task)
	}
	w := &Worker{Client: connect(t, s), Name: "w", DBs: []string{db}, Kinds: map[string]Handler{"square": slow},
		Visibility: time.Second, Tasks: 3}
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	got, err := collect(t, c, squares(30), SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got, 30)
	cancel()
	<-done
	if most != 3 {
		t.Errorf("at most %d tasks ran at once, want 3", most)
	}
	if st := w.Stats(); st.Tasks != 30 || st.Busy < 30*20*time.Millisecond {
		t.Errorf("worker stats %+v", st)
	}

	// Three tasks in flight when their worker dies: another takes them.
	dieCtx, die := context.WithCancel(context.Background())
	started := make(chan struct{}, 100)
	hang := func(ctx context.Context, job *JobInfo, task []byte) ([]byte, float64, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, 0, ctx.Err()
	}
	doomed := &Worker{Client: connect(t, s), Name: "doomed", DBs: []string{db}, Kinds: map[string]Handler{"square": hang},
		Visibility: 300 * time.Millisecond, Tasks: 3}
	go doomed.Run(dieCtx)
	result := make(chan error, 1)
	var got2 map[int]string
	go func() {
		var err error
		got2, err = collect(t, c, squares(6), SubmitOptions{})
		result <- err
	}()
	for range 3 {
		<-started
	}
	die()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	startWorkers(t, ctx2, s, 1, square, 300*time.Millisecond)
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	checkSquares(t, got2, 6)
}
