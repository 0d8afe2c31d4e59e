package hmmsearch

import (
	"bytes"
	"context"
	"encoding/gob"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/report"
	"github.com/hmmgo/hmmgo/seqio"
)

// queuedJob is what a submitter would put on the queue for a search of
// hmmFile against dbFile with extra options, in tasks of about cells.
type queuedJob struct {
	spec   []byte
	tasks  []remoteTask
	models []*hmm.HMM
	db     *dbIndex
}

func planJob(t *testing.T, hmmFile, dbFile string, cells float64, opts ...string) *queuedJob {
	t.Helper()
	g, err := parseLocal(append(append([]string(nil), opts...), "--", hmmFile, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(hmmFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hmm.OpenFile("-", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	j := &queuedJob{}
	for {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		j.models = append(j.models, h)
	}
	j.db, err = indexDatabase(dbFile, j.models[0].Alph, func(p string, in io.Reader, a *alphabet.Alphabet) (*seqio.Reader, error) {
		return seqio.Open(p, in, a)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, j.tasks = planTasks(j.models, j.db, cells)
	j.spec = encodeGob(&remoteSpec{Args: localArgs(g), HMM: raw, DBSHA: j.db.sha256, DBSize: j.db.size, DBCount: int64(len(j.db.lengths))})
	return j
}

// comparable drops what differs between any two runs (times), leaving
// hits and counters at full precision.
func comparable(t *testing.T, body []byte) []byte {
	t.Helper()
	var r taskResult
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&r); err != nil {
		t.Fatal(err)
	}
	for _, q := range r.Queries {
		q.Timing = report.Timing{}
	}
	return encodeGob(&r)
}

func newRunner(t *testing.T, path string, opt RunnerOptions) *TaskRunner {
	t.Helper()
	src, err := OpenFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewTaskRunner([]TargetSource{src}, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// runAll does every task of j with r, in order, and returns the results.
func runAll(t *testing.T, r *TaskRunner, id string, j *queuedJob) [][]byte {
	t.Helper()
	var out [][]byte
	for i := range j.tasks {
		body, cells, err := r.Run(context.Background(), id, j.spec, encodeGob(&j.tasks[i]))
		if err != nil {
			t.Fatalf("task %d: %v", i+1, err)
		}
		if cells <= 0 {
			t.Fatalf("task %d: %g cells", i+1, cells)
		}
		out = append(out, comparable(t, body))
	}
	return out
}

func countHits(t *testing.T, bodies [][]byte) int {
	n := 0
	for _, b := range bodies {
		var r taskResult
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
			t.Fatal(err)
		}
		for _, q := range r.Queries {
			n += len(q.Hits)
		}
	}
	return n
}

func taskInputs(t *testing.T) (hmmFile, dbFile string) {
	dir := t.TempDir()
	return concatInputs(t, dir, "q.hmm", "globins4.hmm", "hmmer3/models/fn3.hmm.gz", "hmmer3/models/Pkinase.hmm.gz"),
		concatInputs(t, dir, "db.fa", "globins45.fa", "hmmer3/hmmsearch/inputs/7LESS_DROME.fa", "hmmer3/prot.fa")
}

// The GPU code path of a worker (staged search over resident blocks,
// with the CPU's kernels standing in for the devices) gives exactly the
// CPU pipeline's results, task by task, and uploads each block once.
func TestStagedTasksMatchCPU(t *testing.T) {
	hmmFile, dbFile := taskInputs(t)
	for _, opts := range [][]string{nil, {"--max"}, {"-Z", "1000", "--domE", "1e-3"}} {
		j := planJob(t, hmmFile, dbFile, 2e5, opts...)
		if len(j.tasks) < 4 {
			t.Fatalf("%d tasks; the test wants several blocks", len(j.tasks))
		}
		want := runAll(t, newRunner(t, dbFile, RunnerOptions{CPUs: 2}), "job", j)
		if hits := countHits(t, want); hits == 0 {
			t.Fatalf("%v: no hits; the comparison would say little", opts)
		}
		staged := newRunner(t, dbFile, RunnerOptions{CPUs: 2, StagedOnCPU: true})
		for pass := 0; pass < 2; pass++ {
			got := runAll(t, staged, "job", j)
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("%v: task %d: the staged result differs from the CPU pipeline's", opts, i+1)
				}
			}
			// Every block stays resident: the second pass uploads nothing.
			if staged.blocks.uploads != len(j.tasks) {
				t.Fatalf("%v, pass %d: %d uploads for %d blocks", opts, pass+1, staged.blocks.uploads, len(j.tasks))
			}
		}
		if !strings.Contains(staged.Device(), "staged") {
			t.Errorf("device %q", staged.Device())
		}
	}
}

// Within a small budget the least recently used blocks go, and results
// do not change.
func TestResidentBudget(t *testing.T) {
	hmmFile, dbFile := taskInputs(t)
	j := planJob(t, hmmFile, dbFile, 2e5)
	want := runAll(t, newRunner(t, dbFile, RunnerOptions{CPUs: 1}), "job", j)
	r := newRunner(t, dbFile, RunnerOptions{CPUs: 1, StagedOnCPU: true, ResidentResidues: 1})
	for pass := 1; pass <= 2; pass++ {
		got := runAll(t, r, "job", j)
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("task %d differs", i+1)
			}
		}
		if len(r.blocks.blocks) != 1 || r.blocks.uploads != pass*len(j.tasks) {
			t.Fatalf("pass %d: %d resident, %d uploads", pass, len(r.blocks.blocks), r.blocks.uploads)
		}
	}
	// Room for the two largest blocks: at least two stay, within budget.
	var sizes []int64
	for _, k := range j.tasks {
		var n int64
		for i := k.TargetFirst; i < k.TargetEnd; i++ {
			n += j.db.lengths[i]
		}
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	budget := sizes[len(sizes)-1] + sizes[len(sizes)-2]
	r = newRunner(t, dbFile, RunnerOptions{CPUs: 1, StagedOnCPU: true, ResidentResidues: budget})
	runAll(t, r, "job", j)
	if n := len(r.blocks.blocks); n < 2 || r.blocks.total > budget {
		t.Fatalf("%d blocks, %d residues resident for a budget of %d", n, r.blocks.total, budget)
	}
}

// Tasks from the network are checked before anything is read.
func TestTaskChecks(t *testing.T) {
	hmmFile, dbFile := taskInputs(t)
	j := planJob(t, hmmFile, dbFile, 2e5)
	for _, staged := range []bool{false, true} {
		r := newRunner(t, dbFile, RunnerOptions{CPUs: 1, StagedOnCPU: staged})
		good := j.tasks[1]
		for _, c := range []struct {
			edit func(*remoteTask)
			want string
		}{
			{func(k *remoteTask) { k.ModelEnd = 9 }, "task names models"},
			{func(k *remoteTask) { k.TargetEnd = k.TargetFirst }, "task names targets"},
			{func(k *remoteTask) { k.TargetEnd = 1 << 40 }, "task names targets"},
			{func(k *remoteTask) { k.ByteEnd = 1 << 40 }, "task names bytes"},
			{func(k *remoteTask) { k.ByteStart++ }, "does not start at a record"},
			{func(k *remoteTask) { k.TargetEnd-- }, "sequences where the task expects"},
		} {
			task := good
			c.edit(&task)
			_, _, err := r.Run(context.Background(), "job", j.spec, encodeGob(&task))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("staged %v, task %+v: %v, want %q", staged, task, err, c.want)
			}
		}
		if _, _, err := r.Run(context.Background(), "job", j.spec, []byte("junk")); err == nil || !strings.Contains(err.Error(), "undecodable task") {
			t.Errorf("junk task: %v", err)
		}
		other := encodeGob(&remoteSpec{Args: []string{"--", "q", "d"}, HMM: []byte("HMMER3/f\n"), DBSHA: strings.Repeat("0", 64)})
		if _, _, err := r.Run(context.Background(), "other", other, encodeGob(&good)); err == nil {
			t.Error("a job of another database was run")
		}
	}
	src, _ := OpenFileSource(dbFile)
	if _, err := NewTaskRunner([]TargetSource{src, src}, RunnerOptions{}); err == nil || !strings.Contains(err.Error(), "same database") {
		t.Errorf("a database served twice: %v", err)
	}
}

// On a GPU host: the worker's real GPU path against the CPU pipeline.
// Skips (saying why) without a usable GPU.
func TestGPUTasksMatchCPU(t *testing.T) {
	devs, err := devices.Usable()
	if err != nil || len(devs) == 0 {
		t.Skipf("no usable GPU: %v", err)
	}
	hmmFile, dbFile := taskInputs(t)
	j := planJob(t, hmmFile, dbFile, 2e5)
	want := runAll(t, newRunner(t, dbFile, RunnerOptions{CPUs: 2}), "job", j)
	r := newRunner(t, dbFile, RunnerOptions{CPUs: 2, GPUs: []*cuda.Device{devs[0]}})
	for pass := 0; pass < 2; pass++ {
		got := runAll(t, r, "job", j)
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("task %d: the GPU result differs from the CPU pipeline's", i+1)
			}
		}
	}
	if r.blocks.uploads != len(j.tasks) {
		t.Errorf("%d uploads for %d blocks", r.blocks.uploads, len(j.tasks))
	}
	t.Logf("%s: %d tasks identical to the CPU's, twice", r.Device(), len(j.tasks))
}

// Tasks run at once (a worker with --tasks N) give the results of tasks
// run one by one, also when the budget holds fewer blocks than the tasks
// in flight use (blocks in use are never evicted).
func TestTasksAtOnce(t *testing.T) {
	hmmFile, dbFile := taskInputs(t)
	j := planJob(t, hmmFile, dbFile, 2e5)
	want := runAll(t, newRunner(t, dbFile, RunnerOptions{CPUs: 1}), "job", j)
	for _, budget := range []int64{0, 1} {
		r := newRunner(t, dbFile, RunnerOptions{CPUs: 2, StagedOnCPU: true, ResidentResidues: budget})
		got := make([][]byte, len(j.tasks))
		errs := make([]error, len(j.tasks))
		var wg sync.WaitGroup
		slots := make(chan struct{}, 3)
		for i := range j.tasks {
			wg.Add(1)
			slots <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				got[i], _, errs[i] = r.Run(context.Background(), "job", j.spec, encodeGob(&j.tasks[i]))
			}()
		}
		wg.Wait()
		for i := range want {
			if errs[i] != nil {
				t.Fatalf("budget %d, task %d: %v", budget, i+1, errs[i])
			}
			if !bytes.Equal(comparable(t, got[i]), want[i]) {
				t.Fatalf("budget %d: task %d differs", budget, i+1)
			}
		}
		for _, b := range r.blocks.blocks {
			if b.pins != 0 {
				t.Fatalf("budget %d: a block still pinned %d times", budget, b.pins)
			}
		}
	}
}

// Planned tasks cover the targets in order, full blocks first and the
// last ones shrinking to an eighth, for a few tasks more than full blocks.
func TestPlanTail(t *testing.T) {
	models := []*hmm.HMM{{M: 100}, {M: 50}}
	for _, n := range []int{1, 7, 99, 1000, 1234} {
		db := &dbIndex{}
		for i := range n {
			db.lengths = append(db.lengths, 100)
			db.starts = append(db.starts, int64(i))
			db.residues += 100
		}
		db.starts = append(db.starts, int64(n))
		const full = 100 * 100 // residues per full block: 100 targets
		_, tasks := planTasks(models, db, 150*full)
		next := int64(0)
		var sizes []int64
		for _, k := range tasks {
			if k.TargetFirst != next || k.TargetEnd <= k.TargetFirst || k.ModelFirst != 0 || k.ModelEnd != 2 {
				t.Fatalf("%d targets: task %+v after target %d", n, k, next)
			}
			sizes = append(sizes, 100*(k.TargetEnd-k.TargetFirst))
			next = k.TargetEnd
		}
		if next != int64(n) {
			t.Fatalf("%d targets: tasks end at %d", n, next)
		}
		fulls := (int64(n)*100 + full - 1) / full
		if int64(len(tasks)) > fulls+4 || !slices.IsSortedFunc(sizes, func(a, b int64) int { return int(b - a) }) {
			t.Errorf("%d targets: sizes %v", n, sizes)
		}
		if n >= 200 && sizes[len(sizes)-1] > full/8 {
			t.Errorf("%d targets: the last task has %d residues", n, sizes[len(sizes)-1])
		}
	}
}

// A worker whose GPU fails (here a part without a device whose calls
// fail from the second on, as after a fault) runs the failed queries on
// its cores: every task completes with the CPU pipeline's results, and
// the worker says so once.
func TestWorkerDeviceFailureOnCores(t *testing.T) {
	hmmFile, dbFile := taskInputs(t)
	j := planJob(t, hmmFile, dbFile, 2e5)
	want := runAll(t, newRunner(t, dbFile, RunnerOptions{CPUs: 2}), "job", j)
	var warned []string
	var mu sync.Mutex
	r := newRunner(t, dbFile, RunnerOptions{CPUs: 2, StagedOnCPU: true, Warn: func(msg string) {
		mu.Lock()
		warned = append(warned, msg)
		mu.Unlock()
	}})
	r.blocks = newResidentCache(1<<30, func(seqs []*seqio.Sequence, abc *alphabet.Alphabet) (blockAccel, error) {
		return devicelessSearch(seqs, 1, false, map[int]failure{0: {at: 2}}), nil
	})
	got := runAll(t, r, "job", j)
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("task %d: the result after the device failed differs from the CPU pipeline's", i+1)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], errInjected.Error()) || !strings.Contains(warned[0], "on the cores") {
		t.Fatalf("warnings %q, want one naming the failure and the cores", warned)
	}
}
