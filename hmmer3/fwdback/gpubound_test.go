package fwdback_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// boundMix is n targets for model h: protein-like lengths, homologs
// (rescaled rows), one-residue and low-complexity runs, a few long ones.
func boundMix(rng *rand.Rand, h *hmm.HMM, n int) [][]byte {
	abc := h.Alph
	var ds [][]byte
	for len(ds) < n {
		L := testmodels.ProteinLength(rng)
		switch r := rng.Intn(20); {
		case r == 0:
			ds = append(ds, homologOf(rng, h, 1+rng.Intn(3)))
		case r == 1:
			ds = append(ds, make([]byte, L))
		case r == 2:
			motif := testmodels.RandomDsq(rng, abc, 1+rng.Intn(4))
			d := make([]byte, L)
			for i := range d {
				d[i] = motif[i%len(motif)]
			}
			ds = append(ds, d)
		case r == 3:
			ds = append(ds, testmodels.RandomDsq(rng, abc, 1+rng.Intn(5000)))
		default:
			ds = append(ds, testmodels.RandomDsq(rng, abc, L))
		}
	}
	return ds
}

// TestGPUBoundWithinMargin: ForwardBoundBatch on a GPU against Forward on
// the CPU, ~20,000 targets over the 24 CUDAMPF query models (when the
// shared data is present) and random models, 8 queries a launch: every
// score within BoundMargin.
func TestGPUBoundWithinMargin(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := fwdback.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(43))
	var models []*hmm.HMM
	if d := os.Getenv("HMMGO_GPU_DATA"); d != "" {
		if p := filepath.Join(d, "CUDAMPF", "query_models"); dirExists(p) {
			models = testmodels.ReadModels(t, filepath.Join(p, "*.hmm.gz"))
		}
	}
	if len(models) == 0 {
		t.Log("CUDAMPF models not present: random models only")
	}
	for _, M := range []int{1, 5, 33, 150, 400, 1000} {
		models = append(models, testmodels.RandomHMM(rng, amino, M))
	}
	models = append(models, deletionHeavy(testmodels.RandomHMM(rng, amino, 300)))
	n, worst, over, errs, cells := 0, 0.0, 0, 0, int64(0)
	var worstWhat string
	for lo := 0; lo < len(models); lo += 8 {
		var jobs []fwdback.BatchJob
		for _, h := range models[lo:min(lo+8, len(models))] {
			jobs = append(jobs, fwdback.BatchJob{OM: optimized(h), Targets: boundMix(rng, h, 650)})
		}
		for j, ok := range fwdback.BoundOnGPU(jobs) {
			if !ok {
				t.Errorf("job M=%d left to the CPU", jobs[j].OM.M)
			}
		}
		cells += fwdback.BoundCells(jobs)
		got, err := g.ForwardBoundBatch(jobs)
		if err != nil {
			t.Fatal(err)
		}
		for j, job := range jobs {
			ref, refErr := reference(job.OM, job.Targets, nil)
			for i, d := range job.Targets {
				n++
				if got[j].Errs[i] != nil || refErr[i] != nil {
					errs++
					if (got[j].Errs[i] == nil) != (refErr[i] == nil) {
						t.Errorf("M=%d target %d (L=%d): error %v, Forward's %v", job.OM.M, i, len(d), got[j].Errs[i], refErr[i])
					}
					continue
				}
				diff := math.Abs(float64(got[j].Scores[i]) - float64(ref[i]))
				m := float64(fwdback.BoundMargin(len(d), job.OM.M, got[j].Scores[i]))
				if len(d) == 0 {
					m = 0
				}
				if r := diff / m; diff > 0 && r > worst {
					worst, worstWhat = r, fmt.Sprintf("M=%d L=%d |diff| %.3g margin %.3g score %v", job.OM.M, len(d), diff, m, ref[i])
				}
				if !(diff <= m) {
					over++
					if over <= 5 {
						t.Errorf("M=%d target %d (L=%d): GPU %v, Forward %v: |diff| %.3g > margin %.3g", job.OM.M, i, len(d), got[j].Scores[i], ref[i], diff, m)
					}
				}
			}
		}
	}
	fmt.Printf("fwdbound: %d targets, %d models, %.3g Gcells, %d range errors on both sides, %d outside the margin; largest |diff|/margin %.3g (%s)\n",
		n, len(models), float64(cells)/1e9, errs, over, worst, worstWhat)
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// TestGPUBoundLatency measures ForwardBoundBatch like TestGPUBatchLatency
// measures ForwardBatch (1,000 targets a query of the synthetic length
// mix, 1 and 8 queries), with the exact batch kernel's time on the same
// jobs beside it and the largest |bound - exact|/margin of the batch.
// HMMGO_BOUND_LAT=1 turns it on.
func TestGPUBoundLatency(t *testing.T) {
	if os.Getenv("HMMGO_BOUND_LAT") == "" {
		t.Skip("set HMMGO_BOUND_LAT=1 to measure the bound kernel's latency")
	}
	ctx := testutil.GPUContext(t)
	g := fwdback.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(5))
	const reps = 3
	fmt.Printf("fwdboundlat: best of %d; regs/local: the bound kernel's registers and local bytes a thread\n", reps)
	fmt.Printf("fwdboundlat: %5s %3s %5s %5s %9s %9s %8s %10s %8s %9s %s\n",
		"M", "qry", "tgts", "maxL", "bound_ms", "wall_ms", "GCUPS", "exact_ms", "GCUPS", "diff/mgn", "regs/local, host, shape")
	for _, M := range []int{100, 150, 400, 1000, 2405} {
		for _, nq := range []int{1, 8} {
			var jobs []fwdback.BatchJob
			maxL, residues := 0, 0
			for k := 0; k < nq; k++ {
				h := testmodels.RandomHMM(rng, amino, M)
				dsqs := make([][]byte, 1000)
				for i := range dsqs {
					L := testmodels.ProteinLength(rng)
					dsqs[i] = testmodels.RandomDsq(rng, amino, L)
					maxL, residues = max(maxL, L), residues+L
				}
				jobs = append(jobs, fwdback.BatchJob{OM: optimized(h), Targets: dsqs})
			}
			// The default (register path up to M = 256, 4 loads in flight
			// on the shared-memory path), with launch bounds of 3 and 4
			// blocks an SM (M <= 256), then every job through the
			// shared-memory path with 4 and 8 loads in flight.
			for _, v := range []struct {
				regs           bool
				unroll, blocks int
			}{{true, 4, 0}, {true, 4, 3}, {true, 4, 4}, {false, 4, 0}, {false, 8, 0}} {
				if M > 256 && (v.blocks > 0 || !v.regs && v.unroll == 4) {
					continue // the default's path already
				}
				fwdback.SetBoundVariant(v.regs, v.unroll, v.blocks)
				boundLatencyRow(t, g, jobs, M, nq, maxL, residues, reps)
			}
			fwdback.SetBoundVariant(true, 4, 0)
		}
	}
}

// boundLatencyRow prints one line of TestGPUBoundLatency.
func boundLatencyRow(t *testing.T, g *fwdback.GPU, jobs []fwdback.BatchJob, M, nq, maxL, residues, reps int) {
	regs, local, err := g.BoundKernelRegs()
	if err != nil {
		t.Fatal(err)
	}
	best, bestWall, bestExact := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	var bound, exact []fwdback.BatchResult
	var shape string
	var host fwdback.BatchTimes
	for r := 0; r <= reps; r++ { // run 0 warms up
		t0 := time.Now()
		if bound, err = g.ForwardBoundBatch(jobs); err != nil {
			t.Fatal(err)
		}
		if r > 0 {
			best, bestWall = min(best, g.LastKernel), min(bestWall, time.Since(t0))
		}
		shape, host = g.LastShape, g.LastBatch
		if exact, err = g.ForwardBatch(jobs); err != nil {
			t.Fatal(err)
		}
		if r > 0 {
			bestExact = min(bestExact, g.LastKernel)
		}
	}
	worst := 0.0
	for j := range jobs {
		for i, d := range jobs[j].Targets {
			if bound[j].Errs[i] != nil || exact[j].Errs[i] != nil {
				continue
			}
			diff := math.Abs(float64(bound[j].Scores[i]) - float64(exact[j].Scores[i]))
			m := float64(fwdback.BoundMargin(len(d), M, bound[j].Scores[i]))
			worst = max(worst, diff/m)
			if !(diff <= m) {
				t.Errorf("M=%d job %d target %d: bound %v, exact %v, margin %v", M, j, i, bound[j].Scores[i], exact[j].Scores[i], m)
			}
		}
	}
	cells := float64(residues) * float64(M)
	fmt.Printf("fwdboundlat: %5d %3d %5d %5d %9.2f %9.2f %8.1f %10.2f %8.1f %9.2g %d/%d, plan %.1f ms, assemble %.1f ms, %s\n",
		M, nq, 1000, maxL, best.Seconds()*1e3, bestWall.Seconds()*1e3, cells/best.Seconds()/1e9,
		bestExact.Seconds()*1e3, cells/bestExact.Seconds()/1e9, worst, regs, local,
		host.Plan.Seconds()*1e3, host.Assemble.Seconds()*1e3, shape)
}
