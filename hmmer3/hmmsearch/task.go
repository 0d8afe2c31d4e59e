package hmmsearch

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
	"github.com/hmmgo/hmmgo/seqio"
)

// TaskRunner does hmmsearch tasks of the work queue on this machine
// ('hmmgo worker'). It reads target blocks only from the databases it was
// given (TargetSource), which tasks name by their SHA-256; a task names a
// block by target and byte ranges, all checked, so a task can neither
// read other files nor run anything else.
//
// With GPUs, a task runs the staged pipeline hmmsearch --gpu runs
// (pipeline.SearchStaged over gpuSearch), and its block of targets stays
// resident on the devices for later tasks over the same targets.
// A TaskRunner may run several tasks at once.
type TaskRunner struct {
	cpus    int
	sources map[string]TargetSource
	jobsMu  sync.Mutex
	jobs    map[string]*remoteJob // by job ID; a few recent ones
	gpus    []*gpuKernels
	device  string
	blocks  *residentCache // nil: the CPU pipeline, blocks read per task
	// queriesAtOnce is how many queries of a task the staged path runs at
	// once (eachQuery).
	queriesAtOnce int
	trace         io.Writer // a line per task, when set
	// warn says once that a device failed and its queries ran on the
	// cores; failOnce guards it.
	warn     func(string)
	failOnce sync.Once
}

// RunnerOptions say how a TaskRunner computes.
type RunnerOptions struct {
	CPUs int            // threads per task (at least 1)
	GPUs []*cuda.Device // run the staged pipeline on these; none: the CPU pipeline
	// ResidentResidues caps the targets kept resident between tasks; 0
	// means an eighth of the devices' memory at a byte per residue (a
	// block is packed in one layout per kernel shape, two or three in all).
	ResidentResidues int64
	// StagedOnCPU runs the GPU code path (staged search, resident blocks)
	// with the CPU's kernels standing in for the devices: tests use it to
	// exercise a GPU worker's path on machines without a GPU.
	StagedOnCPU bool
	// QueriesAtOnce is how many queries of a task the staged path searches
	// at once; 0 means as many as hmmsearch --gpu keeps in flight.
	QueriesAtOnce int
	// Trace, if set, receives a line per task: where its time went.
	Trace io.Writer
	// Warn, if set, is told (once) that a device failed and the task's
	// queries went to the cores.
	Warn func(string)
}

// NewTaskRunner serves the given databases.
func NewTaskRunner(sources []TargetSource, opt RunnerOptions) (*TaskRunner, error) {
	t := &TaskRunner{cpus: max(1, opt.CPUs), sources: make(map[string]TargetSource), jobs: make(map[string]*remoteJob),
		queriesAtOnce: opt.QueriesAtOnce, trace: opt.Trace, warn: opt.Warn}
	if t.queriesAtOnce <= 0 {
		t.queriesAtOnce = gpuQueriesAtOnce
	}
	for _, src := range sources {
		if old := t.sources[src.Fingerprint()]; old != nil {
			return nil, fmt.Errorf("%s and %s are the same database (sha256 %s)", old.Name(), src.Name(), src.Fingerprint())
		}
		t.sources[src.Fingerprint()] = src
	}
	switch {
	case len(opt.GPUs) > 0:
		gpus, err := openKernels(opt.GPUs)
		if err != nil {
			return nil, err
		}
		t.gpus = gpus
		budget := opt.ResidentResidues
		var names []string
		for _, d := range opt.GPUs {
			if opt.ResidentResidues == 0 {
				budget += int64(d.TotalMemory / 8)
			}
			names = append(names, fmt.Sprintf("%d %s", d.Ordinal, d.Name))
		}
		t.device = "GPU " + strings.Join(names, ", ")
		t.blocks = newResidentCache(budget, func(seqs []*seqio.Sequence, abc *alphabet.Alphabet) (blockAccel, error) {
			// (Split: a task's block runs on all the worker's GPUs.)
			g := &gpuSearch{gpus: t.gpus, cost: defaultForwardCost(t.cpus), split: "db"}
			// A block of the database: no stored plan.
			if err := g.place(&loaded{seqs: seqs}, abc); err != nil {
				return nil, err
			}
			return g, nil
		})
	case opt.StagedOnCPU:
		budget := opt.ResidentResidues
		if budget == 0 {
			budget = 1 << 30
		}
		t.device = fmt.Sprintf("CPU x%d, staged", t.cpus)
		t.blocks = newResidentCache(budget, func(seqs []*seqio.Sequence, abc *alphabet.Alphabet) (blockAccel, error) {
			return cpuBlock{pipeline.CPUAccelerator{Seqs: seqs}}, nil
		})
	default:
		t.device = fmt.Sprintf("CPU x%d", t.cpus)
	}
	return t, nil
}

// Databases returns the served databases by fingerprint.
func (t *TaskRunner) Databases() map[string]string {
	out := make(map[string]string, len(t.sources))
	for sum, src := range t.sources {
		out[sum] = src.Name()
	}
	return out
}

// Device describes what runs the tasks ("GPU 0 NVIDIA H100 ...", "CPU x16"),
// for the submitter's per-worker progress.
func (t *TaskRunner) Device() string { return t.device }

// Close releases the resident blocks.
func (t *TaskRunner) Close() {
	if t.blocks != nil {
		t.blocks.free()
	}
}

// Run does one task of job id and returns its encoded result and its DP
// cells.
func (t *TaskRunner) Run(ctx context.Context, id string, specBytes, taskBytes []byte) ([]byte, float64, error) {
	started := time.Now()
	j, err := t.job(id, specBytes)
	if err != nil {
		return nil, 0, err
	}
	var task remoteTask
	if err := gob.NewDecoder(bytes.NewReader(taskBytes)).Decode(&task); err != nil {
		return nil, 0, fmt.Errorf("undecodable task: %v", err)
	}
	src := t.sources[j.spec.DBSHA]
	if src == nil {
		return nil, 0, fmt.Errorf("this worker does not serve the database with sha256 %s", j.spec.DBSHA)
	}
	switch {
	case task.ModelFirst < 0 || task.ModelEnd > len(j.models) || task.ModelFirst >= task.ModelEnd:
		return nil, 0, fmt.Errorf("task names models %d-%d of %d", task.ModelFirst+1, task.ModelEnd, len(j.models))
	case task.TargetFirst < 0 || task.TargetEnd > j.spec.DBCount || task.TargetFirst >= task.TargetEnd:
		return nil, 0, fmt.Errorf("task names targets %d-%d of %d", task.TargetFirst+1, task.TargetEnd, j.spec.DBCount)
	}
	for q := task.ModelFirst; q < task.ModelEnd; q++ {
		if j.thr[q] != nil {
			return nil, 0, j.thr[q]
		}
	}
	abc := j.models[0].Alph
	var search, onCores func(q int, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error)
	var residues int64
	var blk *residentBlock
	if t.blocks != nil {
		if blk, err = t.blocks.get(ctx, src, &task, abc); err != nil {
			return nil, 0, err
		}
		defer t.blocks.release(blk)
		residues = blk.residues
		search = func(q int, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error) {
			return pipeline.SearchStaged(j.ready[q], blk.seqs, blk.indices, cfg, blk.acc)
		}
		onCores = func(q int, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error) {
			return pipeline.SearchStaged(j.ready[q], blk.seqs, blk.indices, cfg, pipeline.CPUAccelerator{Seqs: blk.seqs})
		}
	} else {
		seqs, err := src.Targets(ctx, task.TargetFirst, task.TargetEnd, task.ByteStart, task.ByteEnd, abc)
		if err != nil {
			return nil, 0, err
		}
		indices := make([]int64, len(seqs))
		for i, sq := range seqs {
			indices[i] = task.TargetFirst + int64(i)
			residues += int64(sq.L())
		}
		search = func(q int, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error) {
			return pipeline.Search(j.ready[q], &pipeline.IndexedSlice{Seqs: seqs, Indices: indices}, cfg)
		}
	}
	blockReady := time.Now()
	n := task.ModelEnd - task.ModelFirst
	res := &taskResult{Task: task, Queries: make([]*queryResult, n)}
	errs := make([]error, n)
	// one searches query k of the task, on the cores' accelerator
	// instead of the block's when cores is set.
	one := func(k int, cores bool) {
		q := task.ModelFirst + k
		search := search
		if cores {
			search = onCores
		}
		if err := ctx.Err(); err != nil {
			errs[k] = err
			return
		}
		h := j.models[q]
		cfg := j.base
		cfg.CPUs = t.cpus
		cfg.Thresholds = j.ready[q].Thresholds
		cfg.TimeStages = t.trace != nil
		userStart, sysStart := cpuTimes()
		start := time.Now()
		list, st, err := search(q, &cfg)
		if err != nil {
			if h.Alph.Type != alphabet.Amino {
				err = fmt.Errorf("%w (query %s is a %s model, so targets are read as %s)", err, h.Name, h.Alph.Type, h.Alph.Type)
			}
			errs[k] = err
			return
		}
		user, sys := cpuTimes()
		res.Queries[k] = &queryResult{Name: h.Name, Acc: h.Acc, Desc: h.Desc, M: h.M,
			Thr: cfg.Thresholds, Hits: list, Stats: *st,
			Timing: report.Timing{User: user - userStart, Sys: sys - sysStart, Elapsed: time.Since(start).Seconds()}}
	}
	t.eachQuery(n, blk != nil, func(k int) { one(k, false) })
	if blk != nil && slices.ContainsFunc(errs, func(e error) bool { return e != nil }) && ctx.Err() == nil &&
		t.blocks.dropOthers(blk) > 0 {
		// Perhaps out of device memory: the other resident blocks are
		// gone now; one more try of the queries that failed.
		for k, e := range errs {
			if e != nil {
				errs[k] = nil
				one(k, false)
			}
		}
	}
	if blk != nil && ctx.Err() == nil && slices.ContainsFunc(errs, isDeviceError) {
		// The device failed (a fault breaks every context of the
		// process): those queries run on the cores, with the same
		// numbers, and the task completes.
		for k, e := range errs {
			if isDeviceError(e) {
				t.failOnce.Do(func() {
					if t.warn != nil {
						t.warn(fmt.Sprintf("%v; the queries it failed run on the cores (the results are the same), and each later task tries the GPU first", e))
					}
				})
				errs[k] = nil
				one(k, true)
			}
		}
	}
	var cells float64
	for k, e := range errs {
		if e != nil {
			return nil, 0, e
		}
		cells += float64(j.models[task.ModelFirst+k].M) * float64(residues)
	}
	searched := time.Now()
	body := encodeGob(res)
	if t.trace != nil {
		t.traceTask(id, &task, residues, res, []time.Time{started, blockReady, searched, time.Now()})
	}
	return body, cells, nil
}

// eachQuery runs one(k) for k in [0, n). The staged path runs up to
// gpuQueriesAtOnce queries at once, as hmmsearch --gpu does: the devices
// filter one query while the cores run Forward and domain definition for
// another, and the Forward requests of the queries in flight share
// launches. A task's queries are otherwise one after another: a block of
// a task is small, so each device stage is a short, latency-bound launch
// and each CPU pass a short burst, and run in turn they leave both the
// devices and the cores idle most of the time. Results do not depend on
// the schedule.
func (t *TaskRunner) eachQuery(n int, staged bool, one func(k int)) {
	at := 1
	if staged {
		at = t.queriesAtOnce
	}
	if at <= 1 || n == 1 {
		for k := range n {
			one(k)
		}
		return
	}
	slots := make(chan struct{}, at)
	var wg sync.WaitGroup
	for k := range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			one(k)
		}()
	}
	wg.Wait()
}

// remoteJob is a job's spec, parsed once per worker.
type remoteJob struct {
	spec   remoteSpec
	base   pipeline.Config
	models []*hmm.HMM
	ready  []*pipeline.Model
	thr    []error
}

// job parses a job's spec (once): its command line as a local run
// parses it, and its models.
func (t *TaskRunner) job(id string, specBytes []byte) (*remoteJob, error) {
	t.jobsMu.Lock()
	defer t.jobsMu.Unlock()
	if j, ok := t.jobs[id]; ok {
		return j, nil
	}
	j := &remoteJob{}
	if err := gob.NewDecoder(bytes.NewReader(specBytes)).Decode(&j.spec); err != nil {
		return nil, fmt.Errorf("undecodable job: %v", err)
	}
	g, err := parseLocal(j.spec.Args)
	if err != nil {
		return nil, fmt.Errorf("job's command line: %v", err)
	}
	s := &search{g: g}
	j.base = s.config()
	r, err := hmm.OpenFile("-", bytes.NewReader(j.spec.HMM))
	if err != nil {
		return nil, fmt.Errorf("job's HMM file: %v", err)
	}
	for {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("job's HMM file: %v", err)
		}
		if len(j.models) > 0 && h.Alph.Type != j.models[0].Alph.Type {
			return nil, fmt.Errorf("job's HMM file contains different alphabets")
		}
		j.models = append(j.models, h)
		precompile(t.gpus, h) // compile its GPU kernels in the background
		thr, terr := modelThresholds(h, j.base.Thresholds)
		j.thr = append(j.thr, terr)
		var m *pipeline.Model
		if terr == nil {
			cfg := j.base
			cfg.Thresholds = thr
			if m, err = pipeline.NewModel(h, &cfg); err != nil {
				return nil, err
			}
		}
		j.ready = append(j.ready, m)
	}
	if len(j.models) == 0 {
		return nil, fmt.Errorf("job's HMM file holds no model")
	}
	if len(t.jobs) >= 4 {
		clear(t.jobs)
	}
	t.jobs[id] = j
	return j, nil
}

// traceTask prints where a task's time went: getting its block (reading
// it, or finding it resident), the queries (each one's wall time per
// stage), and encoding the result.
// marks are the task's start, and when its block was ready, its queries
// done and its result encoded.
func (t *TaskRunner) traceTask(id string, task *remoteTask, residues int64, res *taskResult, marks []time.Time) {
	var b strings.Builder
	fmt.Fprintf(&b, "task trace: job %s models %d-%d targets %d-%d (%d residues): block %.2f ms, queries %.2f ms, encode %.2f ms",
		id, task.ModelFirst+1, task.ModelEnd, task.TargetFirst+1, task.TargetEnd, residues,
		ms(marks[1].Sub(marks[0])), ms(marks[2].Sub(marks[1])), ms(marks[3].Sub(marks[2])))
	for _, q := range res.Queries {
		fmt.Fprintf(&b, "; %s %.2f ms", q.Name, q.Timing.Elapsed*1e3)
		if t.blocks != nil {
			b.WriteString(" [")
			for i, d := range q.Stats.StageTime {
				if i > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "%s %.2f", hits.StageNames[i], ms(d))
			}
			b.WriteByte(']')
		}
	}
	fmt.Fprintln(t.trace, b.String())
}

// TraceDevices prints, with the task trace, each device's launches and
// the host time around them since the runner started: the fixed costs
// that many small tasks multiply.
func (t *TaskRunner) TraceDevices() {
	if t.trace == nil || len(t.gpus) == 0 {
		return
	}
	line := func(name string, s *gpudb.LaunchStats, kernel time.Duration) string {
		n, held, sub := s.Snapshot()
		return fmt.Sprintf("%s %d launches, held %.3f s (kernels %.3f s), subsets %.3f s", name, n, held.Seconds(), kernel.Seconds(), sub.Seconds())
	}
	for _, k := range t.gpus {
		fmt.Fprintf(t.trace, "device trace: GPU %d: %s; %s; %s\n", k.dev.Ordinal, line("MSV", &k.filter.Stats, k.filter.KernelTime),
			line("bias", &k.bias.Stats, k.bias.KernelTime), line("Viterbi", &k.vit.Stats, k.vit.KernelTime))
	}
	n, held, _ := gpudb.Layouts.Snapshot()
	fmt.Fprintf(t.trace, "device trace: %d target layouts packed and uploaded in %.3f s\n", n, held.Seconds())
}
