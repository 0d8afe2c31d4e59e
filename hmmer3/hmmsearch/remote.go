package hmmsearch

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/seqio"
)

// QueueKind names hmmsearch jobs on the work queue.
const QueueKind = "hmmsearch/1"

// modelBlockNodes caps the model nodes of one task's block of models:
// many small models share a task, so that a task is not dominated by
// reading its block of targets.
const modelBlockNodes = 10000

// remoteSpec is what every task of a queued search shares.
type remoteSpec struct {
	Args    []string // the local command line (localArgs)
	HMM     []byte   // the HMM file, as read
	DBSHA   string
	DBSize  int64
	DBCount int64
}

// remoteTask is a block of models times a block of targets.
type remoteTask struct {
	ModelFirst, ModelEnd   int
	TargetFirst, TargetEnd int64
	ByteStart, ByteEnd     int64
}

// taskResult is a task's result: one queryResult per model of the block.
type taskResult struct {
	Task    remoteTask
	Queries []*queryResult
}

// plan cuts the search into tasks of about cells DP cells: models into
// blocks of at most modelBlockNodes nodes (or one model), targets into
// blocks of residues enough to make the largest model block's tasks that
// size. The last target blocks shrink (tailBlocks), so that a search
// ends on short tasks.
func planTasks(models []*hmm.HMM, db *dbIndex, cells float64) (blocks [][2]int, tasks []remoteTask) {
	largest := 0
	for first := 0; first < len(models); {
		end, nodes := first, 0
		for end < len(models) && (end == first || nodes+models[end].M <= modelBlockNodes) {
			nodes += models[end].M
			end++
		}
		blocks = append(blocks, [2]int{first, end})
		largest = max(largest, nodes)
		first = end
	}
	residues := int64(max(1, cells/float64(max(largest, 1))))
	var dbBlocks [][2]int64
	n := int64(len(db.lengths))
	left := db.residues
	for first := int64(0); first < n; {
		limit := tailBlock(residues, left)
		end, res := first, int64(0)
		for end < n && (end == first || res+db.lengths[end] <= limit) {
			res += db.lengths[end]
			end++
		}
		dbBlocks = append(dbBlocks, [2]int64{first, end})
		left -= res
		first = end
	}
	for _, mb := range blocks {
		for _, b := range dbBlocks {
			tasks = append(tasks, remoteTask{ModelFirst: mb[0], ModelEnd: mb[1], TargetFirst: b[0], TargetEnd: b[1],
				ByteStart: db.starts[b[0]], ByteEnd: db.starts[b[1]]})
		}
	}
	return blocks, tasks
}

// tailBlock is the residues of the next target block when left residues
// remain and a block is normally full residues. Workers take tasks in
// order, and a search lasts until its last task is done: ending on a full
// block (longer still when its targets hold many hits) can leave every
// worker but one idle for a task's time. Once at most 1.75 blocks' worth
// of targets are left, blocks are a half of the normal size, then (at
// most 3/4 left) a quarter, then (1/4) an eighth: the last tasks are
// short, for two to four tasks more in all.
func tailBlock(full, left int64) int64 {
	switch {
	case left > full*7/4 || full < 8:
		return full
	case left > full*3/4:
		return full / 2
	case left > full/4:
		return full / 4
	}
	return full / 8
}

// readModels reads the HMM file's bytes and its models.
func (s *search) readModels() ([]byte, []*hmm.HMM, error) {
	var raw []byte
	var r ModelReader
	var err error
	if s.hmmfile == "-" {
		if raw, err = io.ReadAll(s.env.Stdin); err == nil {
			r, err = s.openModels("-", bytes.NewReader(raw))
		}
	} else if r, err = s.openModels(s.hmmfile, nil); err == nil {
		raw, err = os.ReadFile(s.hmmfile)
	}
	if err != nil {
		return nil, nil, err
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	var models []*hmm.HMM
	for {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(models) > 0 && h.Alph.Type != models[0].Alph.Type {
			return nil, nil, fmt.Errorf("HMM file %s contains different alphabets", s.hmmfile)
		}
		models = append(models, h)
	}
	return raw, models, nil
}

// runRemote is hmmsearch --redis: the search runs as tasks on 'hmmgo
// worker's; this process plans, enqueues, collects and prints exactly
// what a local run prints.
func (s *search) runRemote() error {
	url := s.g.str("--redis")
	cells := s.g.real("--task-cells")
	if s.seqfile == "-" {
		return fmt.Errorf("--redis needs a sequence database file that the workers also read, not standard input")
	}
	if f, err := os.Open(s.seqfile); err != nil {
		return fmt.Errorf("Failed to open sequence file %s for reading", s.seqfile)
	} else {
		f.Close()
	}
	if s.g.isOn("--gpu") {
		return fmt.Errorf("--gpu selects this machine's GPUs; with --redis the workers choose theirs")
	}
	local, err := parseLocal(localArgs(s.g))
	if err != nil {
		return err
	}
	s.g = local // reports print the local command line
	trace := &queueTrace{start: time.Now()}
	raw, models, err := s.readModels()
	if err != nil {
		return err
	}
	base := s.config()
	var thr = make([]error, len(models))
	for i, h := range models {
		_, thr[i] = modelThresholds(h, base.Thresholds)
	}
	var abc *alphabet.Alphabet
	if len(models) > 0 {
		abc = models[0].Alph
	} else {
		abc = alphabet.New(alphabet.Amino)
	}
	db, err := indexDatabase(s.seqfile, abc, func(p string, in io.Reader, a *alphabet.Alphabet) (*seqio.Reader, error) {
		return seqio.Open(p, in, a)
	})
	if err != nil {
		return err
	}
	blocks, tasks := planTasks(models, db, cells)
	trace.indexed = time.Now()

	if err := s.openOutputs(); err != nil {
		return err
	}
	opts := s.reportOptions()
	if len(models) > 0 {
		if err := s.header(); err != nil {
			return err
		}
	}
	// Results per model block and target block; a model block is printed
	// when all its target blocks are in and the blocks before it are out.
	perBlock := len(tasks) / max(len(blocks), 1)
	got := make([][]*taskResult, len(blocks))
	have := make([]int, len(blocks))
	for i := range got {
		got[i] = make([]*taskResult, perBlock)
	}
	nextBlock := 0
	start := time.Now()
	printReady := func() error {
		for nextBlock < len(blocks) && have[nextBlock] == perBlock {
			b := blocks[nextBlock]
			for q := b[0]; q < b[1]; q++ {
				if thr[q] != nil {
					return thr[q] // as a local run: the model lacks its cutoffs
				}
				parts := make([]*queryResult, perBlock)
				for t, r := range got[nextBlock] {
					parts[t] = r.Queries[q-b[0]]
				}
				r := mergeQueries(parts)
				if r.Stats.NSeqs != int64(len(db.lengths)) {
					return fmt.Errorf("query %s: results cover %d of %d targets", r.Name, r.Stats.NSeqs, len(db.lengths))
				}
				r.Timing.Elapsed = time.Since(start).Seconds()
				if err := s.printQuery(r, q+1, opts); err != nil {
					return err
				}
			}
			got[nextBlock] = nil
			nextBlock++
		}
		return nil
	}
	if len(tasks) > 0 {
		spec := remoteSpec{Args: localArgs(local), HMM: raw, DBSHA: db.sha256, DBSize: db.size, DBCount: int64(len(db.lengths))}
		job := &queue.Job{Kind: QueueKind, DB: db.sha256, Spec: encodeGob(&spec)}
		for i := range tasks {
			job.Tasks = append(job.Tasks, encodeGob(&tasks[i]))
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		client, err := queue.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer client.Close()
		qopt := queue.SubmitOptions{Note: func(msg string) { fmt.Fprintf(s.env.Stderr, "%s: %s\n", prog, msg) }}
		if cli.IsTerminal(s.env.Stderr) {
			var last queue.Progress
			qopt.Progress = func(p queue.Progress) { last = p; progressLine(s.env.Stderr, p, time.Since(start)) }
			defer func() { fmt.Fprintln(s.env.Stderr); workerLines(s.env.Stderr, last) }()
		}
		err = queue.Submit(ctx, client, job, qopt, func(res *queue.Result) error {
			r := new(taskResult)
			if err := gob.NewDecoder(bytes.NewReader(res.Body)).Decode(r); err != nil {
				return fmt.Errorf("undecodable result: %v", err)
			}
			want := tasks[res.Task]
			if r.Task != want || len(r.Queries) != want.ModelEnd-want.ModelFirst {
				return fmt.Errorf("the result is not of the task it names")
			}
			for i, q := range r.Queries {
				if q.Stats.NSeqs != want.TargetEnd-want.TargetFirst || q.Name != models[want.ModelFirst+i].Name {
					return fmt.Errorf("the result covers %d of the task's %d targets for %s", q.Stats.NSeqs, want.TargetEnd-want.TargetFirst, q.Name)
				}
			}
			trace.result(res)
			mb, tb := res.Task/perBlock, res.Task%perBlock
			got[mb][tb] = r
			have[mb]++
			return printReady()
		})
		if err != nil {
			return fmt.Errorf("--redis %s: %w", queue.Redact(url), err)
		}
	}
	if nextBlock != len(blocks) {
		return fmt.Errorf("internal error: %d of %d model blocks printed", nextBlock, len(blocks))
	}
	err = s.finish()
	if s.queueTrace {
		trace.print(s.env.Stderr, len(tasks))
	}
	return err
}

// queueTrace records when a queued search's phases ended and its
// results arrived, for $HMMGO_QUEUE_TRACE: the submitter's own time
// before the first task (models, database index) and the tail, when some
// workers had nothing left to do.
type queueTrace struct {
	start, indexed time.Time
	arrivals       []time.Duration // since start
	workers        map[string]*workerTrace
	names          []string
}

type workerTrace struct {
	tasks      int
	busy, last time.Duration
}

func (q *queueTrace) result(r *queue.Result) {
	at := time.Since(q.start)
	q.arrivals = append(q.arrivals, at)
	if q.workers == nil {
		q.workers = map[string]*workerTrace{}
	}
	w := q.workers[r.Worker]
	if w == nil {
		w = &workerTrace{}
		q.workers[r.Worker] = w
		q.names = append(q.names, r.Worker)
	}
	w.tasks++
	w.busy += r.Elapsed
	w.last = at
}

func (q *queueTrace) print(w io.Writer, tasks int) {
	sec := func(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }
	var b strings.Builder
	fmt.Fprintf(&b, "%s: queue trace: %d tasks; models and database index %s", prog, tasks, sec(q.indexed.Sub(q.start)))
	if n := len(q.arrivals); n > 0 {
		fmt.Fprintf(&b, "; results at 1st %s, 50%% %s, 90%% %s, last %s", sec(q.arrivals[0]), sec(q.arrivals[(n-1)/2]),
			sec(q.arrivals[(9*n-1)/10]), sec(q.arrivals[n-1]))
	}
	fmt.Fprintf(&b, "; report done %s", sec(time.Since(q.start)))
	for _, name := range q.names {
		wt := q.workers[name]
		fmt.Fprintf(&b, "; worker %s: %d tasks, %s in tasks, last result %s", name, wt.tasks, sec(wt.busy), sec(wt.last))
	}
	fmt.Fprintln(w, b.String())
}

// progressLine shows tasks done and each worker's device and throughput,
// on one line rewritten as results arrive.
func progressLine(w io.Writer, p queue.Progress, elapsed time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "\r%s: %d/%d tasks, %s", prog, p.Done, p.Total, elapsed.Round(time.Second))
	for _, wr := range p.Workers {
		fmt.Fprintf(&b, "; %s", wr.Name)
		if wr.Device != "" {
			fmt.Fprintf(&b, " (%s)", wr.Device)
		}
		fmt.Fprintf(&b, " %d tasks %.2f Gcells/s", wr.Tasks, rate(wr))
	}
	if p.Duplicates > 0 {
		fmt.Fprintf(&b, "; %d duplicate results dropped", p.Duplicates)
	}
	b.WriteString("\x1b[K")
	io.WriteString(w, b.String())
}

// workerLines is the closing account, a line per worker: its device,
// throughput and the queue's share of its time.
func workerLines(w io.Writer, p queue.Progress) {
	for _, wr := range p.Workers {
		dev := ""
		if wr.Device != "" {
			dev = " (" + wr.Device + ")"
		}
		share := 0.0
		if wr.Busy > 0 {
			share = 100 * wr.Overhead.Seconds() / wr.Busy.Seconds()
		}
		fmt.Fprintf(w, "%s: worker %s%s: %d tasks, %.2f Gcells/s, queue overhead %.3f ms per task (%.2f%% of task time)\n",
			prog, wr.Name, dev, wr.Tasks, rate(wr), wr.Overhead.Seconds()*1e3/float64(max(wr.Tasks, 1)), share)
	}
}

// rate is a worker's throughput in Gcells/s of its time in tasks.
func rate(wr queue.WorkerRate) float64 {
	if wr.Busy <= 0 {
		return 0
	}
	return wr.Work / wr.Busy.Seconds() / 1e9
}

func encodeGob(v any) []byte {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		panic(err) // our own types always encode
	}
	return b.Bytes()
}
