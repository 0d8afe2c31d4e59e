package gpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/core"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// The timings of bench/papara_gpu.sh run: the scoring phase on the rpsS
// set scaled up (its 2,101 reads and mutated copies of them) on the CPU,
// the GPU and both, and a sweep of the kernels' length bins. They are
// tests rather than Go benchmarks because each is one long timed run whose
// results are also compared; they run only when HMMGO_PAPARA_BENCH is set
// (and need a GPU).

func benchEnv(t *testing.T) (scale, threads int) {
	if os.Getenv("HMMGO_PAPARA_BENCH") == "" {
		t.Skip("timing run: set HMMGO_PAPARA_BENCH=1 (bench/papara_gpu.sh run does)")
	}
	scale, threads = 50, runtime.NumCPU()
	if v, err := strconv.Atoi(os.Getenv("HMMGO_PAPARA_SCALE")); err == nil && v > 0 {
		scale = v
	}
	if v, err := strconv.Atoi(os.Getenv("HMMGO_PAPARA_THREADS")); err == nil && v > 0 {
		threads = v
	}
	return scale, threads
}

// benchJob makes the timed job (a variable so that the timing code itself
// can be tried on a small job without a GPU).
var benchJob = scaledRpsS

// scaledRpsS is the rpsS job with its reads and scale-1 mutated copies of
// them (2% substitutions, 0.5% insertions and 0.5% deletions each).
func scaledRpsS(t *testing.T, scale int) *core.Job {
	t.Helper()
	tree, err := newick.ReadFile(testutil.GPUData(t, "sepp/rpsS/sate.tre"))
	if err != nil {
		t.Fatal(err)
	}
	aln, err := alignio.ReadAlignment(testutil.GPUData(t, "sepp/rpsS/sate.phy.gz"))
	if err != nil {
		t.Fatal(err)
	}
	reads, err := alignio.ReadFasta(testutil.GPUData(t, "sepp/rpsS/rpsS.even.fas.gz"))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := core.Prepare(&core.Input{Model: core.DNA, Tree: tree, Alignment: aln, Reads: reads})
	if err != nil {
		t.Fatal(err)
	}
	return &core.Job{Model: core.DNA, Params: core.DefaultParams, Branches: prep.Ref.Branches, Queries: scaleReads(prep.Queries, scale, 1)}
}

func scaleReads(qs []core.Query, scale int, seed uint64) []core.Query {
	rng := rand.New(rand.NewPCG(seed, 5))
	bases := []uint8{1, 2, 4, 8}
	out := append([]core.Query(nil), qs...)
	for k := 1; k < scale; k++ {
		for _, q := range qs {
			cs := make([]uint8, 0, len(q.CStates)+4)
			for _, c := range q.CStates {
				switch x := rng.IntN(1000); {
				case x < 20:
					cs = append(cs, bases[rng.IntN(4)])
				case x < 25: // deleted
				case x < 30:
					cs = append(cs, c, bases[rng.IntN(4)])
				default:
					cs = append(cs, c)
				}
			}
			if len(cs) == 0 {
				cs = append(cs, q.CStates[0])
			}
			out = append(out, core.Query{Name: fmt.Sprintf("%s_%d", q.Name, k), CStates: cs})
		}
	}
	return out
}

// timeScoring runs the scoring phase once and returns the results, the
// wall time and the scorers' stats.
func timeScoring(t *testing.T, job *core.Job, scorers []core.Scorer) (*core.Results, time.Duration, []core.WorkerStats) {
	t.Helper()
	runtime.GC()
	t0 := time.Now()
	res, stats, err := core.ScoreAll(job, scorers, nil)
	wall := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	return res, wall, stats
}

func gcups(cells int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(cells) / d.Seconds() / 1e9
}

// TestGPUBenchScaled times the scoring phase of the scaled rpsS set on
// the CPU threads, the GPU alone and both, and checks that the three give
// the same best branch and score for every read.
func TestGPUBenchScaled(t *testing.T) {
	scale, threads := benchEnv(t)
	s := realGPU(t)
	job := benchJob(t, scale)
	cells := job.Cells()
	var res int64
	for _, q := range job.Queries {
		res += int64(len(q.CStates))
	}
	fmt.Printf("BENCH set rpsS x%d: %d reads, %d residues, %d branches x %d columns, %.3g cells\n",
		scale, len(job.Queries), res, job.Branches.N, job.Branches.Len, float64(cells))

	// Setup outside the timings: packing, upload, kernels (compiled or
	// loaded from the cache).
	t0 := time.Now()
	if err := s.Score(job, []core.Block{{Start: 0, End: 1, Q0: 0, Q1: 1}}, core.NewResults(len(job.Queries))); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("BENCH gpu setup %.2f s (pack, upload, kernels)\n", time.Since(t0).Seconds())

	before := s.Stats()
	gpuRes, gpuWall, _ := timeScoring(t, job, []core.Scorer{s})
	st := s.Stats()
	kt := st.KernelTime - before.KernelTime
	fmt.Printf("BENCH gpu: %.2f s, %.0f GCUPS; kernels %.2f s, %.0f GCUPS; %d calls, %d launches\n",
		gpuWall.Seconds(), gcups(cells, gpuWall), kt.Seconds(), gcups(st.Cells-before.Cells, kt), st.Calls-before.Calls, st.Launches-before.Launches)

	before = s.Stats()
	hyb := append(core.CPUScorers(threads), s)
	hybRes, hybWall, hstats := timeScoring(t, job, hyb)
	gpuCells := hstats[len(hstats)-1].Cells
	fmt.Printf("BENCH hybrid (%d CPU threads + GPU): %.2f s, %.0f GCUPS; GPU share %.1f%% of the cells\n",
		threads, hybWall.Seconds(), gcups(cells, hybWall), 100*float64(gpuCells)/float64(cells))

	cpuRes, cpuWall, cstats := timeScoring(t, job, core.CPUScorers(threads))
	var cpuTime time.Duration
	for _, w := range cstats {
		cpuTime += w.CPU
	}
	fmt.Printf("BENCH cpu (%d threads, %s): %.2f s, %.0f GCUPS (%.1f GCUPS per thread, %.1f per CPU second)\n",
		threads, cstats[0].Name, cpuWall.Seconds(), gcups(cells, cpuWall), gcups(cells, cpuWall)/float64(threads), gcups(cells, cpuTime))

	for name, r := range map[string]*core.Results{"gpu": gpuRes, "hybrid": hybRes} {
		sameResults(t, name, job, r, cpuRes)
	}
	same := "identical"
	if t.Failed() {
		same = "DIFFERENT"
	}
	fmt.Printf("BENCH results: GPU and hybrid vs CPU: %s (best branch and score of all %d reads)\n", same, len(job.Queries))
	fmt.Printf("BENCH table | %-28s | %8s | %8s |\n", "scorer", "wall s", "GCUPS")
	for _, row := range []struct {
		name string
		d    time.Duration
	}{{fmt.Sprintf("CPU, %d threads", threads), cpuWall}, {"GPU", gpuWall}, {fmt.Sprintf("hybrid, %d threads + GPU", threads), hybWall}} {
		fmt.Printf("BENCH table | %-28s | %8.2f | %8.0f |\n", row.name, row.d.Seconds(), gcups(cells, row.d))
	}
}

// TestGPUBinSweep times the GPU alone on a smaller scaled set with other
// length bins (fewer rows per thread, coarser bins), for tuning.
func TestGPUBinSweep(t *testing.T) {
	scale, _ := benchEnv(t)
	scale = max(1, scale/5)
	s := realGPU(t)
	base := benchJob(t, scale)
	save := lengthBins
	defer func() { lengthBins = save }()
	for _, v := range []struct {
		name string
		bins [][2]int
	}{
		{"default", save},
		{"rows<=24", [][2]int{{1, 16}, {1, 24}, {2, 16}, {2, 20}, {2, 24}, {4, 16}, {4, 20}, {4, 24}, {8, 16}, {8, 20}, {8, 24}, {16, 24}, {32, 24}, {32, 32}}},
		{"rows=32", [][2]int{{1, 32}, {2, 32}, {4, 32}, {8, 32}, {16, 32}, {32, 32}}},
		{"rows=16", [][2]int{{1, 16}, {2, 16}, {4, 16}, {8, 16}, {16, 16}, {32, 16}, {32, 32}}},
	} {
		lengthBins = v.bins
		// a new job: the scorer packs it again with these bins
		job := &core.Job{Model: base.Model, Params: base.Params, Branches: base.Branches, Queries: base.Queries}
		if err := s.Score(job, []core.Block{{Start: 0, End: 1, Q0: 0, Q1: 1}}, core.NewResults(len(job.Queries))); err != nil {
			t.Fatal(err)
		}
		before := s.Stats()
		_, wall, _ := timeScoring(t, job, []core.Scorer{s})
		st := s.Stats()
		kt := st.KernelTime - before.KernelTime
		fmt.Printf("BENCH sweep %-9s x%d: %.2f s, %.0f GCUPS; kernels %.0f GCUPS\n", v.name, scale, wall.Seconds(),
			gcups(job.Cells(), wall), gcups(st.Cells-before.Cells, kt))
	}
}
