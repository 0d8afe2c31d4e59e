package domaindef

import (
	"io"
	"math"
	"math/rand"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/hugemem"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// defineSerial and rescoreSerial are domain definition as it was before
// Prepare/Rescore/Finish: each envelope rescored (Forward, Backward one
// target at a time) as soon as it is found. The tests hold the grouped
// steps to it.
func (d *Definer) defineSerial(dsq []byte, om *oprofile.Profile, oxf, oxb *fwdback.Matrix) (*Result, error) {
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
				if ok, err := d.rescoreSerial(res, dsq, om, c.i, c.j, true); err != nil {
					return nil, err
				} else if ok {
					lastJ2 = c.j
				}
			}
		} else {
			res.NEnvelopes++
			if _, err := d.rescoreSerial(res, dsq, om, i, j, false); err != nil {
				return nil, err
			}
		}
		i, triggered = -1, false
	}
	om.ReconfigMultihit(saveL)
	return res, nil
}

// rescoreSerial scores envelope i..j as an isolated domain.
func (d *Definer) rescoreSerial(res *Result, dsq []byte, om *oprofile.Profile, i, j int, null2Done bool) (bool, error) {
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

// sampleTargets draws n targets from the model's match emissions: one
// to three homologous stretches (so regions that hold several domains)
// between random linkers.
func sampleTargets(rng *rand.Rand, h *hmm.HMM, n int) [][]byte {
	K := h.Alph.K
	draw := func(p []float32) byte {
		u, acc := rng.Float32(), float32(0)
		for x := 0; x < K; x++ {
			acc += p[x]
			if u < acc {
				return byte(x)
			}
		}
		return byte(K - 1)
	}
	linker := func(dsq []byte, n int) []byte {
		for i := 0; i < n; i++ {
			dsq = append(dsq, byte(rng.Intn(K)))
		}
		return dsq
	}
	var out [][]byte
	for t := 0; t < n; t++ {
		dsq := linker(nil, rng.Intn(40))
		for c := 0; c <= t%3; c++ {
			from, to := 1+rng.Intn(1+h.M/5), h.M-rng.Intn(1+h.M/5)
			for k := from; k <= to; k++ {
				dsq = append(dsq, draw(h.Mat[k]))
			}
			dsq = linker(dsq, rng.Intn(3)*rng.Intn(30))
		}
		out = append(out, dsq)
	}
	return out
}

// dbTargets is every target of a testdata database in the model's
// alphabet.
func dbTargets(t *testing.T, om *oprofile.Profile) [][]byte {
	db := "synth.fa"
	if om.Abc.K == 4 {
		db = "synth_dna.fa"
	}
	var out [][]byte
	for _, name := range []string{db, "prot.fa"} {
		if om.Abc.K == 4 && name == "prot.fa" {
			continue
		}
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/"+name), nil, om.Abc)
		if err != nil {
			t.Fatal(err)
		}
		for {
			sq, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, sq.Dsq)
		}
		sr.Close()
	}
	return out
}

// sameResult compares two results, floats bit for bit.
func sameResult(a, b *Result) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	bits := func(x []float32) []uint32 {
		u := make([]uint32, len(x))
		for i, v := range x {
			u[i] = math.Float32bits(v)
		}
		return u
	}
	if !reflect.DeepEqual(bits(a.N2Sc), bits(b.N2Sc)) {
		return false
	}
	ac, bc := *a, *b
	ac.N2Sc, bc.N2Sc = nil, nil
	return reflect.DeepEqual(ac, bc)
}

// TestGroupsMatchSerial: Prepare on several targets, one Rescore for
// all, then Finish, against domain definition one envelope after
// another, on every testdata model with its databases and sampled
// multidomain homologs (the kernels of this machine: pairs with AVX2,
// quads with AVX-512, one by one otherwise). Every other group is
// rescored by RescoreOn with the CPU's EnvRescorer instead, as a GPU
// would rescore it, and every other by another Definer, which never
// prepared a target of this model (as the staged search's workers
// rescore a device's share when it fails).
func TestGroupsMatchSerial(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(paths) == 0 {
		t.Fatal("no testdata models")
	}
	rng := rand.New(rand.NewSource(1))
	var targets, clustered, domains, mapped, flushes, onRescorer, onOther int
	other := New(7, 0) // serves every model, amino and DNA
	for _, path := range paths {
		h := testmodels.ReadModel(t, path)
		om := oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)
		dsqs := append(dbTargets(t, om), sampleTargets(rng, h, 24)...)
		if testing.Short() {
			dsqs = dsqs[len(dsqs)-24:]
		}
		// The grouped side's matrices in huge pages (the pipeline's), the
		// serial side's on the heap.
		serial, grouped := New(42, 0), NewInHugePages(42, 0)
		oxf, oxb := fwdback.NewMatrix(), fwdback.NewMatrix()
		type job struct {
			p    *Pending
			want *Result
			werr error
		}
		var jobs []job
		flush := func() {
			ps := make([]*Pending, len(jobs))
			for k := range jobs {
				ps[k] = jobs[k].p
			}
			if flushes++; flushes%3 == 0 {
				if err := RescoreOn(fwdback.CPURescorer{}, ps); err != nil {
					t.Fatal(err)
				}
				onRescorer += len(ps)
			} else if flushes%3 == 1 {
				other.Rescore(ps)
				onOther += len(ps)
			} else {
				grouped.Rescore(ps)
			}
			for k, j := range jobs {
				got, err := grouped.Finish(j.p)
				if err != j.werr || !sameResult(got, j.want) {
					t.Fatalf("%s group target %d (L=%d): grouped %+v, %v; serial %+v, %v", filepath.Base(path), k, len(j.p.dsq), got, err, j.want, j.werr)
				}
				if got != nil {
					domains += len(got.Domains)
					if got.NClustered > 0 {
						clustered++
					}
				}
			}
			jobs = jobs[:0]
		}
		for n, dsq := range dsqs {
			om.ReconfigMultihit(len(dsq))
			if _, err := fwdback.Forward(dsq, om, oxf, false); err != nil {
				continue
			}
			if _, err := fwdback.Backward(dsq, om, oxf, oxb, false); err != nil {
				continue
			}
			want, werr := serial.defineSerial(dsq, om, oxf, oxb)
			jobs = append(jobs, job{p: grouped.Prepare(dsq, om, oxf, oxb), want: want, werr: werr})
			targets++
			if len(jobs) == 1+n%7 {
				flush()
			}
		}
		flush()
		if hugemem.MappedBytes() > 0 {
			mapped++
		}
		grouped.Release() // the next model's groups allocate again
	}
	t.Logf("%d targets (%d through RescoreOn, %d by another Definer), %d with clustered regions, %d domains; %d models' matrices reached huge pages", targets, onRescorer, onOther, clustered, domains, mapped)
	if mapped == 0 && runtime.GOOS == "linux" {
		t.Error("no model's matrices reached huge pages: the test covers only heap matrices")
	}
	if clustered == 0 {
		t.Fatal("no target had a clustered region")
	}
}
