package msvfilter

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// loadModel configures a testdata model as hmmsearch does (local
// multihit, L=100), with the bias filter's background.
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
	bg := profile.NewBackground(h.Alph)
	return oprofile.Convert(profile.Config(h, bg, 100), h)
}

// randomTargets draws n sequences of length L, residues uniform over the
// K canonical codes: for a filter, mostly non-homologous targets.
func randomTargets(n, L, K int, seed int64) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	seqs := make([][]byte, n)
	for i := range seqs {
		seqs[i] = make([]byte, L)
		for j := range seqs[i] {
			seqs[i][j] = byte(rng.Intn(K))
		}
	}
	return seqs
}

// BenchmarkFilter reports GCUPS (model nodes x residues per second, one
// core) of Score, which is SSV for almost every random target, and of the
// full MSV program, per model and kernel.
func BenchmarkFilter(b *testing.B) {
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		om := loadModel(b, name)
		seqs := randomTargets(64, 350, 20, 1)
		om.ReconfigLength(350)
		for _, l := range simd.Available() {
			b.Run(name+"/ssv/"+l.String(), func(b *testing.B) {
				cells := 0
				for i := 0; i < b.N; i++ {
					s := seqs[i%len(seqs)]
					scoreWith(l, s, &om.MSV)
					cells += len(s) * om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
			})
			b.Run(name+"/msv/"+l.String(), func(b *testing.B) {
				cells := 0
				for i := 0; i < b.N; i++ {
					s := seqs[i%len(seqs)]
					if l == simd.Generic {
						kn := kernels.Get().(*kernel)
						swarMSV(kn, s, &om.MSV)
						kernels.Put(kn)
					} else {
						msvVector(l, s, &om.MSV, stripesFor(l, &om.MSV))
					}
					cells += len(s) * om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
			})
		}
	}
}
