package search

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/sqio"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
)

// thresholds are HMMER2's threshold_s after the Pfam cutoffs are set.
type thresholds struct {
	globE float64
	globT float32
	domE  float64
	domT  float32
	Z     int
}

// engine searches one profile against a stream of sequences with
// hmm2search's semantics and collects what the report needs.
type engine struct {
	h      *plan7.HMM
	p      *plan7.Profile
	th     thresholds
	opt    *Options
	scorer viterbi.Scorer

	workers int
	serial  bool // HMMER2's --cpu 0 mode: empty sequences are not counted

	ghit, dhit tophits
	hist       *histogram
	nseq       int // sequences counted (for Z and the report)
	space      viterbi.Space
	progress   func(n int)

	// A --shard run reads every sequence, so that the counts and matrix
	// sizes HMMER2 carries from one sequence to the next are those of
	// the whole database, but scores only the sequences in keep
	// (increasing database indices, 0-based).
	sharded bool
	keep    []int64
	planned int64 // sequences in the database when the shard was planned
	// hitIdx gives the database index of every sequence with a hit, for
	// the merge to put the shards' hits back in database order.
	hitIdx map[*hit]int64
}

// record is one database sequence moving through the pipeline.
type record struct {
	name, acc, desc string
	hasAcc, hasDesc bool
	dsq             []byte
	idx             int64         // database index (0-based)
	raw             int32         // Viterbi score
	nseqSoFar       int           // sequences counted when it was read
	space           viterbi.Space // matrix size before it (P7ViterbiSpaceOK)
	sc              float32       // score that goes to the histogram
	significant     bool
	res             *postResult
	err             error
}

func newEngine(h *plan7.HMM, p *plan7.Profile, th thresholds, o *Options, scorer viterbi.Scorer) *engine {
	workers := o.CPU
	if !o.cpuSet || workers <= 0 {
		workers = runtime.NumCPU()
	}
	return &engine{
		h: h, p: p, th: th, opt: o, scorer: scorer,
		workers: workers,
		serial:  o.cpuSet && o.CPU == 0,
		hist:    newHistogram(-200, 200, 100),
		space:   viterbi.NewSpace(p.M),
	}
}

// run reads all sequences and processes them in chunks: score every
// sequence of a chunk with the Scorer, decide in database order which
// ones are significant (HMMER2's E-value test uses the number of
// sequences read so far), align and post-process those in parallel, then
// register hits and histogram scores in database order. Reading runs one
// chunk ahead of the processing, so parsing overlaps the DP.
func (e *engine) run(rd *sqio.Reader) error {
	type batch struct {
		recs []*record
		nAll int
		err  error
	}
	chunks := make(chan batch, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(chunks)
		var s sqio.Sequence
		var recs []*record
		residues, nAll := 0, 0
		next := 0 // the next of e.keep to come
		send := func(err error) bool {
			select {
			case chunks <- batch{recs, nAll, err}:
				recs, residues = nil, 0
				return true
			case <-stop:
				return false
			}
		}
		for {
			err := rd.Next(&s)
			if err == io.EOF {
				break
			}
			if err != nil {
				send(err)
				return
			}
			nAll++
			idx := int64(nAll - 1)
			mine := true
			if e.sharded {
				mine = next < len(e.keep) && e.keep[next] == idx
				if mine {
					next++
				}
			}
			if len(s.Seq) == 0 {
				// Skipped without a score; only HMMER2's threaded mode (the
				// default) counts it among the sequences searched.
				if !e.serial {
					e.nseq++
				}
				continue
			}
			e.nseq++
			if !mine {
				// Another shard scores it; HMMER2's running state moves on.
				viterbi.AdvanceSpace(len(s.Seq), e.p.M, &e.space)
				continue
			}
			r := &record{
				idx:  idx,
				name: s.Name, acc: s.Acc, desc: s.Desc, hasAcc: s.HasAcc, hasDesc: s.HasDesc,
				dsq:       e.h.Alph.Digitize(s.Seq, nil),
				nseqSoFar: e.nseq,
				space:     e.space,
			}
			viterbi.AdvanceSpace(len(r.dsq), e.p.M, &e.space)
			recs = append(recs, r)
			residues += len(r.dsq)
			if len(recs) >= e.opt.Batch || residues >= 1<<24 {
				if !send(nil) {
					return
				}
			}
		}
		if e.sharded && int64(nAll) != e.planned {
			send(fmt.Errorf("%s has %d sequences, not the %d this shard was planned with (did it change during the run?)",
				e.opt.SeqFile, nAll, e.planned))
			return
		}
		if len(recs) > 0 {
			send(nil)
		}
	}()
	for b := range chunks {
		if b.err != nil {
			return b.err
		}
		if err := e.processChunk(b.recs); err != nil {
			return err
		}
		if e.progress != nil {
			e.progress(b.nAll)
		}
	}
	return nil
}

func (e *engine) processChunk(chunk []*record) error {
	if e.opt.Forward {
		// --forward rescores every sequence and, with null2, corrects
		// it with its Viterbi trace, so every sequence is aligned.
		e.parallel(chunk, func(r *record) { r.err = e.forwardScore(r) })
	} else {
		seqs := make([][]byte, len(chunk))
		raw := make([]int32, len(chunk))
		for i, r := range chunk {
			seqs[i] = r.dsq
		}
		if err := e.scorer.Score(seqs, raw); err != nil {
			return err
		}
		for i, r := range chunk {
			r.raw = raw[i]
			r.sc = plan7.Scorify(r.raw)
		}
	}
	for _, r := range chunk {
		if r.err != nil {
			return r.err
		}
	}
	var hits []*record
	for _, r := range chunk {
		pvalue := PValue(e.h, r.sc)
		var evalue float64
		if e.th.Z != 0 {
			evalue = float64(e.th.Z) * pvalue
		} else {
			evalue = float64(r.nseqSoFar) * pvalue
		}
		if r.sc >= e.th.globT && evalue <= e.th.globE {
			r.significant = true
			hits = append(hits, r)
		}
	}
	e.parallel(hits, func(r *record) { r.res, r.err = e.postprocess(r) })
	for _, r := range chunk {
		if r.err != nil {
			return fmt.Errorf("sequence %s: %v", r.name, r.err)
		}
		if r.significant {
			for _, d := range r.res.domains {
				e.dhit.register(d)
				e.noteHit(d, r.idx)
			}
			if r.res.global != nil {
				e.ghit.register(r.res.global)
				e.noteHit(r.res.global, r.idx)
			}
			r.sc = r.res.wholeSc
		}
		e.hist.add(r.sc)
		r.dsq = nil
	}
	return nil
}

// parallel runs f on every record with the engine's goroutines.
func (e *engine) parallel(rs []*record, f func(*record)) {
	if len(rs) == 0 {
		return
	}
	var wg sync.WaitGroup
	ch := make(chan *record)
	for w := 0; w < min(e.workers, len(rs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range ch {
				f(r)
			}
		}()
	}
	for _, r := range rs {
		ch <- r
	}
	close(ch)
	wg.Wait()
}

// align recovers the Viterbi trace of a record the way hmm2search did
// when it reached that sequence.
func (e *engine) align(r *record) (int32, *viterbi.Trace, error) {
	sp := r.space
	return viterbi.Align(e.p, r.dsq, &viterbi.Matrix{}, &sp)
}

// forwardScore is hmm2search --forward: the Forward score, minus the
// null2 correction of the whole Viterbi trace when null2 is on.
func (e *engine) forwardScore(r *record) error {
	raw, tr, err := e.align(r)
	if err != nil {
		return err
	}
	r.raw = raw
	r.sc = plan7.Scorify(viterbi.Forward(e.p, r.dsq))
	if e.opt.Null2 {
		r.sc -= tr.Null2Correction(e.p, r.dsq)
	}
	return nil
}

// postResult is what PostprocessSignificantHit() adds to the hit lists.
type postResult struct {
	wholeSc float32
	domains []*hit
	global  *hit
}

// postprocess is PostprocessSignificantHit() in hmmsearch mode: split
// the trace into domains, rescore each (minus null2), keep the positive
// ones (or the best one), and make the per-domain and per-sequence hits.
func (e *engine) postprocess(r *record) (*postResult, error) {
	_, tr, err := e.align(r)
	if err != nil {
		return nil, err
	}
	res := &postResult{wholeSc: r.sc}
	if tr == nil { // the alignment was impossible
		return res, nil
	}
	tarr := tr.Decompose()
	if len(tarr) == 0 {
		return nil, fmt.Errorf("trace has no domain")
	}
	score := make([]float32, len(tarr))
	used := make([]bool, len(tarr))
	ndom := 0
	var whole float32
	for i, t := range tarr {
		sc, err := t.Score(e.p, r.dsq)
		if err != nil {
			return nil, err
		}
		if e.opt.Null2 {
			sc -= t.Null2Correction(e.p, r.dsq)
		}
		score[i] = sc
		if sc > 0.0 {
			used[i] = true
			ndom++
			whole += sc
		}
	}
	if ndom == 0 {
		best := plan7.FArgMax(score)
		used[best] = true
		whole = score[best]
		ndom = 1
	}
	if e.opt.Forward {
		whole = r.sc
	}
	wholeP := PValue(e.h, whole)
	didx := 1
	for i, t := range tarr {
		if !used[i] {
			continue
		}
		i1, i2, k1, k2, err := t.SimpleBounds()
		if err != nil {
			return nil, err
		}
		pv := PValue(e.h, score[i])
		if pv <= e.th.domE && score[i] >= e.th.domT {
			res.domains = append(res.domains, &hit{
				sortkey: float64(score[i]), score: score[i], pvalue: pv,
				mothersc: whole, motherp: wholeP,
				name: r.name, acc: r.acc, desc: r.desc, hasAcc: r.hasAcc, hasDesc: r.hasDesc,
				sqfrom: i1, sqto: i2, sqlen: len(r.dsq), hmmfrom: k1, hmmto: k2,
				domidx: didx, ndom: ndom,
				ali: newFancyAli(t, e.p, r.dsq, r.name),
			})
		}
		didx++
	}
	if whole >= e.th.globT {
		res.global = &hit{
			sortkey: float64(whole), score: whole, pvalue: wholeP,
			name: r.name, acc: r.acc, desc: r.desc, hasAcc: r.hasAcc, hasDesc: r.hasDesc,
			ndom: ndom,
		}
	}
	res.wholeSc = whole
	return res, nil
}
