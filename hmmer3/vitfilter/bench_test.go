package vitfilter

import (
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// BenchmarkFilter reports GCUPS (model nodes x residues per second, one
// core) per model and kernel on random targets of 350 residues.
func BenchmarkFilter(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	seqs := make([][]byte, 64)
	for i := range seqs {
		seqs[i] = randomSeq(rng, 350, 20)
	}
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		om := loadModel(b, name)
		om.ReconfigLength(350)
		for _, l := range simd.Available() {
			b.Run(name+"/"+l.String(), func(b *testing.B) {
				cells := 0
				for i := 0; i < b.N; i++ {
					s := seqs[i%len(seqs)]
					scoreWith(l, s, &om.Vit)
					cells += len(s) * om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
			})
		}
	}
}

// BenchmarkBatch reports GCUPS of ScoreBatch (the paired kernel where it
// applies) against the one-target AVX2 kernel, on the same targets as
// BenchmarkFilter, 16 jobs per call.
func BenchmarkBatch(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	seqs := make([][]byte, 64)
	for i := range seqs {
		seqs[i] = randomSeq(rng, 350, 20)
	}
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		om := loadModel(b, name)
		om.ReconfigLength(350)
		jobs := make([]Job, len(seqs))
		for i := range jobs {
			jobs[i] = Job{Dsq: seqs[i], XW: om.Vit.XW}
		}
		out := make([]float32, 16)
		for _, l := range simd.Available() {
			if l == simd.Generic {
				continue
			}
			b.Run(name+"/"+l.String(), func(b *testing.B) {
				defer func(m int) { pairMaxM = m }(pairMaxM)
				pairMaxM = 1 << 30
				cells := 0
				for i := 0; i < b.N; i++ {
					j := jobs[(i*16)%len(jobs):][:16]
					scoreBatch(l, &om.Vit, j, out)
					cells += 16 * 350 * om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
			})
		}
	}
}
