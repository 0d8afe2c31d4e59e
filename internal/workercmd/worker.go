// Package workercmd is `hmmgo worker`: a process that takes search tasks
// from a Redis work queue (internal/queue) and does them, on any machine
// that can read the databases it is started with.
package workercmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/hmmsearch"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/internal/redisdb"
)

// Command is the table entry for cmd/hmmgo.
var Command = cli.Command{
	Name:    "worker",
	Summary: "take search tasks from a Redis work queue (hmmsearch --redis)",
	Run:     run,
}

const usage = `usage: hmmgo worker --redis URL --db DB [--db DB...] [options]

Takes tasks of 'hmmgo hmmsearch --redis URL ...' runs from the Redis server
at URL and does them, until interrupted. Start any number of workers, on
any machines that reach the server and can read the databases. A worker
only takes tasks over the databases given with --db, which it recognises
by content (SHA-256), so every machine may keep its copy at its own path.

DB: a FASTA file, or redis:NAME for a database stored in the same Redis
server with 'hmmgo makedb --redis URL db.fa NAME' (blocks are fetched as
tasks need them).

URL: redis://[:password@]host:port[/db] or rediss:// for TLS (the server's
certificate is checked against the system roots or $SSL_CERT_FILE).

options:
  --redis URL       the queue's Redis server (also $HMMGO_REDIS)
  --db DB           a database this worker serves (repeatable)
  --cpu N           threads per task (default: all cores)
  --tasks N         tasks done at once (default: 3 on GPUs, else 1): the
                    next task starts while the others finish, so that
                    their serial parts (reading a block, the device's
                    short launches, a task's last slow target) overlap
  --gpu [LIST]      run tasks on GPUs: alone the first usable one, or N,
                    a list 0,2, or all; fails when none is usable
  --nogpu           never use a GPU (default: use one when present)
  --name NAME       worker name in progress reports (default host-pid)
  --visibility D    a task whose worker is silent this long is taken over
                    by another worker (default 30s)
  --max-deliveries N  fail a task handed out N times (default 5)
  --idle-exit D     exit after D without a task (default: never)
  -v                print a line per task on stderr
`

type dbList []string

func (d *dbList) String() string     { return strings.Join(*d, ",") }
func (d *dbList) Set(s string) error { *d = append(*d, s); return nil }

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("redis", os.Getenv("HMMGO_REDIS"), "")
	var dbs dbList
	fs.Var(&dbs, "db", "")
	cpus := fs.Int("cpu", runtime.NumCPU(), "")
	tasks := fs.Int("tasks", 0, "")
	host, _ := os.Hostname()
	name := fs.String("name", fmt.Sprintf("%s-%d", host, os.Getpid()), "")
	visibility := fs.Duration("visibility", 30*time.Second, "")
	maxDeliveries := fs.Int64("max-deliveries", 5, "")
	idle := fs.Duration("idle-exit", 0, "")
	verbose := fs.Bool("v", false, "")
	var gpu devices.Request
	gpu.AddFlags(fs)
	if err := fs.Parse(devices.NormalizeArgs(args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
			return 0
		}
		fmt.Fprintf(env.Stderr, "hmmgo worker: %v\n%s", err, usage)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(env.Stderr, "hmmgo worker: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	case *url == "":
		fmt.Fprintf(env.Stderr, "hmmgo worker: --redis URL is required\n%s", usage)
		return 2
	case len(dbs) == 0:
		fmt.Fprintf(env.Stderr, "hmmgo worker: give at least one --db DB\n%s", usage)
		return 2
	case *visibility < 100*time.Millisecond:
		fmt.Fprintf(env.Stderr, "hmmgo worker: --visibility %s is too short\n", *visibility)
		return 2
	case *cpus < 1:
		fmt.Fprintf(env.Stderr, "hmmgo worker: --cpu %d: want at least 1\n", *cpus)
		return 2
	case *tasks < 0 || (*tasks == 0 && isSet(fs, "tasks")):
		fmt.Fprintf(env.Stderr, "hmmgo worker: --tasks %d: want at least 1\n", *tasks)
		return 2
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(env.Stderr, "hmmgo worker %s: %s\n", *name, fmt.Sprintf(format, a...))
	}
	// The GPUs first: --gpu without one is an error before anything else.
	devs, err := devices.Select(env.Stderr, "worker", gpu, devices.Needs{})
	if err != nil {
		return cli.Fail(env, "worker", err)
	}

	// Local files first: a wrong path is an error before Redis is reached.
	var sources []hmmsearch.TargetSource
	var stored []string
	for _, d := range dbs {
		if name, ok := strings.CutPrefix(d, "redis:"); ok {
			stored = append(stored, name)
			continue
		}
		src, err := hmmsearch.OpenFileSource(d)
		if err != nil {
			return cli.Fail(env, "worker", err)
		}
		sources = append(sources, src)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := queue.Connect(ctx, *url)
	if err != nil {
		return cli.Fail(env, "worker", err)
	}
	defer client.Close()
	for _, name := range stored {
		src, err := redisdb.Open(ctx, client, name, 0)
		if err != nil {
			return cli.Fail(env, "worker", err)
		}
		sources = append(sources, src)
	}
	// A test hook: the GPU code path (staged search, resident blocks) with
	// the CPU's kernels, for machines without a GPU.
	_, staged := os.LookupEnv("HMMGO_TEST_STAGED_CPU")
	ropt := hmmsearch.RunnerOptions{CPUs: cli.Threads(*cpus), GPUs: devs, StagedOnCPU: staged && len(devs) == 0,
		Warn: func(msg string) { fmt.Fprintf(env.Stderr, "hmmgo worker: %s\n", msg) }}
	// For benchmarks: $HMMGO_TASK_TRACE prints where each task's time went;
	// $HMMGO_TASK_QUERIES sets the queries of a task searched at once.
	if _, ok := os.LookupEnv("HMMGO_TASK_TRACE"); ok {
		ropt.Trace = env.Stderr
	}
	if v := os.Getenv("HMMGO_TASK_QUERIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cli.Fail(env, "worker", fmt.Errorf("HMMGO_TASK_QUERIES is %q: want a positive number", v))
		}
		ropt.QueriesAtOnce = n
	}
	runner, err := hmmsearch.NewTaskRunner(sources, ropt)
	if err != nil {
		return cli.Fail(env, "worker", err)
	}
	if *tasks == 0 {
		// A GPU worker's tasks are many short device launches and CPU
		// passes; several at once keep both busy (three beat two at both
		// task sizes measured: docs/BENCHMARKS.md, "GPU workers"). A CPU
		// worker's task already fills its cores.
		*tasks = 1
		if len(devs) > 0 {
			*tasks = 3
		}
	}
	defer runner.Close()
	served := runner.Databases()
	var prints []string
	for sum, path := range served {
		prints = append(prints, sum)
		logf("serving %s (sha256 %s)", path, sum)
	}
	sort.Strings(prints)

	w := &queue.Worker{Client: client, Name: *name, DBs: prints, Visibility: *visibility,
		MaxDeliveries: *maxDeliveries, Idle: *idle, Log: func(s string) { logf("%s", s) }, Device: runner.Device(), Tasks: *tasks}
	w.Kinds = map[string]queue.Handler{
		hmmsearch.QueueKind: func(ctx context.Context, job *queue.JobInfo, task []byte) ([]byte, float64, error) {
			start := time.Now()
			body, cells, err := runner.Run(ctx, job.ID, job.Spec, task)
			if *verbose && err == nil {
				logf("job %s: task of %.3g cells in %.3f s", job.ID, cells, time.Since(start).Seconds())
			}
			return body, cells, err
		},
	}
	// A test hook: a pause between computing a result and posting it, so
	// that a test can kill a worker in the middle of a task.
	if d, err := time.ParseDuration(os.Getenv("HMMGO_TEST_TASK_DELAY")); err == nil && d > 0 {
		w.AfterTask = func() { time.Sleep(d) }
	}
	logf("running tasks on %s; waiting for tasks at %s", runner.Device(), queue.Redact(*url))
	err = w.Run(ctx)
	logf("%s", summary(w.Stats()))
	runner.TraceDevices()
	if err != nil && ctx.Err() == nil {
		return cli.Fail(env, "worker", err)
	}
	return 0
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// summary is the worker's account at exit: its throughput and what the
// queue cost it, the figures the scaling benchmark reads.
func summary(st queue.WorkerStats) string {
	if st.Tasks == 0 {
		return "done: no tasks"
	}
	rate := 0.0
	if st.Busy > 0 {
		rate = st.Work / st.Busy.Seconds() / 1e9
	}
	return fmt.Sprintf("done: %d tasks, %.4g cells in %.3f s (%.3f Gcells/s); queue overhead %.3f s, %.3f ms per task, %.3f%% of task time",
		st.Tasks, st.Work, st.Busy.Seconds(), rate, st.Overhead.Seconds(),
		st.Overhead.Seconds()*1e3/float64(st.Tasks), 100*st.Overhead.Seconds()/max(st.Busy.Seconds(), 1e-9))
}
