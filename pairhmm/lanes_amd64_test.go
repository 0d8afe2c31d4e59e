//go:build amd64

package pairhmm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkAVX2Kernels compares one batch of eight reads at a time with
// two batches interleaved (16 reads of 150 bases against 300 bases).
func BenchmarkAVX2Kernels(b *testing.B) {
	if !haveAVX2 {
		b.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	hap := synthHap(rng, 300)
	codes, _ := encodeBases(nil, hap)
	var pr [16]preparedRead
	for i := range pr {
		r := synthRead(rng, hap, 150, 20, 40, true)
		pr[i].prepare(&r)
	}
	var ba, bb laneBatch
	ba.load(pr[:8])
	bb.load(pr[8:])
	var oa, ob [8]float32
	cells := 16 * 150 * 300.0
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			runAVX2(&ba, codes, &oa)
			runAVX2(&bb, codes, &ob)
		}
		b.ReportMetric(cells*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
	})
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			runAVX2Pair(&ba, &bb, codes, &oa, &ob)
		}
		b.ReportMetric(cells*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
	})
}
