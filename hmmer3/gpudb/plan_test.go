package gpudb

import (
	"math"
	"math/rand"
	"testing"
)

// lognormalEntries is n whole-target entries of protein-like lengths.
func lognormalEntries(n int) []entry {
	rng := rand.New(rand.NewSource(1))
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{i, 0, int(math.Exp(rng.NormFloat64()*0.6+5.6)) + 1}
	}
	return es
}

// BenchmarkPlanLayout plans one layout of a 485,000-target database (the
// 175M-residue benchmark's size): a run plans one per kernel shape.
func BenchmarkPlanLayout(b *testing.B) {
	es := lognormalEntries(485000)
	for b.Loop() {
		planLayout(es, 4)
	}
}
