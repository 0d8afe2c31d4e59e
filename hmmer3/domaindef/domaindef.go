// Package domaindef turns a target that passed the Forward filter into
// domains, as HMMER's p7_domaindef_ByPosteriorHeuristics does: posterior
// decoding of the whole target, regions of likely domain occupancy,
// stochastic traceback clustering of regions that hold several domains,
// envelope rescoring with Forward/Backward, null2 bias corrections and
// optimal-accuracy alignments.
package domaindef

import (
	"sort"

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
	sampler  fwdback.TraceSampler
	null2    []float32
	sp       []segPair

	// Rescoring's workspace: the matrices of a group of envelopes, the
	// envelope kernels' arguments, the envelopes in rescoring order.
	gfwd, gbck []*fwdback.Matrix
	ew         *fwdback.EnvWork
	queue      []envRef

	newMatrix func() *fwdback.Matrix
}

// New returns a Definer whose generator is reset to seed at every
// multidomain region (seed 0: an arbitrary seed, never reset).
func New(seed uint32, arbitrary uint32) *Definer {
	return newDefiner(seed, arbitrary, fwdback.NewMatrix)
}

// NewInHugePages is New with its matrices in huge pages
// (fwdback.NewHugePageMatrix): they are freed when the Definer is
// unreachable or at Release, so it must stay reachable while it works.
func NewInHugePages(seed uint32, arbitrary uint32) *Definer {
	return newDefiner(seed, arbitrary, fwdback.NewHugePageMatrix)
}

func newDefiner(seed, arbitrary uint32, newMatrix func() *fwdback.Matrix) *Definer {
	d := &Definer{fwd: newMatrix(), bck: newMatrix(), ew: fwdback.NewEnvWork(), newMatrix: newMatrix}
	// The first envelope of a group reuses the matrices of the trace
	// ensemble, which is done with them by then.
	d.gfwd, d.gbck = []*fwdback.Matrix{d.fwd}, []*fwdback.Matrix{d.bck}
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

// MatrixBytes is the memory d's DP matrices hold.
func (d *Definer) MatrixBytes() int {
	n := 0
	for k := range d.gfwd {
		n += d.gfwd[k].Bytes() + d.gbck[k].Bytes()
	}
	return n
}

// Release frees d's DP matrices; they grow again as needed.
func (d *Definer) Release() {
	for k := range d.gfwd {
		d.gfwd[k].Release()
		d.gbck[k].Release()
	}
}

// Define finds the domains of dsq given the parser Forward and Backward
// matrices oxf and oxb of the whole target. om must be in multihit mode
// with its length model set to len(dsq); it is left that way. It is
// Prepare, Rescore and Finish on this one target.
func (d *Definer) Define(dsq []byte, om *oprofile.Profile, oxf, oxb *fwdback.Matrix) (*Result, error) {
	p := d.Prepare(dsq, om, oxf, oxb)
	d.Rescore([]*Pending{p})
	return d.Finish(p)
}

// Domain definition runs in three steps so that the envelopes of several
// targets can be rescored together (fwdback.ForwardGroup): Prepare finds
// a target's envelopes, in HMMER's order and with its use of the random
// generator; Rescore runs Forward and Backward on the envelopes of any
// number of prepared targets, EnvGroup() at a time, and everything else
// that depends on one envelope alone (decoding, optimal accuracy, null2);
// Finish puts a target's domains together in envelope order. The results
// are those of rescoring each envelope as it is found (HMMER's
// rescore_isolated_domain inside the region loop): the envelopes of a
// target are disjoint regions, or envelopes of a clustered region whose
// null2 the trace ensemble set before any of them, so nothing one
// envelope computes feeds another's.

// Pending is a target between Prepare and Finish.
type Pending struct {
	dsq  []byte
	om   oprofile.Profile // unihit with the target's length, sharing the model's vectors
	res  *Result
	envs []envelope
	err  error // Prepare's error, after envs
}

// Cells is the DP cells of rescoring p's envelopes (residues times model
// nodes): a measure of the work, for dividing it.
func (p *Pending) Cells() int {
	n := 0
	for k := range p.envs {
		n += envRef{p, k}.cells()
	}
	return n
}

// Envelopes is how many envelopes p has to rescore.
func (p *Pending) Envelopes() int { return len(p.envs) }

// LongestCells is the DP cells of p's longest envelope (0 without one).
func (p *Pending) LongestCells() int {
	n := 0
	for k := range p.envs {
		n = max(n, envRef{p, k}.cells())
	}
	return n
}

// envelope is one envelope to rescore and, after Rescore, its outcome.
type envelope struct {
	i, j      int
	null2Done bool // the trace ensemble set its null2
	region    int  // its clustered region (1, 2, ...), 0 for a region alone
	ok        bool // decoding did not overflow
	err       error
	dom       Domain
}

// Prepare runs domain definition on dsq up to its list of envelopes:
// posterior decoding of the whole target, regions, and for a region
// that holds several domains the stochastic trace clustering and its
// null2 (see Define for om, oxf and oxb).
func (d *Definer) Prepare(dsq []byte, om *oprofile.Profile, oxf, oxb *fwdback.Matrix) *Pending {
	L := len(dsq)
	p := &Pending{dsq: dsq}
	if err := fwdback.DomainDecoding(om, oxf, oxb, &d.post); err != nil {
		p.err = err
		return p
	}
	res := &Result{N2Sc: make([]float32, L+1)}
	p.res = res
	d.sizeNull2(om.Abc.Kp)
	btot, etot, mocc := d.post.BTot, d.post.ETot, d.post.MOcc
	res.NExpected = btot[L]
	saveL := om.L
	p.om = *om
	p.om.ReconfigUnihit(saveL)
	om.ReconfigUnihit(saveL)
	defer om.ReconfigMultihit(saveL)

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
				p.err = err
				return p
			}
			sigc := d.traceEnsemble(res, dsq, om, i, j)
			om.ReconfigUnihit(saveL)
			for _, c := range sigc {
				res.NEnvelopes++
				p.envs = append(p.envs, envelope{i: c.i, j: c.j, null2Done: true, region: res.NClustered})
			}
		} else {
			res.NEnvelopes++
			p.envs = append(p.envs, envelope{i: i, j: j})
		}
		i, triggered = -1, false
	}
	return p
}

// Rescore rescores the envelopes of the prepared targets ps (all of one
// model, as a worker's are), fwdback.EnvGroup() at a time, neighbours in
// length together.
func (d *Definer) Rescore(ps []*Pending) {
	d.queue = d.queue[:0]
	for _, p := range ps {
		for k := range p.envs {
			d.queue = append(d.queue, envRef{p, k})
		}
	}
	sort.SliceStable(d.queue, func(a, b int) bool { return d.queue[a].len() < d.queue[b].len() })
	g := fwdback.EnvGroup()
	for k := 0; k < len(d.queue); {
		n, cells := 1, d.queue[k].cells()
		for n < g && k+n < len(d.queue) && cells+d.queue[k+n].cells() <= groupCells {
			cells += d.queue[k+n].cells()
			n++
		}
		d.rescoreGroup(d.queue[k : k+n])
		k += n
	}
}

// groupCells bounds the DP cells of an envelope group. Each envelope of a
// group has its own Forward and Backward matrices (about 24 bytes a cell
// for both), kept for the next group: without a bound a worker would hold
// four times the matrices of the largest envelopes it meets (11.5 GB
// instead of 2.9 GB on 16 cores for a 2,405-node model), paying the gain
// back in page faults. With it a worker holds at most about 100 MB more
// than one envelope alone needs; envelopes too large to share the bound
// are rescored alone.
const groupCells = 1 << 22

// envRef is an envelope of a pending target.
type envRef struct {
	p *Pending
	k int
}

func (r envRef) env() *envelope { return &r.p.envs[r.k] }
func (r envRef) len() int       { e := r.env(); return e.j - e.i + 1 }
func (r envRef) cells() int     { return r.len() * r.p.om.M }

// rescoreGroup scores each envelope of rs as an isolated domain (unihit,
// length model of its whole target), its Forward and Backward matrices
// computed together: posterior decoding, optimal accuracy alignment, and
// the null2 correction (by expectation unless the ensemble already set
// it); an envelope whose decoding overflows is dropped, ok false
// (rescore_isolated_domain).
func (d *Definer) rescoreGroup(rs []envRef) {
	n := len(rs)
	for len(d.gfwd) < n {
		d.gfwd, d.gbck = append(d.gfwd, d.newMatrix()), append(d.gbck, d.newMatrix())
	}
	var (
		ds   [4][]byte
		oms  [4]*oprofile.Profile
		fsc  [4]float32
		bsc  [4]float32
		ferr [4]error
		berr [4]error
	)
	for x, r := range rs {
		e := r.env()
		ds[x], oms[x] = r.p.dsq[e.i-1:e.j], &r.p.om
	}
	fwds, bcks := d.gfwd[:n], d.gbck[:n]
	fwdback.ForwardGroup(ds[:n], oms[:n], fwds, fsc[:n], ferr[:n], d.ew)
	fwdback.BackwardGroup(ds[:n], oms[:n], fwds, bcks, bsc[:n], berr[:n], d.ew)
	for x, r := range rs {
		e := r.env()
		switch {
		case ferr[x] != nil:
			e.err = ferr[x]
		case berr[x] != nil:
			e.err = berr[x]
		default:
			e.ok = d.decode(r.p, e, fsc[x], fwds[x], bcks[x])
		}
	}
}

// decode is the rest of an envelope's rescoring after Forward (score
// envsc, matrix fwd) and Backward (bck): posterior decoding into bck,
// optimal accuracy into fwd and (unless the ensemble set it) null2 by
// expectation, in one pass; then the alignment and the domain record.
func (d *Definer) decode(p *Pending, e *envelope, envsc float32, fwd, bck *fwdback.Matrix) bool {
	var null2 []float32
	if !e.null2Done {
		null2 = d.sizeNull2(p.om.Abc.Kp)
	}
	oasc, err := fwdback.DecodeAlign(&p.om, fwd, bck, null2)
	if err != nil {
		return false
	}
	fwdback.OATrace(&p.om, bck, fwd, &e.dom.Trace)
	record(p, e, envsc, oasc, null2)
	return true
}

// sizeNull2 returns d's null2 buffer sized for an alphabet of kp
// symbols: the Definer that rescores a target need not be the one that
// prepared it, and a reused one may have served another alphabet.
func (d *Definer) sizeNull2(kp int) []float32 {
	if cap(d.null2) < kp {
		d.null2 = make([]float32, kp)
	}
	d.null2 = d.null2[:kp]
	return d.null2
}

// record fills envelope e's domain from its rescoring: e.dom.Trace holds
// the optimal accuracy trace with residues numbered from the envelope's
// start, null2 its odds ratios unless the ensemble set them.
func record(p *Pending, e *envelope, envsc, oasc float32, null2 []float32) {
	dsq, i, j := p.dsq, e.i, e.j
	dom := &e.dom
	for z := range dom.Trace.I {
		if dom.Trace.I[z] > 0 {
			dom.Trace.I[z] += i - 1
		}
	}
	n2sc := p.res.N2Sc
	if !e.null2Done {
		for q := i; q <= j; q++ {
			n2sc[q] = easel.Logf(null2[dsq[q-1]])
		}
	}
	var domcorrection float32
	for q := i; q <= j; q++ {
		domcorrection += n2sc[q]
	}
	dom.IEnv, dom.JEnv = int64(i), int64(j)
	dom.IAli, dom.JAli = alignedRange(&dom.Trace)
	dom.EnvSc = envsc
	dom.OASc = oasc
	dom.DomCorrection = domcorrection
}

// RescoreOn rescores the envelopes of the prepared targets ps (all of
// one model) with r, in one call, instead of Rescore on the cores: the
// same bits (fwdback.EnvRescorer). On an error of r nothing is set, and
// Rescore can still do the work.
func RescoreOn(r fwdback.EnvRescorer, ps []*Pending) error {
	var (
		jobs []fwdback.EnvJob
		refs []envRef
		om   *oprofile.Profile
	)
	for _, p := range ps {
		for k := range p.envs {
			e := &p.envs[k]
			jobs = append(jobs, fwdback.EnvJob{Dsq: p.dsq[e.i-1 : e.j], TargetLen: p.om.L, Null2: !e.null2Done})
			refs = append(refs, envRef{p, k})
			om = &p.om
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	res, err := r.RescoreEnvelopes(om, jobs)
	if err != nil {
		return err
	}
	for x, ref := range refs {
		e, rr := ref.env(), &res[x]
		switch {
		case rr.Err != nil:
			e.err = rr.Err
		case rr.Dropped:
			e.ok = false
		default:
			e.dom.Trace = rr.Trace
			record(ref.p, e, rr.Score, rr.OASc, rr.Null2)
			e.ok = true
		}
	}
	return nil
}

// Finish returns a rescored target's result: its domains in envelope
// order, the overlaps between envelopes of a clustered region, and the
// first error in the order Define meets them.
func (d *Definer) Finish(p *Pending) (*Result, error) {
	res := p.res
	lastJ2, region := 0, 0
	for k := range p.envs {
		e := &p.envs[k]
		if e.err != nil {
			return nil, e.err
		}
		if e.region != region {
			lastJ2, region = 0, e.region
		}
		if e.region != 0 && e.i <= lastJ2 {
			res.NOverlaps++
		}
		if e.ok {
			res.Domains = append(res.Domains, e.dom)
			if e.region != 0 {
				lastJ2 = e.j
			}
		}
	}
	if p.err != nil {
		return nil, p.err
	}
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
	d.sampler.Reset(d.fwd)
	for t := 0; t < nSamples; t++ {
		d.sampler.Trace(d.rng, om, &d.tr)
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
