package workercmd

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/redistest"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// These tests run the real binary: three worker processes on a real
// redis-server, one killed in the middle of a task, and require the
// submitter's outputs to be byte-identical to a single-process run, apart
// from the lines that differ between any two runs (CPU and elapsed times,
// the date).

var hmmgoBin string // built once by TestMain

// workerOpts are options every test worker gets: $HMMGO_WORKER_OPTS, e.g.
// "--gpu" on a GPU host, where every worker then runs on the GPU and the
// outputs must not change.
var workerOpts = strings.Fields(os.Getenv("HMMGO_WORKER_OPTS"))

func TestMain(m *testing.M) {
	code := func() int {
		// $HMMGO_BIN: a prebuilt hmmgo, for hosts without Go (the GPU host).
		if bin := os.Getenv("HMMGO_BIN"); bin != "" {
			hmmgoBin = bin
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "hmmgo-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		hmmgoBin = filepath.Join(dir, "hmmgo")
		cmd := exec.Command("go", "build", "-o", hmmgoBin, "github.com/hmmgo/hmmgo/cmd/hmmgo")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building hmmgo: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// inputs writes the tutorial queries and the mixed database (58 targets).
func inputs(t *testing.T) (hmmFile, db string) {
	dir := t.TempDir()
	cat := func(name string, parts ...string) string {
		var out bytes.Buffer
		for _, p := range parts {
			b, err := os.ReadFile(testutil.Testdata(t, p))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(p, ".gz") {
				zr, _ := gzip.NewReader(bytes.NewReader(b))
				b, _ = io.ReadAll(zr)
			}
			out.Write(b)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, out.Bytes(), 0o644)
		return p
	}
	return cat("q.hmm", "globins4.hmm", "hmmer3/models/fn3.hmm.gz", "hmmer3/models/Pkinase.hmm.gz"),
		cat("db.fa", "globins45.fa", "hmmer3/hmmsearch/inputs/7LESS_DROME.fa", "hmmer3/hmmsearch/inputs/longnames.fa")
}

var varying = regexp.MustCompile(`(?m)^# (CPU time|Mc/sec|Date|Current dir):.*\n`)

// search runs hmmgo hmmsearch in dir, writing out.txt, t.tbl and
// t.dtbl there; it returns the three (normalized) and stderr.
func search(t *testing.T, dir string, env []string, args ...string) (map[string]string, string, error) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	full := append([]string{"hmmsearch", "--tblout", "t.tbl", "--domtblout", "t.dtbl"}, args...)
	cmd := exec.Command(hmmgoBin, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := map[string]string{"stdout": varying.ReplaceAllString(stdout.String(), "")}
	for _, f := range []string{"t.tbl", "t.dtbl"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		out[f] = varying.ReplaceAllString(string(b), "")
	}
	return out, stderr.String(), err
}

func sameOutputs(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			wl, gl := strings.Split(w, "\n"), strings.Split(got[k], "\n")
			for i := range max(len(wl), len(gl)) {
				if i >= len(wl) || i >= len(gl) || wl[i] != gl[i] {
					t.Fatalf("%s differs from the single-process run at line %d (%d vs %d lines)", k, i+1, len(wl), len(gl))
				}
			}
		}
	}
	if want["stdout"] == "" || !strings.Contains(want["stdout"], "[ok]") {
		t.Fatal("the reference run printed nothing")
	}
}

// worker is a running `hmmgo worker` process.
type worker struct {
	cmd *exec.Cmd
	log *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func startWorker(t *testing.T, url, db, name string, env []string, extra ...string) *worker {
	t.Helper()
	args := append([]string{"worker", "--redis", url, "--db", db, "--cpu", "1", "--name", name, "--visibility", "1s"}, extra...)
	args = append(args, workerOpts...)
	cmd := exec.Command(hmmgoBin, args...)
	cmd.Env = append(os.Environ(), env...)
	w := &worker{cmd: cmd, log: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = w.log, w.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return w
}

// waitFor polls until cond holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQueueSurvivesKilledWorker: three workers, one SIGKILLed while it
// holds a task; its task is taken over after the visibility timeout and
// the output is the single-process output.
func TestQueueSurvivesKilledWorker(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	hmmFile, db := inputs(t)
	root := t.TempDir()
	want, stderr, err := search(t, filepath.Join(root, "local"), nil, hmmFile, db)
	if err != nil {
		t.Fatalf("local run: %v: %s", err, stderr)
	}
	// Each task pauses 150 ms before posting, so a worker is almost
	// always in the middle of one. w2 runs the GPU code path (staged
	// search, resident blocks) on the CPU: mixed workers, one output.
	slow := []string{"HMMGO_TEST_TASK_DELAY=150ms"}
	var ws []*worker
	for i := 1; i <= 3; i++ {
		env := slow
		if i == 2 {
			env = append(env, "HMMGO_TEST_STAGED_CPU=1")
		}
		ws = append(ws, startWorker(t, srv.URL(), db, fmt.Sprintf("w%d", i), env, "-v"))
	}
	for _, w := range ws {
		waitFor(t, "workers to start", 20*time.Second, func() bool { return strings.Contains(w.log.String(), "waiting for tasks") })
	}
	done := make(chan struct{})
	var got map[string]string
	var serr error
	go func() {
		defer close(done)
		got, stderr, serr = search(t, filepath.Join(root, "queued"), nil, "--redis", srv.URL(), "--task-cells", "100000", hmmFile, db)
	}()
	// Kill w1 once it has finished two tasks: it is then in its third.
	waitFor(t, "w1 to do two tasks", 30*time.Second, func() bool { return strings.Count(ws[0].log.String(), "task of") >= 2 })
	ws[0].cmd.Process.Kill()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the queued search did not finish")
	}
	if serr != nil {
		t.Fatalf("queued search: %v: %s", serr, stderr)
	}
	sameOutputs(t, want, got)
	if !strings.Contains(ws[1].log.String()+ws[2].log.String(), "took over task") {
		t.Errorf("no worker took over the killed worker's task:\n%s\n%s", ws[1].log.String(), ws[2].log.String())
	}
}

// TestQueueRedisRestart: Redis killed and restarted empty in the middle of
// a run; the submitter puts the unfinished work back and the output is
// still the single-process output.
func TestQueueRedisRestart(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	hmmFile, db := inputs(t)
	root := t.TempDir()
	want, stderr, err := search(t, filepath.Join(root, "local"), nil, hmmFile, db)
	if err != nil {
		t.Fatalf("local run: %v: %s", err, stderr)
	}
	slow := []string{"HMMGO_TEST_TASK_DELAY=50ms"}
	var ws []*worker
	for i := 1; i <= 2; i++ {
		ws = append(ws, startWorker(t, srv.URL(), db, fmt.Sprintf("w%d", i), slow, "-v"))
	}
	for _, w := range ws {
		waitFor(t, "workers to start", 20*time.Second, func() bool { return strings.Contains(w.log.String(), "waiting for tasks") })
	}
	done := make(chan struct{})
	var got map[string]string
	var serr error
	go func() {
		defer close(done)
		got, stderr, serr = search(t, filepath.Join(root, "queued"), nil, "--redis", srv.URL(), "--task-cells", "100000", hmmFile, db)
	}()
	waitFor(t, "some tasks done", 30*time.Second, func() bool { return strings.Count(ws[0].log.String()+ws[1].log.String(), "task of") >= 5 })
	srv.Restart()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the queued search did not finish")
	}
	if serr != nil {
		t.Fatalf("queued search: %v: %s", serr, stderr)
	}
	sameOutputs(t, want, got)
	if !strings.Contains(stderr, "submitting the") {
		t.Errorf("the submitter did not say it resubmitted: %q", stderr)
	}
}

// TestQueueTLSAndPassword: rediss:// with a password, the server's
// certificate checked against the CA in $SSL_CERT_FILE; a wrong password
// is a clear error that does not repeat it.
func TestQueueTLSAndPassword(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{TLS: true, Password: "pw-123"})
	hmmFile, db := inputs(t)
	root := t.TempDir()
	want, stderr, err := search(t, filepath.Join(root, "local"), nil, hmmFile, db)
	if err != nil {
		t.Fatalf("local run: %v: %s", err, stderr)
	}
	ca := []string{"SSL_CERT_FILE=" + srv.CAFile}
	startWorker(t, srv.URL(), db, "tls", ca)
	got, stderr, err := search(t, filepath.Join(root, "queued"), ca, "--redis", srv.URL(), hmmFile, db)
	if err != nil {
		t.Fatalf("queued search: %v: %s", err, stderr)
	}
	sameOutputs(t, want, got)

	bad := strings.Replace(srv.URL(), "pw-123", "nope-456", 1)
	_, stderr, err = search(t, filepath.Join(root, "bad"), ca, "--redis", bad, hmmFile, db)
	if err == nil || strings.Contains(stderr, "nope-456") || !strings.Contains(stderr, "cannot reach Redis") {
		t.Fatalf("wrong password: %v, %q", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "bad", "t.tbl")); err == nil {
		t.Error("a failed run left a table behind")
	}
	// Without the CA the server's certificate is refused.
	_, stderr, err = search(t, filepath.Join(root, "noca"), []string{"SSL_CERT_FILE=/nonexistent"}, "--redis", srv.URL(), hmmFile, db)
	if err == nil || !strings.Contains(stderr, "certificate") {
		t.Fatalf("untrusted certificate: %v, %q", err, stderr)
	}
}

// TestQueueRedisStoredDatabase: workers serving a database stored in Redis
// by makedb --redis (one of them on the GPU code path) give the output of
// a local run; the stored copy is recognised as the submitter's file.
func TestQueueRedisStoredDatabase(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw-7"})
	hmmFile, db := inputs(t)
	root := t.TempDir()
	want, stderr, err := search(t, filepath.Join(root, "local"), nil, hmmFile, db)
	if err != nil {
		t.Fatalf("local run: %v: %s", err, stderr)
	}
	if out, err := exec.Command(hmmgoBin, "makedb", "--redis", srv.URL(), "--block-residues", "3000", db, "mixed").CombinedOutput(); err != nil {
		t.Fatalf("makedb --redis: %v: %s", err, out)
	}
	ws := []*worker{
		startWorker(t, srv.URL(), "redis:mixed", "r1", []string{"HMMGO_TEST_STAGED_CPU=1"}, "-v"),
		startWorker(t, srv.URL(), "redis:mixed", "r2", nil, "-v"),
	}
	for _, w := range ws {
		waitFor(t, "workers to start", 20*time.Second, func() bool { return strings.Contains(w.log.String(), "waiting for tasks") })
		if !strings.Contains(w.log.String(), "serving redis:mixed (sha256 ") {
			t.Fatalf("worker log: %s", w.log.String())
		}
	}
	got, stderr, err := search(t, filepath.Join(root, "queued"), nil, "--redis", srv.URL(), "--task-cells", "200000", hmmFile, db)
	if err != nil {
		t.Fatalf("queued search: %v: %s", err, stderr)
	}
	sameOutputs(t, want, got)
	if !strings.Contains(ws[0].log.String(), "task of") || !strings.Contains(ws[1].log.String(), "task of") {
		t.Errorf("a worker did no task:\n%s\n%s", ws[0].log.String(), ws[1].log.String())
	}
	if len(workerOpts) == 0 && !strings.Contains(ws[0].log.String(), "running tasks on CPU x1, staged") {
		t.Errorf("the staged worker does not say so: %s", ws[0].log.String())
	}
	for _, w := range ws {
		w.cmd.Process.Signal(os.Interrupt)
		w.cmd.Wait()
		if !strings.Contains(w.log.String(), "done: ") || strings.Contains(w.log.String(), "pw-7") {
			t.Errorf("worker's closing summary: %s", w.log.String())
		}
	}
	// The file and its stored copy are one database.
	out, err := exec.Command(hmmgoBin, "worker", "--redis", srv.URL(), "--db", db, "--db", "redis:mixed").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "same database") {
		t.Errorf("serving a file and its stored copy: %v, %q", err, out)
	}
	out, err = exec.Command(hmmgoBin, "worker", "--redis", srv.URL(), "--db", "redis:nothing").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "redis:nothing: no such database") {
		t.Errorf("an unknown stored database: %v, %q", err, out)
	}
}

// TestWorkerGPUOptions: --gpu on a machine without a usable GPU is an
// error saying why (on a GPU host this test skips).
func TestWorkerGPUOptions(t *testing.T) {
	if out, _ := exec.Command(hmmgoBin, "gpuinfo").CombinedOutput(); !strings.Contains(string(out), "Commands use:  the CPU") {
		t.Skip("this machine has a usable GPU; the no-GPU errors cannot be seen here")
	}
	_, db := inputs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu"}, "hmmgo worker: --gpu: no usable GPU"},
		{[]string{"--gpu", "1"}, "hmmgo worker: --gpu 1: no usable GPU"},
		{[]string{"--gpu", "--nogpu"}, "contradict"},
	} {
		args := append([]string{"worker", "--redis", "redis://127.0.0.1:1", "--db", db}, c.args...)
		out, err := exec.Command(hmmgoBin, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || strings.Count(string(out), "\n") != 1 {
			t.Errorf("%v: %v, %q; want one line with %q", c.args, err, out, c.want)
		}
	}
}

// TestWorkerOptions: bad worker command lines are refused clearly.
func TestWorkerOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"worker", "--db", "x.fa"}, "--redis URL is required"},
		{[]string{"worker", "--redis", "redis://127.0.0.1:1"}, "give at least one --db"},
		{[]string{"worker", "--redis", "redis://127.0.0.1:1", "--db", "x.fa", "--cpu", "0"}, "--cpu 0"},
		{[]string{"worker", "--redis", "redis://127.0.0.1:1", "--db", "x.fa", "--tasks", "0"}, "--tasks 0"},
		{[]string{"worker", "--redis", "redis://127.0.0.1:1", "--db", "/nonexistent.fa"}, "nonexistent"},
	} {
		out, err := exec.Command(hmmgoBin, c.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v, %q; want %q", c.args, err, out, c.want)
		}
	}
}
