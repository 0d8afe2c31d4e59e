package fwdback

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// BenchmarkParsers reports GCUPS (nodes x residues per second, one core)
// of the Forward parser and of Forward+Backward parsers, as the pipeline
// runs them, per model and kernel on random targets of 350 residues.
func BenchmarkParsers(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	seqs := make([][]byte, 16)
	for i := range seqs {
		seqs[i] = make([]byte, 350)
		for j := range seqs[i] {
			seqs[i][j] = byte(rng.Intn(20))
		}
	}
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		om := loadModel(b, filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz"))
		om.ReconfigLength(350)
		fwd, bck := NewMatrix(), NewMatrix()
		for _, l := range simd.Available()[:min(2, len(simd.Available()))] { // avx2 runs the same SSE rows
			b.Run(name+"/fwd/"+l.String(), func(b *testing.B) {
				withLevel(l, func() {
					cells := 0
					for i := 0; i < b.N; i++ {
						s := seqs[i%len(seqs)]
						if _, err := Forward(s, om, fwd, false); err != nil {
							b.Fatal(err)
						}
						cells += len(s) * om.M
					}
					b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
				})
			})
			b.Run(name+"/fwdbck/"+l.String(), func(b *testing.B) {
				withLevel(l, func() {
					cells := 0
					for i := 0; i < b.N; i++ {
						s := seqs[i%len(seqs)]
						if _, err := Forward(s, om, fwd, false); err != nil {
							b.Fatal(err)
						}
						if _, err := Backward(s, om, fwd, bck, false); err != nil {
							b.Fatal(err)
						}
						cells += len(s) * om.M
					}
					b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
				})
			})
		}
	}
}
