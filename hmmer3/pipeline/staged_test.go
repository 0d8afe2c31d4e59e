package pipeline_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestStagedEqualsSearch: the stage-by-stage search (the GPU path's
// structure, here with every stage on the CPU) gives the same hits,
// numbers and counters as the per-target Search, also on one shard of
// the database searched under its global indices.
func TestStagedEqualsSearch(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	for _, model := range []string{"fn3", "globins4", "Pkinase", "Caudal_act", "MADE1"} {
		h := testmodels.ReadModel(t, filepath.Join(dir, "models", model+".hmm.gz"))
		db := "prot.fa"
		if h.Alph.K == 4 {
			db = "synth_dna.fa"
		}
		seqs := testmodels.ReadSequences(t, filepath.Join(dir, db), h.Alph)
		var part []*seqio.Sequence
		var indices []int64
		for i := 1; i < len(seqs); i += 3 {
			part = append(part, seqs[i])
			indices = append(indices, int64(i))
		}
		for _, opt := range []string{"default", "nobias", "max", "nonull2", "shard"} {
			cfg := pipeline.DefaultConfig()
			cfg.CPUs = 2
			cfg.NoBias, cfg.Max, cfg.NoNull2 = opt == "nobias", opt == "max", opt == "nonull2"
			m, err := pipeline.NewModel(h, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			var src pipeline.SequenceSource = &pipeline.SliceSource{Seqs: seqs}
			targets, idx := seqs, []int64(nil)
			if opt == "shard" {
				src = &pipeline.IndexedSlice{Seqs: part, Indices: indices}
				targets, idx = part, indices
			}
			want, wst, err := pipeline.Search(m, src, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			var a strings.Builder
			for _, x := range want {
				fmt.Fprintf(&a, "#%d %s", x.SeqIdx, fmtHit(x))
			}
			fmt.Fprintf(&a, "%+v", *wst)
			cpu := pipeline.CPUAccelerator{Seqs: targets}
			bulk := &bulkBias{CPUAccelerator: cpu}
			recycler := &recycling{bulkBias: bulkBias{CPUAccelerator: cpu}}
			accs := []pipeline.Accelerator{cpu, exactForward{cpu}, scoresOnly{exactForward{cpu}}, bulk, cpuBias{cpu}, partialForward{scoresOnly{exactForward{cpu}}}, recycler, recycler}
			devices := []*onDevice{
				{Accelerator: cpu, fraction: 0},
				{Accelerator: exactForward{cpu}, fraction: 0},
				{Accelerator: cpu, fraction: 0.5},
				{Accelerator: cpu, fraction: 1},
				{Accelerator: exactForward{cpu}, fraction: 0.3},
				{Accelerator: cpu, fraction: 0, fail: true},
				{Accelerator: cpu, fraction: 0.5, fail: true},
			}
			for _, d := range devices {
				accs = append(accs, d)
			}
			for _, b := range []boundedForward{{margin: 20, shift: -1}, {margin: 20, shift: 1}, {margin: 0.01, shift: -1}, {margin: 0.5}, {margin: 0.5, infOdd: true}} {
				b.exactForward = exactForward{cpu}
				accs = append(accs, b)
			}
			accs = append(accs, listsAbove{CPUAccelerator: cpu}, listsAbove{CPUAccelerator: cpu, extra: 5}, listsAbove{CPUAccelerator: cpu, none: true})
			for _, acc := range accs {
				bulk.asked = -1
				got, gst, err := pipeline.SearchStaged(m, targets, idx, &cfg, acc)
				if err != nil {
					t.Fatal(err)
				}
				if acc == pipeline.Accelerator(bulk) {
					// Asked for exactly the MSV survivors, and only when
					// the bias filter is on.
					if wantAsked := int(gst.NPastMSV); opt == "nobias" || opt == "max" {
						if bulk.asked != -1 {
							t.Errorf("%s %s: bias accelerator called with the filter off", model, opt)
						}
					} else if bulk.asked != wantAsked {
						t.Errorf("%s %s: bias accelerator asked for %d targets, %d passed MSV", model, opt, bulk.asked, wantAsked)
					}
				}
				if d, ok := acc.(*onDevice); ok {
					domains := 0
					for _, x := range got {
						domains += len(x.Domains)
					}
					d.check(t, model+" "+opt, domains)
				}
				if acc == pipeline.Accelerator(recycler) && len(recycler.free) < 2 {
					t.Errorf("%s %s: %d score slices given back, want MSV's and Viterbi's at least", model, opt, len(recycler.free))
				}
				var b strings.Builder
				for _, x := range got {
					fmt.Fprintf(&b, "#%d %s", x.SeqIdx, fmtHit(x))
				}
				fmt.Fprintf(&b, "%+v", *gst)
				if a.String() != b.String() {
					t.Errorf("%s %s, %T: staged search differs", model, opt, acc)
					compareLines(t, b.String(), a.String())
				}
			}
		}
	}
}

// listsAbove lists the targets whose MSV score is at least least(L)
// (pipeline.MSVCandidates), and every extra-th other target too; with
// none it makes no list.
type listsAbove struct {
	pipeline.CPUAccelerator
	extra int
	none  bool
}

func (l listsAbove) MSVAbove(om *oprofile.Profile, least func(L int) float32) ([]float32, []int, error) {
	sc, err := l.MSV(om)
	if err != nil || l.none {
		return sc, nil, err
	}
	above := []int{}
	for i, s := range sc {
		if s >= least(len(l.Seqs[i].Dsq)) || (l.extra > 0 && i%l.extra == 0) {
			above = append(above, i)
		}
	}
	return sc, above, nil
}

// onDevice rescores domain definition's envelopes as a GPU does, in
// one call a query (pipeline.EnvelopeAccelerator), here with the CPU's
// rescorer, the cores taking their share; with fail every call fails and
// the workers must take over. It counts the envelopes it was asked for.
type onDevice struct {
	pipeline.Accelerator
	fraction float64 // the cores' share of the cells
	fail     bool
	asked    int
	share    *pipeline.EnvelopeShare
}

func (o *onDevice) EnvelopeShare() *pipeline.EnvelopeShare {
	if o.share == nil {
		o.share = pipeline.NewEnvelopeShare(o.fraction)
	}
	return o.share
}

func (o *onDevice) RescoreEnvelopes(om *oprofile.Profile, jobs []fwdback.EnvJob) ([]fwdback.EnvResult, error) {
	o.asked += len(jobs)
	if o.fail {
		return nil, errors.New("device lost")
	}
	return fwdback.CPURescorer{}.RescoreEnvelopes(om, jobs)
}

// check says whether the device was asked for the envelopes its share
// gives it, after a search that found domains: all of them (at least one
// for each domain) with a share of 0, none with a share of 1, and its
// count starts again.
func (o *onDevice) check(t *testing.T, what string, domains int) {
	t.Helper()
	switch f := o.fraction; {
	case f == 0 && o.asked < domains:
		t.Errorf("%s: device asked for %d envelopes with a share of 0, but %d domains were found", what, o.asked, domains)
	case f == 1 && o.asked != 0:
		t.Errorf("%s: device asked for %d envelopes with a share of 1", what, o.asked)
	}
	o.asked = 0
}

// boundedForward gives Forward scores as a bound kernel does: each within
// margin nats of the exact one, here moved by 0.9 margin down (shift -1),
// up (+1) or alternately (0); with infOdd the targets of odd length have
// no bound. A staged search that trusted the scores, or decided on them
// without the margin, would lose or misreport hits: with a margin of 20
// nats every hit's score is moved by 18.
type boundedForward struct {
	exactForward
	margin float32
	shift  int
	infOdd bool
}

func (b boundedForward) Forward(om *oprofile.Profile, want []bool) (pipeline.ForwardResult, error) {
	res, err := b.exactForward.Forward(om, want)
	n := 0
	for i, w := range want {
		if !w {
			continue
		}
		d := float32(b.shift)
		if b.shift == 0 && n%2 == 1 {
			d = -1
		} else if b.shift == 0 {
			d = 1
		}
		res.Scores[i] += d * 0.9 * b.margin
		n++
	}
	res.Margin = func(L int, sc float32) float32 {
		if b.infOdd && L%2 == 1 {
			return float32(math.Inf(1))
		}
		return b.margin
	}
	return res, err
}

// exactForward computes the Forward filter's exact scores and the
// survivors' parsers itself, as a GPU does for large batches (where
// CPUAccelerator leaves both to the workers, as a GPU does for small
// ones), each with fwdback's kernels on the target alone.
type exactForward struct{ pipeline.CPUAccelerator }

// each runs fn on every wanted non-empty target, om configured for its
// length.
func (e exactForward) each(om *oprofile.Profile, want []bool, fn func(p *oprofile.Profile, i int)) {
	p := *om
	for i, sq := range e.Seqs {
		if want[i] && sq.L() > 0 {
			p.ReconfigLength(sq.L())
			fn(&p, i)
		}
	}
}

func (e exactForward) Forward(om *oprofile.Profile, want []bool) (pipeline.ForwardResult, error) {
	out := make([]float32, len(e.Seqs))
	var errs []error
	e.each(om, want, func(p *oprofile.Profile, i int) {
		var err error
		out[i], err = fwdback.Forward(e.Seqs[i].Dsq, p, fwdback.NewMatrix(), false)
		errs = append(errs, err)
	})
	return pipeline.ForwardResult{Scores: out}, errors.Join(errs...)
}

func (e exactForward) Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error) {
	out := make([]fwdback.Parser, len(e.Seqs))
	e.each(om, want, func(p *oprofile.Profile, i int) {
		r := fwdback.Parser{Fwd: fwdback.NewMatrix(), Bck: fwdback.NewMatrix()}
		r.FwdScore, r.Err = fwdback.Forward(e.Seqs[i].Dsq, p, r.Fwd, false)
		if r.Err == nil {
			r.BckScore, r.Err = fwdback.Backward(e.Seqs[i].Dsq, p, r.Fwd, r.Bck, false)
		}
		out[i] = r
	})
	return out, nil
}

// scoresOnly gives exact Forward scores but no parsers: the workers run
// the survivors' Forward again for its rows, then Backward.
type scoresOnly struct{ exactForward }

func (scoresOnly) Parsers(*oprofile.Profile, []bool) ([]fwdback.Parser, error) { return nil, nil }

// bulkBias computes the bias filter in one call, as a GPU does, here with
// FilterScore on a copy of the background; asked counts the targets.
type bulkBias struct {
	pipeline.CPUAccelerator
	asked int
}

func (b *bulkBias) Bias(bg *profile.Background, want []bool) ([]float32, error) {
	out := make([]float32, len(b.Seqs))
	b.asked = 0
	f := *bg
	for i, w := range want {
		if w {
			b.asked++
			f.SetLength(b.Seqs[i].L())
			out[i] = f.FilterScore(b.Seqs[i].Dsq)
		}
	}
	return out, nil
}

// recycling hands out score slices taken back through Recycle (as the
// GPU search does) with NaN wherever it computed no score: the staged
// search must read only the scores it asked for, and give every slice
// back once.
type recycling struct {
	bulkBias
	free [][]float32
}

func (r *recycling) Recycle(sc []float32) { r.free = append(r.free, sc) }

// Lengths gives the staged search the targets' lengths, as the GPU
// search does.
func (r *recycling) Lengths() []int32 {
	out := make([]int32, len(r.Seqs))
	for i, sq := range r.Seqs {
		out[i] = int32(sq.L())
	}
	return out
}

// reuse copies the wanted scores into a recycled slice poisoned elsewhere.
func (r *recycling) reuse(sc []float32, want []bool) []float32 {
	if len(r.free) == 0 {
		return sc
	}
	out := r.free[len(r.free)-1]
	r.free = r.free[:len(r.free)-1]
	for i := range out {
		out[i] = float32(math.NaN())
		if want == nil || want[i] {
			out[i] = sc[i]
		}
	}
	return out
}

func (r *recycling) MSV(om *oprofile.Profile) ([]float32, error) {
	sc, err := r.CPUAccelerator.MSV(om)
	return r.reuse(sc, nil), err
}

func (r *recycling) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	sc, err := r.CPUAccelerator.Viterbi(om, want)
	return r.reuse(sc, want), err
}

func (r *recycling) Bias(bg *profile.Background, want []bool) ([]float32, error) {
	sc, err := r.bulkBias.Bias(bg, want)
	return r.reuse(sc, want), err
}

// cpuBias declines the bias filter: the workers compute it after all.
type cpuBias struct{ pipeline.CPUAccelerator }

func (cpuBias) Bias(*profile.Background, []bool) ([]float32, error) { return nil, nil }

// partialForward computes Forward for every other wanted target and
// leaves the rest to the workers (as the GPU leaves the longest targets),
// with NaN in their place, which must never reach a result.
type partialForward struct{ scoresOnly }

func (p partialForward) Forward(om *oprofile.Profile, want []bool) (pipeline.ForwardResult, error) {
	res, err := p.scoresOnly.Forward(om, want)
	scores := res.Scores
	computed := make([]bool, len(want))
	n := 0
	for i, w := range want {
		if w {
			computed[i] = n%2 == 0
			n++
		}
		if !computed[i] {
			scores[i] = float32(math.NaN())
		}
	}
	return pipeline.ForwardResult{Scores: scores, Computed: computed}, err
}

// With TimeStages the staged search reports each stage's wall time.
func TestStagedTimesStages(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	h := testmodels.ReadModel(t, filepath.Join(dir, "models", "fn3.hmm.gz"))
	seqs := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), h.Alph)
	cfg := pipeline.DefaultConfig()
	cfg.TimeStages = true
	m, err := pipeline.NewModel(h, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	cpu := pipeline.CPUAccelerator{Seqs: seqs}
	for _, acc := range []pipeline.Accelerator{cpu, exactForward{cpu}, &bulkBias{CPUAccelerator: cpu}} {
		list, st, err := pipeline.SearchStaged(m, seqs, nil, &cfg, acc)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			t.Fatal("fn3 found nothing in prot.fa; the test needs a hit to time domain definition")
		}
		for i, d := range st.StageTime {
			if d <= 0 {
				t.Errorf("%T: stage %s: no time recorded", acc, hits.StageNames[i])
			}
		}
	}
}

// TestSearchAcrossBatches: on a database of several batches (BatchResidues
// each), Search, whose workers carry Viterbi survivors from batch to batch
// until they have enough for full Forward groups, gives the staged
// search's hits and counters; with --max every target survives and the
// workers run the Forward filter in the middle of a batch too.
func TestSearchAcrossBatches(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	h := testmodels.ReadModel(t, filepath.Join(dir, "models", "fn3.hmm.gz"))
	one := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), h.Alph)
	var seqs []*seqio.Sequence
	for res := 0; res < 3*pipeline.BatchResidues; {
		for _, sq := range one {
			seqs = append(seqs, sq)
			res += sq.L()
		}
	}
	for _, max := range []bool{false, true} {
		cfg := pipeline.DefaultConfig()
		cfg.CPUs, cfg.Max = 3, max
		m, err := pipeline.NewModel(h, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, wst, err := pipeline.SearchStaged(m, seqs, nil, &cfg, pipeline.CPUAccelerator{Seqs: seqs})
		if err != nil {
			t.Fatal(err)
		}
		got, gst, err := pipeline.Search(m, &pipeline.SliceSource{Seqs: seqs}, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		var a, b strings.Builder
		for _, x := range want {
			fmt.Fprintf(&a, "#%d %s", x.SeqIdx, fmtHit(x))
		}
		for _, x := range got {
			fmt.Fprintf(&b, "#%d %s", x.SeqIdx, fmtHit(x))
		}
		fmt.Fprintf(&a, "%+v", *wst)
		fmt.Fprintf(&b, "%+v", *gst)
		if len(want) == 0 || gst.NPastVit < 40 {
			t.Fatalf("max=%v: %d hits, %d Viterbi survivors: too few to test", max, len(want), gst.NPastVit)
		}
		if a.String() != b.String() {
			t.Errorf("max=%v: Search differs from the staged search", max)
			compareLines(t, b.String(), a.String())
		}
	}
}
