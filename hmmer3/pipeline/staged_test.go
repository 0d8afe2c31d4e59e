package pipeline_test

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestStagedEqualsSearch: the stage-by-stage search (the GPU path's
// structure, here with every stage on the CPU) gives the same hits,
// numbers and counters as the per-target Search.
func TestStagedEqualsSearch(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	for _, model := range []string{"fn3", "globins4", "Pkinase", "Caudal_act", "MADE1"} {
		h := readModel(t, filepath.Join(dir, "models", model+".hmm.gz"))
		db := "prot.fa"
		if h.Alph.K == 4 {
			db = "synth_dna.fa"
		}
		r, err := seqio.Open(filepath.Join(dir, db), nil, h.Alph)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []*seqio.Sequence
		for {
			sq, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, sq)
		}
		r.Close()
		for _, opt := range []string{"default", "nobias", "max", "nonull2"} {
			cfg := pipeline.DefaultConfig()
			cfg.CPUs = 2
			cfg.NoBias, cfg.Max, cfg.NoNull2 = opt == "nobias", opt == "max", opt == "nonull2"
			m, err := pipeline.NewModel(h, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, wst, err := pipeline.Search(m, &pipeline.SliceSource{Seqs: seqs}, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, gst, err := pipeline.SearchStaged(m, seqs, &cfg, pipeline.CPUAccelerator{Seqs: seqs})
			if err != nil {
				t.Fatal(err)
			}
			var a, b strings.Builder
			for _, x := range want {
				a.WriteString(fmtHit(x))
			}
			for _, x := range got {
				b.WriteString(fmtHit(x))
			}
			fmt.Fprintf(&a, "%+v", *wst)
			fmt.Fprintf(&b, "%+v", *gst)
			if a.String() != b.String() {
				t.Errorf("%s %s: staged search differs", model, opt)
				compareLines(t, b.String(), a.String())
			}
		}
	}
}
