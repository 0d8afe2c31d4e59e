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
	// RefGaps keeps the columns reads insert (PaPaRa's default); false is
	// PaPaRa's -r: the output has the reference's width.
	RefGaps bool
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

// Result is the extended alignment and the placements.
type Result struct {
	Names      []string // reference rows, then reads
	Rows       [][]byte
	NumRefs    int
	Placements []Placement
	Job        *Job
	Workers    []WorkerStats
	ScoreTime  time.Duration
	AlignTime  time.Duration
}

// Run scores every read against every branch, aligns each read to its
// best branch and builds the extended alignment.
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
	forgetPlan(job)
	if err != nil {
		return nil, err
	}
	out := &Result{Job: job, Workers: stats, ScoreTime: time.Since(t0), NumRefs: len(p.Ref.Names)}

	t1 := time.Now()
	traces, scores, err := alignBest(job, res, len(scorers))
	if err != nil {
		return nil, err
	}
	m := p.Ref.Model
	gaps := newRefGaps(p.Ref.Branches.Len)
	if opt.RefGaps {
		for _, t := range traces {
			gaps.add(t)
		}
	}
	for i, name := range p.Ref.Names {
		out.Names = append(out.Names, name)
		if opt.RefGaps {
			out.Rows = append(out.Rows, gaps.expandRef(p.Ref.Rows[i]))
		} else {
			row := make([]byte, len(p.Ref.Rows[i]))
			for k, c := range p.Ref.Rows[i] {
				row[k] = m.Normalize(c)
			}
			out.Rows = append(out.Rows, row)
		}
	}
	for qi, q := range p.Queries {
		out.Names = append(out.Names, q.Name)
		if opt.RefGaps {
			out.Rows = append(out.Rows, gaps.readRow(traces[qi], m, q.CStates))
		} else {
			out.Rows = append(out.Rows, readRowNoRefGaps(traces[qi], m, q.CStates))
		}
		out.Placements = append(out.Placements, Placement{Query: q.Name, Branch: int(res.Branch[qi]), Score: scores[qi]})
	}
	out.AlignTime = time.Since(t1)
	return out, nil
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
