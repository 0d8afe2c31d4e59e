package fwdback

import (
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestNull2ByTraceLevels: null2 from sampled traces (what the stochastic
// traceback ensemble computes for every sampled domain) is the same at
// every level, bit for bit, on every testdata model (amino acids: two
// ten-residue groups of the avx2 kernel; nucleotides: one padded group)
// and on workspaces left dirty by an earlier call.
func TestNull2ByTraceLevels(t *testing.T) {
	forEachModelForward(t, 4, func(path string, om *oprofile.Profile, sq *seqio.Sequence, fwd *Matrix, n int) {
		rng := easel.NewRandom(uint32(42 + n))
		var tr hits.Trace
		wrk := map[simd.Level]*Matrix{}
		for s := 0; s < 6; s++ {
			StochasticTrace(rng, om, fwd, &tr)
			for d, td := range IndexTrace(&tr) {
				var want []float32
				for _, l := range simd.Available() {
					if wrk[l] == nil {
						wrk[l] = NewMatrix()
					}
					got := make([]float32, om.Abc.Kp)
					withLevel(l, func() { Null2ByTrace(om, &tr, td.TFrom, td.TTo, wrk[l], got) })
					if want == nil {
						want = got
						continue
					}
					for x := range got {
						if math.Float32bits(got[x]) != math.Float32bits(want[x]) {
							t.Fatalf("%s vs %s, sample %d domain %d: %s null2[%d] = %v, generic %v",
								filepath.Base(path), sq.Name, s, d, l, x, got[x], want[x])
						}
					}
				}
			}
		}
	})
}

// forEachModelForward calls fn with the multihit Forward matrix of each
// of the first n targets of every testdata model's database (prot.fa, or
// synth_dna.fa for DNA models), skipping targets Forward refuses.
func forEachModelForward(t *testing.T, n int, fn func(path string, om *oprofile.Profile, sq *seqio.Sequence, fwd *Matrix, i int)) {
	t.Helper()
	models, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(models) == 0 {
		t.Fatal("no testdata models")
	}
	for _, path := range models {
		om := loadModel(t, path)
		db := "prot.fa"
		if om.Abc.K == 4 {
			db = "synth_dna.fa"
		}
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/"+db), nil, om.Abc)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			sq, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			om.ReconfigMultihit(sq.L())
			fwd := NewMatrix()
			if _, err := Forward(sq.Dsq, om, fwd, true); err != nil {
				continue
			}
			fn(path, om, sq, fwd, i)
		}
		sr.Close()
	}
}
