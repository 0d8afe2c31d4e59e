package pipeline

import (
	"runtime"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/vitfilter"
	"github.com/hmmgo/hmmgo/seqio"
)

// Accelerator computes whole pipeline stages for many targets at once
// (the GPUs), each with exactly the per-target CPU result.
type Accelerator interface {
	// MSV returns every target's MSV filter score.
	MSV(om *oprofile.Profile) ([]float32, error)
	// Viterbi returns the Viterbi filter score of the targets with want[i].
	Viterbi(om *oprofile.Profile, want []bool) ([]float32, error)
	// Parsers returns the Forward and Backward parsers of the targets with
	// want[i] (om in multihit mode, each target's own length); the others
	// are zero.
	Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error)
}

// targetState carries a target between stages.
type targetState struct {
	nullsc, filtersc float32
	P                float64
}

// SearchStaged runs the pipeline stage by stage over targets held in
// memory: the MSV filter, the Viterbi filter and the Forward/Backward
// parsers come from acc in bulk, the rest (null and bias models, P-values,
// domain definition, scores) runs on cfg.CPUs workers. Hits, counters and
// every number are those of Search. indices, when not nil, gives each
// target's index in the whole database (seqs is one shard of it), as an
// IndexedSource does for Search.
func SearchStaged(m *Model, seqs []*seqio.Sequence, indices []int64, cfg *Config, acc Accelerator) ([]*hits.Hit, *hits.Stats, error) {
	n := len(seqs)
	dbIndex := func(i int) int64 {
		if indices != nil {
			return indices[i]
		}
		return int64(i)
	}
	ncpu := max(1, cfg.CPUs)
	workers := make([]*worker, ncpu)
	for c := range workers {
		workers[c] = newWorker(m, cfg, 1)
	}
	forEach := func(want []bool, fn func(w *worker, i int) error) error {
		var wg sync.WaitGroup
		errs := make([]error, ncpu)
		chunk := max(1, min(4096, n/(4*ncpu)+1))
		var next int
		var mu sync.Mutex
		for c := range workers {
			wg.Add(1)
			go func(w *worker, c int) {
				defer wg.Done()
				for {
					mu.Lock()
					lo := next
					next += chunk
					mu.Unlock()
					if lo >= n || errs[c] != nil {
						return
					}
					for i := lo; i < min(lo+chunk, n); i++ {
						if want == nil || want[i] {
							if err := fn(w, i); err != nil {
								errs[c] = err
								return
							}
						}
					}
				}
			}(workers[c], c)
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}

	// With cfg.TimeStages each stage's wall time is recorded (the device
	// stages and the CPU passes between them run one after the other).
	var wall [hits.NStages]time.Duration
	mark := time.Now()
	lap := func(stage int) {
		now := time.Now()
		wall[stage] += now.Sub(mark)
		mark = now
	}
	usc, err := acc.MSV(m.OM)
	if err != nil {
		return nil, nil, err
	}
	lap(hits.StageMSV)
	st := make([]targetState, n)
	needVit := make([]bool, n)
	passVit := make([]bool, n)
	ev := &m.OM.EvParam
	// Null model, MSV and bias P-values.
	forEach(nil, func(w *worker, i int) error {
		dsq := seqs[i].Dsq
		L := len(dsq)
		w.stats.NSeqs++
		w.stats.NRes += int64(L)
		if L == 0 {
			return nil
		}
		w.bg.SetLength(L)
		s := &st[i]
		s.nullsc = w.bg.NullOne(L)
		s.P = easel.GumbelSurv(float64(bits(usc[i], s.nullsc)), float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
		if s.P > w.f1 {
			return nil
		}
		w.stats.NPastMSV++
		s.filtersc = s.nullsc
		if w.bias {
			s.filtersc = w.bg.FilterScore(dsq)
			s.P = easel.GumbelSurv(float64(bits(usc[i], s.filtersc)), float64(ev[hmm.MSVMu]), float64(ev[hmm.MSVLambda]))
			if s.P > w.f1 {
				return nil
			}
		}
		w.stats.NPastBias++
		if s.P > w.f2 {
			needVit[i] = true
		} else {
			passVit[i] = true
		}
		return nil
	})
	lap(hits.StageBias)
	vfsc, err := acc.Viterbi(m.OM, needVit)
	if err != nil {
		return nil, nil, err
	}
	forEach(nil, func(w *worker, i int) error {
		if needVit[i] {
			s := &st[i]
			s.P = easel.GumbelSurv(float64(bits(vfsc[i], s.filtersc)), float64(ev[hmm.VitMu]), float64(ev[hmm.VitLambda]))
			passVit[i] = s.P <= w.f2
		}
		if passVit[i] {
			w.stats.NPastVit++
		}
		return nil
	})
	lap(hits.StageVit)
	om := *m.OM
	om.ReconfigMultihit(om.L)
	parsers, err := acc.Parsers(&om, passVit)
	if err != nil {
		return nil, nil, err
	}
	lap(hits.StageFwd)
	found := make([]*hits.Hit, n)
	err = forEach(passVit, func(w *worker, i int) error {
		p := &parsers[i]
		if p.Err != nil {
			return p.Err
		}
		s := &st[i]
		P := easel.ExpSurv(float64(bits(p.FwdScore, s.filtersc)), float64(ev[hmm.FwdTau]), float64(ev[hmm.FwdLambda]))
		if P > w.f3 {
			return nil
		}
		w.stats.NPastFwd++
		dsq := seqs[i].Dsq
		w.om.ReconfigLength(len(dsq))
		res, err := w.def.Define(dsq, &w.om, p.Fwd, p.Bck)
		if err != nil {
			return err
		}
		if res.NRegions == 0 || res.NEnvelopes == 0 || len(res.Domains) == 0 {
			return nil
		}
		found[i] = w.score(seqs[i], dbIndex(i), s.nullsc, p.FwdScore, res)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	lap(hits.StageDomains)
	var list []*hits.Hit
	for _, h := range found {
		if h != nil {
			list = append(list, h)
		}
	}
	stats := &hits.Stats{NModels: 1, NNodes: int64(m.HMM.M)}
	stats.F1, stats.F2, stats.F3 = cfg.filterThresholds()
	for _, w := range workers {
		stats.Add(&w.stats)
	}
	if cfg.TimeStages {
		stats.StageTime = wall
	}
	return list, stats, nil
}

// CPUAccelerator computes the bulk stages on the CPU with the same kernels
// Search uses; it is SearchStaged's reference and fallback.
type CPUAccelerator struct {
	Seqs []*seqio.Sequence
}

func (c CPUAccelerator) each(om *oprofile.Profile, want []bool, fn func(p *oprofile.Profile, i int)) {
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := *om
			for i := w; i < len(c.Seqs); i += n {
				if (want == nil || want[i]) && c.Seqs[i].L() > 0 {
					p.ReconfigLength(c.Seqs[i].L())
					fn(&p, i)
				}
			}
		}(w)
	}
	wg.Wait()
}

// MSV implements Accelerator.
func (c CPUAccelerator) MSV(om *oprofile.Profile) ([]float32, error) {
	out := make([]float32, len(c.Seqs))
	c.each(om, nil, func(p *oprofile.Profile, i int) { out[i] = msvfilterScore(c.Seqs[i].Dsq, p) })
	return out, nil
}

// Viterbi implements Accelerator. Each worker scores its targets in one
// vitfilter.ScoreBatch call (two at a time for small models).
func (c CPUAccelerator) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	out := make([]float32, len(c.Seqs))
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := *om
			var jobs []vitfilter.Job
			var at []int
			for i := w; i < len(c.Seqs); i += n {
				if (want == nil || want[i]) && c.Seqs[i].L() > 0 {
					p.ReconfigLength(c.Seqs[i].L())
					jobs = append(jobs, vitfilter.Job{Dsq: c.Seqs[i].Dsq, XW: p.Vit.XW})
					at = append(at, i)
				}
			}
			sc := make([]float32, len(jobs))
			vitfilter.ScoreBatch(&p.Vit, jobs, sc)
			for j, i := range at {
				out[i] = sc[j]
			}
		}(w)
	}
	wg.Wait()
	return out, nil
}

// Parsers implements Accelerator.
func (c CPUAccelerator) Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error) {
	out := make([]fwdback.Parser, len(c.Seqs))
	c.each(om, want, func(p *oprofile.Profile, i int) {
		f, b := fwdback.NewMatrix(), fwdback.NewMatrix()
		fs, err := fwdback.Forward(c.Seqs[i].Dsq, p, f, false)
		if err == nil {
			var bs float32
			bs, err = fwdback.Backward(c.Seqs[i].Dsq, p, f, b, false)
			out[i].BckScore = bs
		}
		out[i] = fwdback.Parser{Fwd: f, Bck: b, FwdScore: fs, BckScore: out[i].BckScore, Err: err}
	})
	return out, nil
}
