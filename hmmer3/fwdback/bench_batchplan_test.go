package fwdback

import (
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// BenchmarkBatchPlan is the host side of a ForwardBatch in the 1,000-model
// run's regime: 24 queries (M = 100..400) of ~480 survivors each from a
// resident database of 485,000 targets, named by Index or by Want. Plan
// is newBatchPlan (profiles, packing); assemble turns made-up kernel
// outputs into scores.
func BenchmarkBatchPlan(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	amino := alphabet.New(alphabet.Amino)
	const dbSize, jobs, perJob = 485_000, 24, 480
	pool := make([][]byte, 4096) // the database's targets share residues: only lengths matter here
	for i := range pool {
		pool[i] = testmodels.RandomDsq(rng, amino, 50+rng.Intn(700))
	}
	db := make([][]byte, dbSize)
	for i := range db {
		db[i] = pool[rng.Intn(len(pool))]
	}
	var byIndex, byWant []BatchJob
	for j := 0; j < jobs; j++ {
		om := optimizedProfile(testmodels.RandomHMM(rng, amino, 100+rng.Intn(300)))
		want := make([]bool, dbSize)
		var index []int
		for len(index) < perJob {
			if i := rng.Intn(dbSize); !want[i] {
				want[i] = true
				index = append(index, i)
			}
		}
		byWant = append(byWant, BatchJob{OM: om, Targets: db, Want: want})
		byIndex = append(byIndex, asIndex(byWant[j]))
	}
	for _, v := range []struct {
		name string
		jobs []BatchJob
	}{{"index", byIndex}, {"want", byWant}} {
		b.Run(v.name+"/plan", func(b *testing.B) {
			for b.Loop() {
				if _, err := newBatchPlan(v.jobs); err != nil {
					b.Fatal(err)
				}
			}
		})
		bp, err := newBatchPlan(v.jobs)
		if err != nil {
			b.Fatal(err)
		}
		outC := make([]float32, len(bp.dsqs))
		for i := range outC {
			outC[i] = 1
		}
		b.Run(v.name+"/assemble", func(b *testing.B) {
			for b.Loop() {
				if _, err := bp.assemble(outC, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
