package msvfilter_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/msvfilter"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func msvProfile(h *hmm.HMM) *oprofile.Profile {
	bg := profile.NewBackground(h.Alph)
	return oprofile.Convert(profile.Config(h, bg, 100), h)
}

// compareGPU scores every target on the CPU and the GPU and fails on any
// difference in bits. With ForceMSV the reference is the MSV program
// alone (HMMER's SSV shortcut can give a different, higher score).
func compareGPU(t *testing.T, g *msvfilter.GPU, h *hmm.HMM, db *gpudb.DB) {
	t.Helper()
	om := msvProfile(h)
	dsqs := db.Dsqs
	got := make([]float32, len(dsqs))
	if err := g.Scores(&om.MSV, h.Alph.Kp, db, got); err != nil {
		t.Fatalf("%s (M=%d): %v", h.Name, h.M, err)
	}
	want := cpuScores(g, &om.MSV, dsqs)
	bad := 0
	for i, d := range dsqs {
		if len(d) == 0 {
			continue // the pipeline never scores empty targets
		}
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			bad++
			if bad <= 5 {
				t.Errorf("%s (M=%d) target %d (L=%d): GPU %v, CPU %v", h.Name, h.M, i, len(d), got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d targets differ", h.Name, bad, len(dsqs))
	}
}

// TestGPUMatchesCPUSegmented is TestGPUMatchesCPU for the MSV pass's
// long targets segmented (GPU.SegRows, segment.go): every target longer
// than 1 residue, than 100 and than 1000, and the default's longest
// (GPU.SegTargets 1 and 20), beside the others, on the pass's own shape
// and (M = 25..32) a T = 1 shape of their own, also with the split
// asked for (the segments win) and with ForceMSV. (Apart from
// TestGPUMatchesCPU, which compiles many more shapes, so that a short
// device run can take this one alone.)
func TestGPUMatchesCPUSegmented(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := msvfilter.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	prot := testmodels.ReadDsqs(t, filepath.Join(testutil.Testdata(t, "hmmer3"), "prot.fa"), amino)
	rng := rand.New(rand.NewSource(17))
	for _, L := range []int{1, 2, 3, 5, 129, 1000, 1001, 5003, 20000, 100001} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	db := gpudb.New(ctx, prot)
	defer db.Free()
	for _, v := range [][3]int{{1, 0, 0}, {100, 0, 0}, {1000, 0, 0}, {300, 600, 0}, {0, 0, 1}, {0, 0, 20}} {
		g.SegRows, g.LongRows, g.SegTargets = v[0], v[1], v[2]
		for _, force := range []bool{false, true} {
			g.ForceMSV = force
			for _, M := range []int{1, 10, 16, 20, 24, 25, 32, 40, 47, 100} {
				compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), db)
			}
		}
	}
}

// cpuScores is each target's score on the CPU, as g computes it.
func cpuScores(g *msvfilter.GPU, om *oprofile.MSVProfile, dsqs [][]byte) []float32 {
	want := make([]float32, len(dsqs))
	testutil.Each(len(dsqs), func(i int) {
		p := *om
		p.TJB = p.TJBFor(len(dsqs[i]))
		if g.ForceMSV {
			want[i] = msvfilter.DPScore(dsqs[i], &p)
		} else {
			want[i] = msvfilter.Score(dsqs[i], &p)
		}
	})
	return want
}

// TestGPUScoresAboveMatchesCPU: ScoresAbove's scores are Scores', and
// its list is every non-empty target whose CPU score is at least the
// bound for its length, with SSV deciding most targets and with every
// target through the MSV pass.
func TestGPUScoresAboveMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := msvfilter.NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino := alphabet.New(alphabet.Amino)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	rng := rand.New(rand.NewSource(11))
	for _, L := range []int{0, 1, 5, 1000, 20000} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	db := gpudb.New(ctx, prot)
	defer db.Free()
	for _, force := range []bool{false, true} {
		g.ForceMSV = force
		for _, M := range []int{10, 50, 200, 800} {
			h := testmodels.RandomHMM(rng, amino, M)
			om := msvProfile(h)
			want := cpuScores(g, &om.MSV, prot)
			// A bound about the median score, moving with the length.
			sorted := slices.Clone(want)
			slices.Sort(sorted)
			median := sorted[len(sorted)/2]
			least := func(L int) float32 { return median + float32(L%9-4)/4 }
			got := make([]float32, len(prot))
			above, err := g.ScoresAbove(&om.MSV, h.Alph.Kp, db, got, least)
			if err != nil {
				t.Fatal(err)
			}
			var wantAbove []int
			for i, d := range prot {
				if len(d) == 0 {
					continue
				}
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("M=%d, MSV forced %v, target %d: GPU %v, CPU %v", M, force, i, got[i], want[i])
				}
				if want[i] >= least(len(d)) {
					wantAbove = append(wantAbove, i)
				}
			}
			if !slices.Equal(above, wantAbove) {
				t.Errorf("M=%d, MSV forced %v: %d targets listed, want %d (first %v, want %v)", M, force, len(above), len(wantAbove), above[:min(5, len(above))], wantAbove[:min(5, len(wantAbove))])
			}
			if len(wantAbove) == 0 || len(wantAbove) == len(prot)-1 {
				t.Errorf("M=%d: %d of %d targets listed at the bound: the test compares little", M, len(wantAbove), len(prot))
			}
		}
	}
}

func TestGPUMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := msvfilter.NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	rng := rand.New(rand.NewSource(7))
	for _, L := range []int{1, 2, 3, 4, 5, 7, 1000, 20000, 100001} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	protDB, nucDB := gpudb.New(ctx, prot), gpudb.New(ctx, nuc)
	defer protDB.Free()
	defer nucDB.Free()
	for _, force := range []bool{false, true} {
		g.ForceMSV = force
		for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
			if h.Alph.Type == alphabet.DNA {
				compareGPU(t, g, h, nucDB)
			} else {
				compareGPU(t, g, h, protDB)
			}
		}
		for _, M := range []int{1, 2, 3, 5, 8, 10, 11, 16, 20, 24, 31, 32, 33, 50, 64, 65, 100, 129, 200, 385, 1000} {
			compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
		}
	}
	g.ForceMSV = false
	// The SSV pass over windows of every length: many windows a target
	// (steps of 61 and 500 residues), whole targets, and each with a
	// profile copy per target of a warp. The automatic windows above
	// already cut the 20,000- and 100,001-residue targets.
	// Then threads of at least 12 and 24 nodes (GPU.MinNodes) at every
	// M (the default takes 24 from M = 192 on), windows and copies as
	// picked and forced; then one and two rows a step (GPU.SSVRows), and
	// the MSV pass's residues fetched 1 and 8 words ahead (GPU.Prefetch),
	// those on fewer model lengths (the test's time is mostly NVRTC's).
	all := []int{1, 7, 10, 23, 24, 40, 47, 50, 95, 100, 150, 191, 200, 300, 383, 400, 767, 800}
	small := []int{1, 10, 24, 47, 48, 50, 63, 64, 100, 200}
	for _, v := range []struct {
		step, copies, nodes, rows, pf int
		Ms                            []int
	}{{61, 1, 0, 0, 0, all}, {61, 2, 0, 0, 0, all}, {500, 1, 0, 0, 0, all}, {-1, 1, 0, 0, 0, all}, {-1, 2, 0, 0, 0, all}, {0, 2, 0, 0, 0, all},
		{0, 0, 12, 0, 0, all}, {0, 0, 24, 0, 0, all}, {61, 2, 24, 0, 0, all}, {0, 0, 0, 1, 0, all}, {0, 0, 0, 2, 0, all},
		{61, 1, 0, 2, 0, small}, {61, 2, 0, 2, 0, small}, {-1, 2, 0, 2, 0, small}, {0, 0, 24, 2, 0, small}, {0, 0, 48, 2, 0, small},
		{0, 0, 12, 1, 0, small}, {0, 0, 0, 0, 1, small}, {61, 0, 0, 0, 8, small}} {
		g.WindowStep, g.SSVCopies, g.MinNodes, g.SSVRows, g.Prefetch = v.step, v.copies, v.nodes, v.rows, v.pf
		for _, M := range v.Ms {
			compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
		}
	}
	g.WindowStep, g.SSVCopies, g.MinNodes, g.SSVRows, g.Prefetch = 0, 0, 0, 0, 0
	// The shapes measured for M = 64..150 (docs/BENCHMARKS.md, "Shapes
	// for M = 64..150"): SSV threads of at least 48, 64 and 128 nodes
	// (T = 1 or 2) with MSV passes of at least 4, 6 and 8 (T = 8 to 32),
	// at the measured lengths and the ends of the buckets (95, 127).
	for _, v := range [][2]int{{64, 6}, {48, 4}, {128, 8}} {
		g.MinNodes, g.MSVMinNodes = v[0], v[1]
		for _, M := range []int{64, 72, 80, 90, 95, 96, 100, 110, 127, 128, 150} {
			compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
		}
	}
	g.MinNodes, g.MSVMinNodes = 0, 0
	// The MSV pass with one row a step and two (GPU.MSVRows), xB apart
	// from the row max and not (GPU.MSVApart), on its own shape and on
	// two and eight threads a target (MSVMinNodes 12 and 3 at M = 24..47).
	for _, v := range [][3]int{{1, 1, 0}, {1, 2, 0}, {2, 1, 0}, {2, 2, 0}, {2, 1, 12}, {2, 2, 3}} {
		g.MSVRows, g.MSVApart, g.MSVMinNodes = v[0], v[1], v[2]
		for _, M := range []int{1, 10, 24, 25, 40, 47, 100} {
			compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
		}
	}
	g.MSVRows, g.MSVApart, g.MSVMinNodes = 0, 0, 0
	// The MSV pass's rows with xB guessed and checked (GPU.MSVSpec: on
	// everywhere, off) on one and two rows a step, and on eight threads
	// a target (MSVMinNodes 3), with every target in the pass too.
	for _, v := range [][3]int{{1, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 3}} {
		g.MSVSpec, g.MSVRows, g.MSVMinNodes = v[0], v[1], v[2]
		for _, force := range []bool{false, true} {
			g.ForceMSV = force
			for _, M := range []int{1, 10, 16, 25, 32, 40, 47, 100} {
				compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
			}
		}
	}
	g.MSVSpec, g.MSVRows, g.MSVMinNodes, g.ForceMSV = 0, 0, 0, false
	// The MSV pass split by target length (GPU.LongRows, split.go): the
	// long targets on their own shape (GPU.LongNodes; 0: its default)
	// beside the others, with ForceMSV (every target in the pass) too.
	for _, v := range [][2]int{{100, 0}, {1000, 0}, {300, 2}, {300, 12}, {-1, 0}} {
		g.LongRows, g.LongNodes = v[0], v[1]
		for _, force := range []bool{false, true} {
			g.ForceMSV = force
			for _, M := range []int{1, 10, 24, 25, 40, 47, 100} {
				compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
			}
		}
	}
	g.LongRows, g.LongNodes, g.ForceMSV = 0, 0, false
	// The defaults once more where the pass splits (M >= 32) and not.
	for _, M := range []int{10, 25, 32, 40, 47, 100, 800} {
		compareGPU(t, g, testmodels.RandomHMM(rng, amino, M), protDB)
	}
	// The CUDAMPF query models against a real proteome, when the data is here.
	proteome := gpudb.New(ctx, testmodels.ReadDsqs(t, testutil.GPUData(t, "pyhmmer/seqs/938293.PRJEB85.HG003687.faa"), amino))
	defer proteome.Free()
	for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
		compareGPU(t, g, h, proteome)
	}
}

// TestGPUThroughput measures the kernels (HMMGO_GPU_BENCH=residues, e.g.
// 100000000) on a synthetic database with Swiss-Prot-like lengths and
// prints GCUPS per model length, from the best of three kernel times
// (kernel_ms: all of Scores' kernels, SSV and then MSV over the targets
// SSV leaves undecided; ssv_ms: the SSV kernel alone). It
// is a benchmark, not a check. HMMGO_SSV_VARIANTS (comma-separated) runs
// the SSV path in several forms on the same models and targets: "whole"
// (no windows), "win" (windows as Scores picks them), "winX" (the step
// scaled by X), each with "+copy" for a profile copy per target of a
// warp, "stepN" for windows of step N (residues); "auto" is what Scores
// does unasked; then "+nN" gives threads at least N nodes (MinNodes),
// "+mN" the MSV pass's threads at least N nodes (MSVMinNodes), "+rN"
// N rows a step in the SSV kernel (SSVRows), "+wX" the step scaled by X,
// "+qN" N rows a step in the MSV pass (MSVRows), "+aN" its xB apart
// from the row max (1) or not (2) (MSVApart), "+lN" the pass's targets
// longer than N on their own shape (LongRows; -1 none), "+kN" its
// threads at least N nodes (LongNodes), "+sN" the pass's rows with xB
// guessed and checked (1) or chained (2) (MSVSpec), "+gN" the pass's
// targets longer than N segmented (SegRows; g0 none), "+tN" by default
// its N longest (SegTargets) (setVariant). Every variant's scores must equal the first's, target
// by target: the variants are exact by design, and this checks it on
// the whole benchmark database. HMMGO_GPU_BENCH_M lists the model lengths;
// HMMGO_GPU_BENCH_MSV=0 leaves out the MSV program;
// HMMGO_GPU_BENCH_PASS=1 prints the MSV pass's size (GPU.Pass);
// HMMGO_GPU_BENCH_REPEAT=R times R SSV kernels back to back (GPU.Repeat;
// "auto": enough for 20 ms, from the warm-up call's kernel time).
func TestGPUThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_GPU_BENCH"))
	if n == 0 {
		t.Skip("set HMMGO_GPU_BENCH=<residues> to measure GPU throughput")
	}
	ctx := testutil.GPUContext(t)
	g := msvfilter.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, total := testmodels.RandomDatabase(rng, amino, n)
	longest := 0
	for _, d := range dsqs {
		longest = max(longest, len(d))
	}
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	Ms := []int{10, 25, 50, 100, 200, 400, 800, 1200, 1600, 2000, 2405, 2500}
	if v := os.Getenv("HMMGO_GPU_BENCH_M"); v != "" {
		Ms = nil
		for _, f := range strings.Split(v, ",") {
			M, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			Ms = append(Ms, M)
		}
	}
	variants := []string{"auto"}
	if v := os.Getenv("HMMGO_SSV_VARIANTS"); v != "" {
		variants = strings.Split(v, ",")
	}
	if os.Getenv("HMMGO_GPU_BENCH_MSV") != "0" {
		variants = append(variants, "msv")
	}
	repeat := os.Getenv("HMMGO_GPU_BENCH_REPEAT")
	fmt.Printf("%d targets, %d residues (longest %d), resident on the GPU; GCUPS from the best of 3 kernel times (CUDA events; SSV kernels repeated: %q)\n", len(dsqs), total, longest, repeat)
	fmt.Printf("%-6s %-12s %12s %12s %10s %6s %10s %10s\n", "M", "path", "kernel_ms", "host_ms", "GCUPS", "reps", "ssv_ms", "ssv_GCUPS")
	for _, M := range Ms {
		h := testmodels.RandomHMM(rng, amino, M)
		om := msvProfile(h)
		out := make([]float32, len(dsqs))
		var ref []float32 // the first variant's scores
		for _, v := range variants {
			if err := setVariant(g, v); err != nil {
				t.Fatal(err)
			}
			g.Repeat, g.KernelTime = 0, 0
			g.Scores(&om.MSV, amino.Kp, db, out) // compile, upload, warm up
			if repeat == "auto" && !g.ForceMSV {
				g.Repeat = min(200, max(2, int(20*time.Millisecond/max(g.KernelTime, time.Microsecond))))
			} else {
				g.Repeat, _ = strconv.Atoi(repeat)
			}
			best, bestWall, bestSSV := time.Duration(math.MaxInt64), time.Duration(0), time.Duration(0)
			for range 3 {
				g.KernelTime, g.SSVKernelTime = 0, 0
				t0 := time.Now()
				if err := g.Scores(&om.MSV, amino.Kp, db, out); err != nil {
					t.Fatal(err)
				}
				if g.KernelTime < best {
					best, bestWall, bestSSV = g.KernelTime, time.Since(t0), g.SSVKernelTime
				}
			}
			cells := float64(total) * float64(M)
			kernels := time.Duration(1) // the wall time's kernels: with repeats, as many untimed first
			if g.Repeat > 1 && !g.ForceMSV {
				kernels = time.Duration(2 * g.Repeat)
			}
			ssvGCUPS := 0.0
			if bestSSV > 0 {
				ssvGCUPS = cells / bestSSV.Seconds() / 1e9
			}
			if ref == nil {
				ref = slices.Clone(out)
			} else if i := firstDifference(ref, out); i >= 0 {
				t.Errorf("M=%d %s: target %d scores %v, %s %v", M, v, i, out[i], variants[0], ref[i])
			}
			fmt.Printf("%-6d %-12s %12.3f %12.2f %10.1f %6d %10.3f %10.1f\n", M, v, best.Seconds()*1e3, (bestWall-kernels*best).Seconds()*1e3, cells/best.Seconds()/1e9, max(1, g.Repeat), bestSSV.Seconds()*1e3, ssvGCUPS)
			if os.Getenv("HMMGO_GPU_BENCH_PASS") != "" {
				fmt.Printf("pass M=%d %s: %d targets undecided, %d residues, longest %d, %d segmented\n", M, v, g.Pass.Targets, g.Pass.Residues, g.Pass.Longest, g.Pass.Segmented)
			}
		}
	}
	setVariant(g, "auto")
	g.Repeat = 0
}

// firstDifference is the first index where a and b differ, or -1.
func firstDifference(a, b []float32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// setVariant sets g to one of TestGPUThroughput's variants: a head
// (auto, msv, whole, win, winX, stepN), then "+"-separated changes:
// copy, nN (MinNodes), mN (MSVMinNodes), rN (SSVRows), wX
// (WindowScale), pN (Prefetch), qN (MSVRows), aN (MSVApart), sN
// (MSVSpec), lN
// (LongRows), kN (LongNodes), gN (SegRows; g0 none), tN (SegTargets).
func setVariant(g *msvfilter.GPU, v string) error {
	g.ForceMSV, g.WindowStep, g.WindowScale, g.SSVCopies, g.MinNodes, g.MSVMinNodes, g.SSVRows, g.Prefetch = false, 0, 0, 0, 0, 0, 0, 0
	g.MSVRows, g.MSVApart, g.LongRows, g.LongNodes, g.MSVSpec, g.SegRows, g.SegTargets = 0, 0, 0, 0, 0, 0, 0
	parts := strings.Split(v, "+")
	head := parts[0]
	switch {
	case head == "auto":
	case head == "msv":
		g.ForceMSV = true
	case head == "whole":
		g.WindowStep, g.SSVCopies = -1, 1
	case strings.HasPrefix(head, "step"):
		n, err := strconv.Atoi(head[4:])
		if err != nil || n <= 0 {
			return fmt.Errorf("variant %q: want stepN, N > 0", v)
		}
		g.WindowStep, g.SSVCopies = n, 1
	case strings.HasPrefix(head, "win"):
		g.SSVCopies = 1
		if x := head[3:]; x != "" {
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return fmt.Errorf("variant %q: %v", v, err)
			}
			g.WindowScale = f
		}
	default:
		return fmt.Errorf("unknown variant %q", v)
	}
	for _, p := range parts[1:] {
		if p == "copy" {
			g.SSVCopies = 2
			continue
		}
		if p == "" {
			return fmt.Errorf("variant %q: empty change", v)
		}
		x, err := strconv.ParseFloat(p[1:], 64)
		if err != nil {
			return fmt.Errorf("variant %q: %v", v, err)
		}
		switch p[0] {
		case 'n':
			g.MinNodes = int(x)
		case 'm':
			g.MSVMinNodes = int(x)
		case 'r':
			g.SSVRows = int(x)
		case 'w':
			g.WindowScale = x
		case 'p':
			g.Prefetch = int(x)
		case 'q':
			g.MSVRows = int(x)
		case 'a':
			g.MSVApart = int(x)
		case 'l':
			g.LongRows = int(x)
		case 'k':
			g.LongNodes = int(x)
		case 's':
			g.MSVSpec = int(x)
		case 't':
			g.SegTargets = int(x)
		case 'g':
			g.SegRows = int(x)
			if x == 0 {
				g.SegRows = -1
			}
		default:
			return fmt.Errorf("variant %q: unknown change %q", v, p)
		}
	}
	return nil
}

// Launches from several goroutines at once (the queries a worker keeps
// in flight) run on separate streams and give the same scores.
func TestGPUConcurrentLaunches(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := msvfilter.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	prot := testmodels.ReadDsqs(t, filepath.Join(testutil.Testdata(t, "hmmer3"), "prot.fa"), amino)
	db := gpudb.New(ctx, prot)
	defer db.Free()
	rng := rand.New(rand.NewSource(9))
	var models []*hmm.HMM
	for _, M := range []int{20, 77, 143, 400, 803, 1142, 64, 300} {
		models = append(models, testmodels.RandomHMM(rng, amino, M))
	}
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for _, h := range models {
			wg.Add(1)
			go func() { defer wg.Done(); compareGPU(t, g, h, db) }()
		}
		wg.Wait()
	}
}
