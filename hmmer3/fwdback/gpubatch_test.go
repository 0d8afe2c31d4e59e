package fwdback_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// ForwardBatch on a GPU: many queries of different sizes (every placement
// of the row state: Qmax from 1 to past the shared-memory limit) and
// alphabets in one launch, each job with its own selection of targets,
// bit for bit with Forward.
func TestGPUBatchMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := fwdback.NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	rng := rand.New(rand.NewSource(41))
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	for _, L := range []int{0, 1, 2, 3, 5, 1000, 6000} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	// {400, 20, 150}: a Qmax whose row state leaves a block fewer warps
	// than the chunked walk is compiled for (chooseMultiShape).
	for _, Ms := range [][]int{{1, 7, 40, 100, 130}, {33, 250, 64, 3}, {900, 12, 2000}, {400, 20, 150}} {
		var jobs []fwdback.BatchJob
		for k, M := range Ms {
			h := testmodels.RandomHMM(rng, amino, M)
			if k == 1 {
				h = deletionHeavy(h)
			}
			dsqs := append([][]byte(nil), prot...)
			for r := 0; r < 20; r++ {
				dsqs = append(dsqs, homologOf(rng, h, 1+rng.Intn(3)))
			}
			want := make([]bool, len(dsqs))
			for i := range want {
				want[i] = rng.Intn(4) > 0
			}
			jobs = append(jobs, fwdback.BatchJob{OM: optimized(h), Targets: dsqs, Want: want})
		}
		for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
			if h.Alph.Type == alphabet.DNA {
				jobs = append(jobs, fwdback.BatchJob{OM: optimized(h), Targets: nuc})
			}
		}
		// Every other job names its targets by Index (as hmmsearch does);
		// its results are spread back to the Want numbering to compare.
		sent := append([]fwdback.BatchJob(nil), jobs...)
		for j := 1; j < len(sent); j += 2 {
			sent[j] = fwdback.AsIndex(sent[j])
		}
		got, err := g.ForwardBatch(sent)
		if err != nil {
			t.Fatalf("Ms %v: %v", Ms, err)
		}
		for j, job := range jobs {
			if idx := sent[j].Index; idx != nil {
				full := fwdback.BatchResult{Scores: make([]float32, len(job.Targets)), Errs: make([]error, len(job.Targets))}
				for k, i := range idx {
					full.Scores[i], full.Errs[i] = got[j].Scores[k], got[j].Errs[k]
				}
				got[j] = full
			}
			ref, refErr := reference(job.OM, job.Targets, nil)
			same(t, fmt.Sprintf("batch %v job %d (M=%d, %s)", Ms, j, job.OM.M, g.LastShape), job.Targets, job.Want, got[j].Scores, got[j].Errs, ref, refErr)
		}
	}
}
