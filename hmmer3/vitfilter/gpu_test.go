package vitfilter_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/hmmer3/vitfilter"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func optimized(h *hmm.HMM) *oprofile.Profile {
	bg := profile.NewBackground(h.Alph)
	return oprofile.Convert(profile.Config(h, bg, 100), h)
}

// cpuScores is the reference on every core.
func cpuScores(om *oprofile.Profile, dsqs [][]byte) []float32 {
	want := make([]float32, len(dsqs))
	var wg sync.WaitGroup
	n := runtime.NumCPU()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := *om
			for i := w; i < len(dsqs); i += n {
				p.ReconfigLength(len(dsqs[i]))
				want[i] = vitfilter.Score(dsqs[i], &p.Vit)
			}
		}(w)
	}
	wg.Wait()
	return want
}

func compareGPU(t *testing.T, g *vitfilter.GPU, h *hmm.HMM, db *gpudb.DB) {
	t.Helper()
	om := optimized(h)
	got := make([]float32, len(db.Dsqs))
	if err := g.Scores(&om.Vit, h.Alph.Kp, db, nil, got); err != nil {
		t.Fatalf("%s (M=%d): %v", h.Name, h.M, err)
	}
	want := cpuScores(om, db.Dsqs)
	bad := 0
	for i, d := range db.Dsqs {
		if len(d) > 0 && math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			bad++
			if bad <= 5 {
				t.Errorf("%s (M=%d) target %d (L=%d): GPU %v, CPU %v", h.Name, h.M, i, len(d), got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d targets differ", h.Name, bad, len(db.Dsqs))
	}
}

// kernelFromEnv applies $HMMGO_VIT_KERNEL ("sat32", "dpx16:32", ...,
// as HMMGO_VIT_VARIANTS) for the test; unset, the package's defaults.
func kernelFromEnv(t *testing.T) {
	v := os.Getenv("HMMGO_VIT_KERNEL")
	if v == "" {
		return
	}
	choice, nodes, _ := strings.Cut(v, ":")
	minNodes, _ := strconv.Atoi(cmp.Or(nodes, "8"))
	t.Cleanup(vitfilter.SetKernel(choice, minNodes))
}

func TestGPUMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	kernelFromEnv(t)
	g := vitfilter.NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	rng := rand.New(rand.NewSource(11))
	for _, L := range []int{1, 2, 3, 4, 5, 7, 1000, 20000} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	protDB := gpudb.New(ctx, prot)
	defer protDB.Free()
	nucDB := gpudb.New(ctx, testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna))
	defer nucDB.Free()
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		if h.Alph.Type == alphabet.DNA {
			compareGPU(t, g, h, nucDB)
		} else {
			compareGPU(t, g, h, protDB)
		}
	}
	for _, M := range []int{1, 2, 3, 5, 8, 10, 16, 20, 31, 32, 33, 50, 64, 100, 129, 200, 257, 600} {
		compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
	}
	// Subsets (the pipeline's Viterbi survivors) use a temporary layout.
	h := testmodels.RandomHMM(rng, amino, 77)
	om := optimized(h)
	want := cpuScores(om, prot)
	sel := make([]bool, len(prot))
	for i := range sel {
		sel[i] = i%3 == 0
	}
	got := make([]float32, len(prot))
	if err := g.Scores(&om.Vit, amino.Kp, protDB, sel, got); err != nil {
		t.Fatal(err)
	}
	for i := range sel {
		if sel[i] && len(prot[i]) > 0 && math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("subset target %d: GPU %v, CPU %v", i, got[i], want[i])
		}
	}
	proteome := gpudb.New(ctx, testmodels.ReadDsqs(t, testutil.GPUData(t, "pyhmmer/seqs/938293.PRJEB85.HG003687.faa"), amino))
	defer proteome.Free()
	cudampf := testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz"))
	for _, h := range cudampf {
		vitfilter.Precompile(h.M, h.Alph.Kp, nvrtc.Target{Major: ctx.Device().Major, Minor: ctx.Device().Minor})
	}
	for _, h := range cudampf {
		compareGPU(t, g, h, proteome)
	}
	t.Logf("%d targets handed back by the DPX kernels", g.HandedBack())
}

// TestGPUThroughput measures the Viterbi filter kernels
// (HMMGO_GPU_BENCH=residues) on synthetic targets and prints GCUPS, one
// column per variant of $HMMGO_VIT_VARIANTS (default "sat32,dpx:32":
// vit_kernel alone, and the DPX kernels as Scores picks them with at
// least 32 nodes a thread; see SetKernel for the others),
// all on the same models and targets; "back" is how many targets
// vit16_kernel handed to vit_kernel (their time is included).
func TestGPUThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_GPU_BENCH"))
	if n == 0 {
		t.Skip("set HMMGO_GPU_BENCH=<residues> to measure GPU throughput")
	}
	variants := strings.Split(cmp.Or(os.Getenv("HMMGO_VIT_VARIANTS"), "sat32,dpx:32"), ",")
	ctx := testutil.GPUContext(t)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, total := testmodels.RandomDatabase(rng, amino, n)
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	Ms := []int{10, 25, 50, 100, 200, 400, 800, 1200, 1600, 2000, 2405}
	target := nvrtc.Target{Major: ctx.Device().Major, Minor: ctx.Device().Minor}
	for _, v := range variants { // compile everything in parallel first
		choice, nodes, _ := strings.Cut(v, ":")
		minNodes, _ := strconv.Atoi(cmp.Or(nodes, "8"))
		for _, M := range Ms {
			vitfilter.PrecompileWith(M, amino.Kp, target, choice, minNodes)
		}
	}
	fmt.Printf("%d targets, %d residues resident; GCUPS from kernel time\n", len(dsqs), total)
	fmt.Printf("%-6s", "M")
	for _, v := range variants {
		fmt.Printf(" %14s", v)
	}
	fmt.Printf(" %8s\n", "back")
	for _, M := range Ms {
		om := optimized(testmodels.RandomHMM(rng, amino, M))
		fmt.Printf("%-6d", M)
		var back int64
		var first []float32
		var res []string
		for _, v := range variants {
			choice, nodes, _ := strings.Cut(v, ":")
			minNodes, _ := strconv.Atoi(cmp.Or(nodes, "8"))
			restore := vitfilter.SetKernel(choice, minNodes)
			g := vitfilter.NewGPU(ctx)
			res = append(res, g.Resources(M, amino.Kp, choice, minNodes))
			out := make([]float32, len(dsqs))
			if err := g.Scores(&om.Vit, amino.Kp, db, nil, out); err != nil {
				t.Fatal(err)
			}
			g.KernelTime = 0
			if err := g.Scores(&om.Vit, amino.Kp, db, nil, out); err != nil {
				t.Fatal(err)
			}
			restore()
			fmt.Printf(" %14.1f", float64(total)*float64(M)/g.KernelTime.Seconds()/1e9)
			back = max(back, g.HandedBack()/2)
			if first == nil {
				first = out
			} else if diff := countDiff(first, out); diff > 0 {
				t.Errorf("M=%d: %s differs from %s on %d targets", M, v, variants[0], diff)
			}
		}
		fmt.Printf(" %8d  %s\n", back, strings.Join(res, " "))
	}
}

func countDiff(a, b []float32) int {
	n := 0
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			n++
		}
	}
	return n
}

// Launches from several goroutines at once (the queries a worker keeps
// in flight) run on separate streams and give the same scores, over the
// whole database and over subsets.
func TestGPUConcurrentLaunches(t *testing.T) {
	ctx := testutil.GPUContext(t)
	kernelFromEnv(t)
	g := vitfilter.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	prot := testmodels.ReadDsqs(t, filepath.Join(testutil.Testdata(t, "hmmer3"), "prot.fa"), amino)
	db := gpudb.New(ctx, prot)
	defer db.Free()
	rng := rand.New(rand.NewSource(13))
	var models []*hmm.HMM
	for _, M := range []int{20, 77, 143, 400, 803, 1142, 64, 300} {
		models = append(models, testmodels.RandomHMM(rng, amino, M))
	}
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for k, h := range models {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if k%2 == 0 {
					compareGPU(t, g, h, db)
					return
				}
				om := optimized(h)
				want := cpuScores(om, prot)
				sel := make([]bool, len(prot))
				for i := range sel {
					sel[i] = (i+k+round)%3 == 0
				}
				got := make([]float32, len(prot))
				if err := g.Scores(&om.Vit, amino.Kp, db, sel, got); err != nil {
					t.Error(err)
					return
				}
				for i := range sel {
					if sel[i] && len(prot[i]) > 0 && math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Errorf("M=%d subset target %d: GPU %v, CPU %v", h.M, i, got[i], want[i])
					}
				}
			}()
		}
		wg.Wait()
	}
}
