// Package domaindef turns a target that passed the Forward filter into
// domains, as HMMER's p7_domaindef_ByPosteriorHeuristics does: posterior
// decoding of the whole target, regions of likely domain occupancy,
// stochastic traceback clustering of regions that hold several domains,
// envelope rescoring with Forward/Backward, null2 bias corrections and
// optimal-accuracy alignments.
package domaindef

import (
	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// Region thresholds and sampling (p7_domaindef_Create's defaults).
const (
	rt1      = float32(0.25)
	rt2      = float32(0.10)
	rt3      = float32(0.20)
	nSamples = 200
)

// Domain is one rescored envelope with its optimal-accuracy trace
// (full-sequence coordinates); the alignment display is built from it.
type Domain struct {
	hits.Domain
	Trace hits.Trace
}

// Result is domain definition's outcome for one target.
type Result struct {
	NExpected  float32
	NRegions   int
	NClustered int
	NOverlaps  int
	NEnvelopes int
	Domains    []Domain
	// N2Sc[pos] is the null2 log-odds correction of residue pos (1..L);
	// N2Sc[0] is 0.
	N2Sc []float32
}

// Definer holds the workspace of domain definition; one per worker.
type Definer struct {
	Seed     uint32 // 0: the generator is never reseeded
	rng      *easel.Random
	post     fwdback.Domains
	fwd, bck *fwdback.Matrix
	tr       hits.Trace
	null2    []float32
	sp       []segPair
}

// New returns a Definer whose generator is reset to seed at every
// multidomain region (seed 0: an arbitrary seed, never reset).
func New(seed uint32, arbitrary uint32) *Definer {
	d := &Definer{fwd: fwdback.NewMatrix(), bck: fwdback.NewMatrix()}
	d.Reset(seed, arbitrary)
	return d
}

// Reset makes d what New(seed, arbitrary) returns, keeping its
// workspace.
func (d *Definer) Reset(seed uint32, arbitrary uint32) {
	d.Seed = seed
	if seed != 0 {
		d.rng = easel.NewRandom(seed)
	} else {
		d.rng = easel.NewRandom(arbitrary)
	}
}

// Define finds the domains of dsq given the parser Forward and Backward
// matrices oxf and oxb of the whole target. om must be in multihit mode
// with its length model set to len(dsq); it is left that way.
func (d *Definer) Define(dsq []byte, om *oprofile.Profile, oxf, oxb *fwdback.Matrix) (*Result, error) {
	L := len(dsq)
	if err := fwdback.DomainDecoding(om, oxf, oxb, &d.post); err != nil {
		return nil, err
	}
	res := &Result{N2Sc: make([]float32, L+1)}
	if cap(d.null2) < om.Abc.Kp {
		d.null2 = make([]float32, om.Abc.Kp)
	}
	d.null2 = d.null2[:om.Abc.Kp] // a reused Definer may have served another alphabet
	btot, etot, mocc := d.post.BTot, d.post.ETot, d.post.MOcc
	res.NExpected = btot[L]
	saveL := om.L
	om.ReconfigUnihit(saveL)

	i, triggered := -1, false
	for j := 1; j <= L; j++ {
		if !triggered {
			if mocc[j]-(btot[j]-btot[j-1]) < rt2 {
				i = j
			} else if i == -1 {
				i = j
			}
			if mocc[j] >= rt1 {
				triggered = true
			}
			continue
		}
		if mocc[j]-(etot[j]-etot[j-1]) >= rt2 {
			continue
		}
		// Region i..j.
		res.NRegions++
		if d.isMultidomain(i, j) {
			res.NClustered++
			om.ReconfigMultihit(saveL)
			if _, err := fwdback.Forward(dsq[i-1:j], om, d.fwd, true); err != nil {
				return nil, err
			}
			sigc := d.traceEnsemble(res, dsq, om, i, j)
			om.ReconfigUnihit(saveL)
			lastJ2 := 0
			for _, c := range sigc {
				if c.i <= lastJ2 {
					res.NOverlaps++
				}
				res.NEnvelopes++
				if ok, err := d.rescore(res, dsq, om, c.i, c.j, true); err != nil {
					return nil, err
				} else if ok {
					lastJ2 = c.j
				}
			}
		} else {
			res.NEnvelopes++
			if _, err := d.rescore(res, dsq, om, i, j, false); err != nil {
				return nil, err
			}
		}
		i, triggered = -1, false
	}
	om.ReconfigMultihit(saveL)
	return res, nil
}

// isMultidomain tests whether region i..j expects two or more domains
// (is_multidomain_region).
func (d *Definer) isMultidomain(i, j int) bool {
	btot, etot := d.post.BTot, d.post.ETot
	max := float32(-1.0)
	for z := i; z <= j; z++ {
		e := etot[z] - etot[i-1]
		b := btot[j] - btot[z-1]
		n := b
		if e < b {
			n = e
		}
		if n > max {
			max = n
		}
	}
	return max >= rt3
}

// traceEnsemble samples nSamples traces of region ireg..jreg from d.fwd,
// accumulates the trace-based null2 correction of the region into
// res.N2Sc, and returns the region's domain envelopes
// (region_trace_ensemble).
func (d *Definer) traceEnsemble(res *Result, dsq []byte, om *oprofile.Profile, ireg, jreg int) []segPair {
	Lr := jreg - ireg + 1
	n2sc := res.N2Sc
	for p := ireg; p <= jreg; p++ {
		n2sc[p] = 0
	}
	if d.Seed != 0 {
		d.rng.Init(d.rng.Seed())
	}
	d.sp = d.sp[:0]
	null2 := d.null2
	for t := 0; t < nSamples; t++ {
		fwdback.StochasticTrace(d.rng, om, d.fwd, &d.tr)
		pos := 1
		for _, td := range fwdback.IndexTrace(&d.tr) {
			d.sp = append(d.sp, segPair{idx: t, i: td.SqFrom + ireg - 1, j: td.SqTo + ireg - 1, k: td.HMMFrom, m: td.HMMTo})
			fwdback.Null2ByTrace(om, &d.tr, td.TFrom, td.TTo, d.bck, null2)
			// Outside domains (and at each domain's first residue) the
			// null2 ratio is 1; inside, the domain's ratio.
			for ; pos <= td.SqFrom; pos++ {
				n2sc[ireg+pos-1] += 1.0
			}
			for ; pos <= td.SqTo; pos++ {
				n2sc[ireg+pos-1] += null2[dsq[ireg+pos-2]]
			}
		}
		for ; pos <= Lr; pos++ {
			n2sc[ireg+pos-1] += 1.0
		}
	}
	for p := ireg; p <= jreg; p++ {
		n2sc[p] = easel.Logf(n2sc[p] / float32(nSamples))
	}
	return removeDominated(cluster(d.sp, nSamples))
}

// rescore scores envelope i..j as an isolated domain (unihit, length model
// of the whole target): Forward/Backward, posterior decoding, optimal
// accuracy alignment, and the null2 correction (by expectation unless the
// ensemble already set it). It reports false when decoding overflows and
// the envelope is dropped (rescore_isolated_domain).
func (d *Definer) rescore(res *Result, dsq []byte, om *oprofile.Profile, i, j int, null2Done bool) (bool, error) {
	sub := dsq[i-1 : j]
	envsc, err := fwdback.Forward(sub, om, d.fwd, true)
	if err != nil {
		return false, err
	}
	if _, err := fwdback.Backward(sub, om, d.fwd, d.bck, true); err != nil {
		return false, err
	}
	// Posterior decoding into d.bck, optimal accuracy into d.fwd and
	// (unless the ensemble set it) null2 by expectation, in one pass.
	var null2 []float32
	if !null2Done {
		null2 = d.null2
	}
	oasc, err := fwdback.DecodeAlign(om, d.fwd, d.bck, null2)
	if err != nil {
		return false, nil
	}
	pp := d.bck
	var dom Domain
	fwdback.OATrace(om, pp, d.fwd, &dom.Trace)
	for z := range dom.Trace.I {
		if dom.Trace.I[z] > 0 {
			dom.Trace.I[z] += i - 1
		}
	}
	n2sc := res.N2Sc
	if !null2Done {
		for p := i; p <= j; p++ {
			n2sc[p] = easel.Logf(d.null2[dsq[p-1]])
		}
	}
	var domcorrection float32
	for p := i; p <= j; p++ {
		domcorrection += n2sc[p]
	}
	dom.IEnv, dom.JEnv = int64(i), int64(j)
	dom.IAli, dom.JAli = alignedRange(&dom.Trace)
	dom.EnvSc = envsc
	dom.OASc = oasc
	dom.DomCorrection = domcorrection
	res.Domains = append(res.Domains, dom)
	return true, nil
}

// alignedRange is the first and last residue aligned to a match state,
// the span HMMER's alignment display covers.
func alignedRange(tr *hits.Trace) (int64, int64) {
	var from, to int64
	for z, st := range tr.St {
		if st == hits.StM {
			if from == 0 {
				from = int64(tr.I[z])
			}
			to = int64(tr.I[z])
		}
	}
	return from, to
}
