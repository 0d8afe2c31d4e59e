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
// numbers and counters as the per-target Search, also on one shard of
// the database searched under its global indices.
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
			got, gst, err := pipeline.SearchStaged(m, targets, idx, &cfg, pipeline.CPUAccelerator{Seqs: targets})
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
			if a.String() != b.String() {
				t.Errorf("%s %s: staged search differs", model, opt)
				compareLines(t, b.String(), a.String())
			}
		}
	}
}
