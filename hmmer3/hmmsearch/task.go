package hmmsearch

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
	"github.com/hmmgo/hmmgo/seqio"
)

// TaskRunner does hmmsearch tasks of the work queue on this machine
// ('hmmgo worker'). It reads target blocks only from the databases it was
// given, which it knows by their SHA-256; a task names a database by that
// fingerprint and a block by target and byte ranges, all checked, so a
// task can neither read other files nor run anything else.
type TaskRunner struct {
	cpus int
	dbs  map[string]*servedDB
	jobs map[string]*remoteJob // by job ID; a few recent ones
}

type servedDB struct {
	path    string
	size    int64
	modTime time.Time
}

// remoteJob is a job's spec, parsed once per worker.
type remoteJob struct {
	spec   remoteSpec
	base   pipeline.Config
	models []*hmm.HMM
	ready  []*pipeline.Model
	thr    []error
}

// NewTaskRunner fingerprints the databases a worker serves (reading each
// once); cpus is the number of threads per task.
func NewTaskRunner(paths []string, cpus int) (*TaskRunner, error) {
	t := &TaskRunner{cpus: max(1, cpus), dbs: make(map[string]*servedDB), jobs: make(map[string]*remoteJob)}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", p)
		}
		sum, size, err := fingerprint(abs, nil)
		if err != nil {
			return nil, err
		}
		t.dbs[sum] = &servedDB{path: abs, size: size, modTime: st.ModTime()}
	}
	return t, nil
}

// Databases returns the fingerprints of the served databases.
func (t *TaskRunner) Databases() map[string]string {
	out := make(map[string]string, len(t.dbs))
	for sum, d := range t.dbs {
		out[sum] = d.path
	}
	return out
}

// Run does one task of job id and returns its encoded result and its DP
// cells.
func (t *TaskRunner) Run(ctx context.Context, id string, specBytes, taskBytes []byte) ([]byte, float64, error) {
	j, err := t.job(id, specBytes)
	if err != nil {
		return nil, 0, err
	}
	var task remoteTask
	if err := gob.NewDecoder(bytes.NewReader(taskBytes)).Decode(&task); err != nil {
		return nil, 0, fmt.Errorf("undecodable task: %v", err)
	}
	db := t.dbs[j.spec.DBSHA]
	if db == nil {
		return nil, 0, fmt.Errorf("this worker does not serve the database with sha256 %s", j.spec.DBSHA)
	}
	switch {
	case task.ModelFirst < 0 || task.ModelEnd > len(j.models) || task.ModelFirst >= task.ModelEnd:
		return nil, 0, fmt.Errorf("task names models %d-%d of %d", task.ModelFirst+1, task.ModelEnd, len(j.models))
	case task.TargetFirst < 0 || task.TargetEnd > j.spec.DBCount || task.TargetFirst >= task.TargetEnd:
		return nil, 0, fmt.Errorf("task names targets %d-%d of %d", task.TargetFirst+1, task.TargetEnd, j.spec.DBCount)
	case task.ByteStart < 0 || task.ByteEnd > db.size || task.ByteStart >= task.ByteEnd:
		return nil, 0, fmt.Errorf("task names bytes %d-%d of a %d-byte database", task.ByteStart, task.ByteEnd, db.size)
	}
	seqs, err := t.readBlock(db, j, &task)
	if err != nil {
		return nil, 0, err
	}
	src := &pipeline.IndexedSlice{Seqs: seqs}
	var residues int64
	for i, sq := range seqs {
		src.Indices = append(src.Indices, task.TargetFirst+int64(i))
		residues += int64(sq.L())
	}
	res := &taskResult{Task: task}
	var cells float64
	for q := task.ModelFirst; q < task.ModelEnd; q++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		h := j.models[q]
		if j.thr[q] != nil {
			return nil, 0, j.thr[q]
		}
		cfg := j.base
		cfg.CPUs = t.cpus
		cfg.Thresholds = j.ready[q].Thresholds
		userStart, sysStart := cpuTimes()
		start := time.Now()
		src := &pipeline.IndexedSlice{Seqs: src.Seqs, Indices: src.Indices}
		list, st, err := pipeline.Search(j.ready[q], src, &cfg)
		if err != nil {
			return nil, 0, err
		}
		user, sys := cpuTimes()
		res.Queries = append(res.Queries, &queryResult{Name: h.Name, Acc: h.Acc, Desc: h.Desc, M: h.M,
			Thr: cfg.Thresholds, Hits: list, Stats: *st,
			Timing: report.Timing{User: user - userStart, Sys: sys - sysStart, Elapsed: time.Since(start).Seconds()}})
		cells += float64(h.M) * float64(residues)
	}
	return encodeGob(res), cells, nil
}

// job parses a job's spec (once): its command line as a local run
// parses it, and its models.
func (t *TaskRunner) job(id string, specBytes []byte) (*remoteJob, error) {
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
		j.models = append(j.models, h)
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
	if len(t.jobs) >= 4 {
		clear(t.jobs)
	}
	t.jobs[id] = j
	return j, nil
}

// readBlock reads a task's targets from the database file, checking that
// the byte range holds exactly the records the task names.
func (t *TaskRunner) readBlock(db *servedDB, j *remoteJob, task *remoteTask) ([]*seqio.Sequence, error) {
	st, err := os.Stat(db.path)
	if err != nil {
		return nil, err
	}
	if st.Size() != db.size || !st.ModTime().Equal(db.modTime) {
		return nil, fmt.Errorf("database %s changed since this worker started (restart the worker)", db.path)
	}
	f, err := os.Open(db.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var first [1]byte
	if _, err := f.ReadAt(first[:], task.ByteStart); err != nil || first[0] != '>' {
		return nil, fmt.Errorf("task's block does not start at a record of %s", db.path)
	}
	r, err := seqio.Open("-", io.NewSectionReader(f, task.ByteStart, task.ByteEnd-task.ByteStart), j.models[0].Alph)
	if err != nil {
		return nil, err
	}
	var seqs []*seqio.Sequence
	for {
		sq, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s, bytes %d-%d: %v", db.path, task.ByteStart, task.ByteEnd, err)
		}
		seqs = append(seqs, sq)
	}
	if int64(len(seqs)) != task.TargetEnd-task.TargetFirst {
		return nil, fmt.Errorf("%s, bytes %d-%d: %d sequences where the task expects %d", db.path, task.ByteStart, task.ByteEnd,
			len(seqs), task.TargetEnd-task.TargetFirst)
	}
	return seqs, nil
}
