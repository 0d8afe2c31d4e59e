package vitfilter

import (
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// loadModel configures a testdata model as hmmsearch does (local
// multihit, L=100).
func loadModel(tb testing.TB, name string) *oprofile.Profile {
	tb.Helper()
	r, err := hmm.OpenFile(filepath.Join(testutil.Testdata(tb, "hmmer3/models"), name+".hmm.gz"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		tb.Fatal(err)
	}
	return oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)
}

// TestRealModels runs every testdata model against its test database
// (testdata/hmmer3/prot.fa or synth_dna.fa, homologs included) on every
// kernel, each target with the length configuration hmmsearch gives it.
func TestRealModels(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(models) == 0 {
		t.Fatal("no testdata models")
	}
	for _, path := range models {
		name := filepath.Base(path)
		name = name[:len(name)-len(".hmm.gz")]
		om := loadModel(t, name)
		db := "prot.fa"
		if om.Abc.K == 4 {
			db = "synth_dna.fa"
		}
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/"+db), nil, om.Abc)
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
			om.ReconfigLength(sq.L())
			for _, l := range simd.Available() {
				// A converted profile must reach the vector kernels, not
				// fall back to the generic path for want of tables.
				if _, ok := vectorScore(l, sq.Dsq, &om.Vit, &om.Vit.XW); ok != (l > simd.Generic && runtime.GOARCH == "amd64") {
					t.Fatalf("%s: %s kernel taken: %v", name, l, ok)
				}
			}
			want := RefScore(sq.Dsq, &om.Vit)
			for _, l := range simd.Available() {
				if got := scoreWith(l, sq.Dsq, &om.Vit); !same(got, want) {
					t.Errorf("%s vs %s: %s kernel %v, reference %v", name, sq.Name, l, got, want)
				}
			}
		}
		sr.Close()
	}
}
