package core

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Options control a run.
type Options struct {
	Params  Params
	Scoring Scoring
	// Scorers score the branch blocks (default: one CPU scorer per CPU).
	Scorers []Scorer
	// Progress, if set, receives the fraction of the scoring phase done.
	Progress func(float64)
}

// Placement is the best branch of a read.
type Placement struct {
	Query  string
	Branch int
	Score  int
}

// Result holds every read's best branch and its alignment to it; Render
// turns them into the extended alignment.
type Result struct {
	Placements []Placement
	Job        *Job
	Workers    []WorkerStats
	ScoreTime  time.Duration
	AlignTime  time.Duration
	prep       *Prepared
	traces     [][]uint8
}

// Run scores every read against every branch and aligns each read to its
// best branch.
func Run(p *Prepared, opt Options) (*Result, error) {
	if opt.Scoring == ScoringPaPaRa {
		if err := opt.Params.Check(); err != nil {
			return nil, err
		}
	}
	job := &Job{Model: p.Ref.Model, Params: opt.Params, Scoring: opt.Scoring, Branches: p.Ref.Branches, Queries: p.Queries}
	scorers := opt.Scorers
	if len(scorers) == 0 {
		scorers = CPUScorers(0)
	}
	t0 := time.Now()
	res, stats, err := ScoreAll(job, scorers, opt.Progress)
	forgetPlan(job) // free its tables
	if err != nil {
		return nil, err
	}
	out := &Result{Job: job, Workers: stats, ScoreTime: time.Since(t0), prep: p}

	t1 := time.Now()
	traces, scores, err := alignBest(job, res, len(scorers))
	if err != nil {
		return nil, err
	}
	out.traces = traces
	for qi, q := range p.Queries {
		out.Placements = append(out.Placements, Placement{Query: q.Name, Branch: int(res.Branch[qi]), Score: scores[qi]})
	}
	out.AlignTime = time.Since(t1)
	return out, nil
}

// Render builds the extended alignment, reference rows first. With
// refGaps (PaPaRa's default) every residue a read inserts between
// reference columns gets a column; without (PaPaRa's -r) inserted
// residues are dropped and the alignment keeps the reference's width.
func (r *Result) Render(refGaps bool) (names []string, rows [][]byte) {
	p := r.prep
	m := p.Ref.Model
	gaps := newRefGaps(p.Ref.Branches.Len)
	if refGaps {
		for _, t := range r.traces {
			gaps.add(t)
		}
	}
	for i, name := range p.Ref.Names {
		names = append(names, name)
		if refGaps {
			rows = append(rows, gaps.expandRef(p.Ref.Rows[i]))
		} else {
			row := make([]byte, len(p.Ref.Rows[i]))
			for k, c := range p.Ref.Rows[i] {
				row[k] = m.Normalize(c)
			}
			rows = append(rows, row)
		}
	}
	for qi, q := range p.Queries {
		names = append(names, q.Name)
		if refGaps {
			rows = append(rows, gaps.readRow(r.traces[qi], m, q.CStates))
		} else {
			rows = append(rows, readRowNoRefGaps(r.traces[qi], m, q.CStates))
		}
	}
	return names, rows
}

// alignBest computes the trace of every read against its best branch, in
// parallel, and checks that the full aligner agrees with the scoring
// phase (PaPaRa stops with an error when they differ).
func alignBest(job *Job, res *Results, workers int) ([][]uint8, []int, error) {
	n := len(job.Queries)
	traces := make([][]uint8, n)
	scores := make([]int, n)
	errs := make([]error, n)
	workers = max(1, min(workers, runtime.NumCPU(), n))
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a aligner
			for qi := range next {
				q := job.Queries[qi]
				b := int(res.Branch[qi])
				var sc int
				var tr []uint8
				if job.Scoring == ScoringPaper {
					sc, tr = a.alignPaper(job.Branches, b, job.Model, q.CStates, nil)
					if int32(-sc) != res.Score[qi] {
						errs[qi] = fmt.Errorf("internal error: read %s: scoring and alignment disagree (%d vs %d)", q.Name, -res.Score[qi], sc)
					}
				} else {
					sc, tr = a.alignPaPaRa(job.Branches, b, job.Model, q.CStates, job.Params, nil)
					if int32(sc) != res.Score[qi] {
						errs[qi] = fmt.Errorf("internal error: read %s: scoring and alignment disagree (%d vs %d)", q.Name, res.Score[qi], sc)
					}
				}
				traces[qi], scores[qi] = tr, sc
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return traces, scores, nil
}
