package biasfilter

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// cpuScores is the reference (FilterScore at each target's length) on
// every core, for the non-empty targets with want[i].
func cpuScores(bg *profile.Background, dsqs [][]byte, want []bool) []float32 {
	out := make([]float32, len(dsqs))
	var wg sync.WaitGroup
	n := runtime.NumCPU()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(dsqs); i += n {
				if (want == nil || want[i]) && len(dsqs[i]) > 0 {
					out[i] = cpuScore(bg, dsqs[i])
				}
			}
		}(w)
	}
	wg.Wait()
	return out
}

// compareGPU scores db on the GPU and checks every selected target.
func compareGPU(t *testing.T, g *GPU, name string, bg *profile.Background, db *gpudb.DB, want []bool) {
	t.Helper()
	got := make([]float32, len(db.Dsqs))
	for i := range got {
		got[i] = math.Float32frombits(0x7fc0dead)
	}
	if err := g.Scores(bg, db, want, got); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ref := cpuScores(bg, db.Dsqs, want)
	bad, n := 0, 0
	for i, d := range db.Dsqs {
		if !((want == nil || want[i]) && len(d) > 0) {
			if math.Float32bits(got[i]) != 0x7fc0dead {
				t.Errorf("%s target %d (not selected): written", name, i)
			}
			continue
		}
		n++
		if !sameScore(got[i], ref[i]) {
			if bad++; bad <= 5 {
				t.Errorf("%s target %d (L=%d): GPU %v (%08x), CPU %v (%08x)", name, i, len(d), got[i], math.Float32bits(got[i]), ref[i], math.Float32bits(ref[i]))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d targets differ", name, bad, n)
	}
	t.Logf("%s: %d targets bit for bit", name, n)
}

func TestGPUMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	rng := rand.New(rand.NewSource(11))
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	prot = append(prot, testmodels.ReadDsqs(t, filepath.Join(dir, "synth.fa"), amino)...)
	for _, L := range []int{1, 2, 3, 4, 5, 7, 1000, 20000, 100000} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	protDB := gpudb.New(ctx, prot)
	defer protDB.Free()
	nucDB := gpudb.New(ctx, testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna))
	defer nucDB.Free()
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		db := protDB
		if h.Alph.Type == alphabet.DNA {
			db = nucDB
		}
		compareGPU(t, g, h.Name, filterBackground(h), db, nil)
	}
	for _, M := range []int{1, 10, 200, 2405} {
		h := testmodels.RandomHMM(rng, amino, M)
		biased := gpudb.New(ctx, biasedTargets(rng, amino, h.Compo, 3000))
		compareGPU(t, g, fmt.Sprintf("random M=%d", M), filterBackground(h), biased, nil)
		h.Compo = nil // HMMER's unset composition
		compareGPU(t, g, fmt.Sprintf("random M=%d unset", M), filterBackground(h), biased, nil)
		biased.Free()
	}
	// Subsets (the pipeline's MSV survivors) use a temporary layout.
	h := testmodels.RandomHMM(rng, amino, 77)
	sel := make([]bool, len(prot))
	for i := range sel {
		sel[i] = i%3 == 0
	}
	compareGPU(t, g, "subset", filterBackground(h), protDB, sel)
	// A few percent, as a query's MSV survivors: laid out for the launch.
	for i := range sel {
		sel[i] = i%29 == 0
	}
	compareGPU(t, g, "sparse subset", filterBackground(h), protDB, sel)
	compareGPU(t, g, "sparse subset again", filterBackground(h), protDB, sel) // the lane's buffers reused
	// Real data: the CUDAMPF query models against a proteome.
	proteome := gpudb.New(ctx, testmodels.ReadDsqs(t, testutil.GPUData(t, "pyhmmer/seqs/938293.PRJEB85.HG003687.faa"), amino))
	defer proteome.Free()
	for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
		compareGPU(t, g, h.Name, filterBackground(h), proteome, nil)
	}
}

// TestGPUThroughput times the kernel (HMMGO_GPU_BENCH=residues) on
// synthetic targets: all of them, and a 3% subset as the pipeline asks.
func TestGPUThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_GPU_BENCH"))
	if n == 0 {
		t.Skip("set HMMGO_GPU_BENCH=<residues> to measure GPU throughput")
	}
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, total := testmodels.RandomDatabase(rng, amino, n)
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	bg := filterBackground(testmodels.RandomHMM(rng, amino, 300))
	sub := make([]bool, len(dsqs))
	subRes := 0
	for i := range sub {
		if sub[i] = rng.Intn(100) < 3; sub[i] {
			subRes += len(dsqs[i])
		}
	}
	fmt.Printf("%d targets, %d residues resident\n", len(dsqs), total)
	for _, c := range []struct {
		name     string
		want     []bool
		residues int
	}{{"all", nil, total}, {"3% subset", sub, subRes}} {
		out := make([]float32, len(dsqs))
		g.Scores(bg, db, c.want, out) // compile, first layout
		g.KernelTime = 0
		t0 := time.Now()
		if err := g.Scores(bg, db, c.want, out); err != nil {
			t.Fatal(err)
		}
		wall := time.Since(t0)
		t1 := time.Now()
		cpuScores(bg, dsqs, c.want)
		cpu := time.Since(t1)
		fmt.Printf("%-10s %11d residues: kernel %8.2f ms, call %8.2f ms (%.2f Gres/s); CPU on %d cores %8.2f ms\n",
			c.name, c.residues, g.KernelTime.Seconds()*1e3, wall.Seconds()*1e3, float64(c.residues)/wall.Seconds()/1e9, runtime.NumCPU(), cpu.Seconds()*1e3)
	}
}

// TestWholeLayoutRule: a query's few percent of MSV survivors get a
// layout of their own; most of the database, the resident one.
func TestWholeLayoutRule(t *testing.T) {
	for _, c := range []struct {
		wanted, n int
		whole     bool
	}{{0, 100, false}, {3, 100, false}, {25, 100, false}, {26, 100, true}, {100, 100, true}, {15_000, 485_000, false}} {
		if got := wholeLayout(c.wanted, c.n); got != c.whole {
			t.Errorf("%d of %d wanted: whole layout %v, want %v", c.wanted, c.n, got, c.whole)
		}
	}
}
