package gpu

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// These tests need a GPU (they skip, saying so, without one): the GPU
// scorer must give the CPU scorer's scores for every sequence.

// compareGPU scores seqs on the GPU, streamed (Scorer.Score) and, with
// db, resident (Kernel.ScoreDB), and compares every score with the CPU
// scorer's (itself tested equal to ScoreOne).
func compareGPU(t *testing.T, ctxs []*cuda.Context, what string, p *plan7.Profile, seqs [][]byte, db *gpudb.DB) {
	t.Helper()
	want := make([]int32, len(seqs))
	if err := viterbi.NewCPUScorer(p, 0).Score(seqs, want); err != nil {
		t.Fatal(err)
	}
	sc, err := NewScorer(ctxs, p)
	if err != nil {
		t.Fatalf("%s (M=%d): %v", what, p.M, err)
	}
	defer sc.Close()
	got := make([]int32, len(seqs))
	if err := sc.Score(seqs, got); err != nil {
		t.Fatalf("%s (M=%d): %v", what, p.M, err)
	}
	diff(t, fmt.Sprintf("%s (M=%d, %+v) streamed on %d GPU(s)", what, p.M, sc.Kernels()[0].Shape, len(ctxs)), seqs, got, want)
	if db != nil {
		res := make([]int32, len(seqs))
		if err := sc.Kernels()[0].ScoreDB(db, res); err != nil {
			t.Fatal(err)
		}
		diff(t, fmt.Sprintf("%s (M=%d) resident", what, p.M), seqs, res, want)
	}
}

func diff(t *testing.T, what string, seqs [][]byte, got, want []int32) {
	t.Helper()
	bad := 0
	for i := range seqs {
		if got[i] != want[i] {
			bad++
			if bad <= 3 {
				t.Errorf("%s: sequence %d (L=%d): GPU %d, CPU %d", what, i, len(seqs[i]), got[i], want[i])
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d of %d scores differ", what, bad, len(seqs))
	}
}

func countDiff(a, b []int32) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// TestGPUVariantsMatchCPU runs every kernel variant (as
// $HMMGO_HMM2_KERNEL selects it) on models of every shape regime and
// mode, with -INFTY scores and int32 wrap-around.
func TestGPUVariantsMatchCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	ctxs := []*cuda.Context{ctx}
	rng := rand.New(rand.NewSource(32))
	amino := plan7.NewAlphabet(plan7.Amino)
	prot := randomSeqs(rng, amino, 2000, 700)
	protDB := gpudb.New(ctx, prot)
	defer protDB.Free()
	imp := randomSeqs(rng, amino, 300, 300)
	onlyWY(imp)
	for _, v := range benchVariants(Variants) {
		t.Setenv(VariantEnv, v)
		for _, M := range []int{15, 100, 257, 513, 1025, 2049} {
			for i, mode := range modes {
				compareGPU(t, ctxs, v+" "+mode, randomProfile(rng, amino, M, mode, (M+i)%2 == 1), prot, protDB)
			}
		}
		compareGPU(t, ctxs, v+" impossible", impossibleProfile(t), imp, nil)
		for _, M := range []int{40, 300, 800} {
			compareGPU(t, ctxs, v+" wrap-around", wrapProfile(rng, amino, M), prot, protDB)
		}
		compareGPU(t, ctxs, v+" pkinase10.hmm2.gz", readProfile(t, "pkinase10.hmm2.gz"), prot, protDB)
		t.Logf("variant %s: every model checked", v)
	}
}

func TestGPUMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	ctxs := []*cuda.Context{ctx}
	rng := rand.New(rand.NewSource(31))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	prot := randomSeqs(rng, amino, 3000, 600)
	for _, L := range []int{0, 1, 2, 3, 4, 5, 1000, 5000, 20000} {
		s := make([]byte, L)
		for j := range s {
			s[j] = byte(rng.Intn(amino.Iupac)) // degenerate codes too
		}
		prot = append(prot, s)
	}
	nuc := randomSeqs(rng, dna, 2000, 1500)
	protDB := gpudb.New(ctx, prot)
	defer protDB.Free()
	nucDB := gpudb.New(ctx, nuc)
	defer nucDB.Free()
	for _, M := range []int{1, 2, 3, 15, 16, 31, 32, 33, 64, 100, 255, 256, 257, 511, 512, 513, 600, 672, 673, 700, 800, 950, 1000, 1100, 1250, 1600, 1800, 2200} {
		for _, mode := range modes {
			zeros := M%2 == 1
			compareGPU(t, ctxs, mode+" amino", randomProfile(rng, amino, M, mode, zeros), prot, protDB)
			if M <= 300 {
				compareGPU(t, ctxs, mode+" nucleic", randomProfile(rng, dna, M, mode, zeros), nuc, nucDB)
			}
		}
	}
	for _, name := range []string{"globin.hmm2", "globin_fs.hmm2", "globin_sw.hmm2", "globin_global.hmm2", "fn3.hmm2", "rrm.hmm2", "pkinase.hmm2", "pkinase10.hmm2.gz"} {
		compareGPU(t, ctxs, name, readProfile(t, name), prot, protDB)
	}
	compareGPU(t, ctxs, "made1.hmm2", readProfile(t, "made1.hmm2"), nuc, nucDB)

	// int32 wrap-around: the impossible-score model and models that wrap
	// for certain.
	imp := randomSeqs(rng, amino, 500, 300)
	onlyWY(imp)
	compareGPU(t, ctxs, "impossible", impossibleProfile(t), imp, nil)
	for _, M := range []int{10, 40, 300, 600, 2000} {
		p := wrapProfile(rng, amino, M)
		if !wraps(p, prot[:200]) {
			t.Fatalf("M=%d: the wrap-around model does not wrap", M)
		}
		compareGPU(t, ctxs, "wrap-around", p, prot, protDB)
	}

	// Two scorers on one device stand in for two GPUs: the dealing of a
	// batch between devices.
	compareGPU(t, []*cuda.Context{ctx, ctx}, "two devices", randomProfile(rng, amino, 150, "ls", false), prot, nil)

	// Groups of several warps with the D chain by a scan (wscan), and
	// their layouts run by one warp strip after strip (strip), unless
	// $HMMGO_HMM2_KERNEL chose the variant: every mode, models whose
	// best D paths cross warps, -INFTY scores and wrap-around (the build
	// with D passes), the 2,940-node model, targets to 20,000.
	if os.Getenv(VariantEnv) != "" {
		return
	}
	for _, v := range []string{"wscan", "wscan12", "wscan8.ts", "wscanfit.wave", "wscan12.defer.wave", "auto1.wave", "auto1.wave.nb", "strip", "strip13", "strip12.nodefer", "strip.se", "strip13.se.b256", "strip18.se.rs.nr.bs.lc.ps.ea.rw.b256", "strip14.se.rs.nr.bs.lc.ps.ea.rw.sh", "strip14.se.rs.nr.bs.lc.ps.ea.rw.sh.fl.u2"} {
		t.Setenv(VariantEnv, v)
		for _, M := range []int{513, 1000, 1537, 3000} {
			for i, mode := range modes {
				compareGPU(t, ctxs, v+" "+mode, randomProfile(rng, amino, M, mode, (M+i)%2 == 1), prot, protDB)
			}
		}
		compareGPU(t, ctxs, v+" free deletes", freeDeleteProfile(rng, amino, 2000), prot, protDB)
		compareGPU(t, ctxs, v+" pkinase10.hmm2.gz", readProfile(t, "pkinase10.hmm2.gz"), prot, protDB)
		compareGPU(t, ctxs, v+" wrap-around", wrapProfile(rng, amino, 600), prot, protDB)
		compareGPU(t, ctxs, v+" dead deletes", deadDeleteProfile(rng, amino, 1000, "fs"), prot, protDB)
		// Multi-domain targets: the wavefront lists them, the exact
		// build rescores them.
		for _, mode := range modes {
			p := randomProfile(rng, amino, 700, mode, false)
			compareGPU(t, ctxs, v+" planted "+mode, p, append(plantedSeqs(rng, p, 40), prot[:500]...), nil)
		}
	}
}

// TestGPUOneStripMatchesCPU runs one strip (ostrip: the strip kernel
// with W == 1, B speculated from N; ostrip2: two targets a warp) where
// it applies, 32 <= M <= 512 (ostripw: 512 < M <= 672, C = 17-21):
// every mode, short ranks, planted two-domain targets (listed and
// rescored), free and dead deletes, wrap-around (the build with D
// passes), targets to 20,000 residues.
func TestGPUOneStripMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	ctxs := []*cuda.Context{ctx}
	rng := rand.New(rand.NewSource(33))
	amino := plan7.NewAlphabet(plan7.Amino)
	prot := randomSeqs(rng, amino, 3000, 600)
	for _, L := range []int{0, 1, 2, 31, 32, 33, 1000, 5000, 20000} {
		prot = append(prot, randomSeqs(rng, amino, 1, 0)[0][:0])
		for j := 0; j < L; j++ {
			prot[len(prot)-1] = append(prot[len(prot)-1], byte(rng.Intn(amino.Size)))
		}
	}
	protDB := gpudb.New(ctx, prot)
	defer protDB.Free()
	for _, v := range []string{"ostrip", "ostrip.eg", "ostrip2", "ostripw"} {
		t.Setenv(VariantEnv, v)
		ms, m := []int{32, 33, 100, 257, 300, 511, 512}, 300 // (m: the single models' length)
		if v == "ostripw" {
			ms, m = []int{513, 545, 576, 600, 640, 672}, 600
		}
		for _, M := range ms {
			for i, mode := range modes {
				compareGPU(t, ctxs, fmt.Sprintf("%s M=%d %s", v, M, mode), randomProfile(rng, amino, M, mode, (M+i)%2 == 1), prot, protDB)
			}
		}
		compareGPU(t, ctxs, v+" pkinase.hmm2", readProfile(t, "pkinase.hmm2"), prot, protDB)
		compareGPU(t, ctxs, v+" free deletes", freeDeleteProfile(rng, amino, m), prot, protDB)
		compareGPU(t, ctxs, v+" wrap-around", wrapProfile(rng, amino, m), prot, protDB)
		compareGPU(t, ctxs, v+" dead deletes", deadDeleteProfile(rng, amino, m, "fs"), prot, protDB)
		for _, mode := range modes {
			p := randomProfile(rng, amino, m, mode, false)
			compareGPU(t, ctxs, v+" planted "+mode, p, append(plantedSeqs(rng, p, 40), prot[:500]...), nil)
		}
	}
}

// TestGPUThroughput measures the kernel on a resident synthetic database
// (HMMGO_GPU_BENCH=residues, at least 1e8 for numbers worth reporting)
// and prints GCUPS (M x residues per second of kernel time), then the
// streamed path (packing and transfers included) for one model.
func TestGPUThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_GPU_BENCH"))
	if n == 0 {
		t.Skip("set HMMGO_GPU_BENCH=<residues> to measure GPU throughput")
	}
	ctx := testutil.GPUContext(t)
	amino := plan7.NewAlphabet(plan7.Amino)
	rng := rand.New(rand.NewSource(1))
	var seqs [][]byte
	total := 0
	for total < n {
		// Swiss-Prot-like lengths: log-normal around 300.
		L := int(math.Exp(rng.NormFloat64()*0.6+5.6)) + 1
		s := make([]byte, L)
		for j := range s {
			s[j] = byte(rng.Intn(amino.Size))
		}
		seqs = append(seqs, s)
		total += L
	}
	db := gpudb.New(ctx, seqs)
	defer db.Free()
	d := ctx.Device()
	// HMMGO_HMM2_VARIANTS lists the kernel variants to time side by side
	// (default: the first kernel and the default variant).
	variants := benchVariants([]string{"v1", DefaultVariant})
	ms := []int{100, 300, 500, 1000, 1500, 2000, 3000}
	if e := os.Getenv("HMMGO_HMM2_MS"); e != "" {
		ms = nil
		for _, f := range strings.Split(e, ",") {
			M, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, M)
		}
	}
	fmt.Printf("%s: %d sequences, %d residues resident; GCUPS = M x residues / kernel time\n", d.Name, len(seqs), total)
	fmt.Printf("%-6s %-7s %-34s %5s %6s %4s %10s %10s %10s\n", "M", "variant", "shape", "regs", "spill", "wsm", "kernel_s", "wall_s", "GCUPS")
	out := make([]int32, len(seqs))
	want := make([]int32, len(seqs))
	best := map[string]string{}
	var labels []string
	// timeModel times every variant on p, labelled by its length.
	timeModel := func(label string, p *plan7.Profile) {
		M := p.M
		labels = append(labels, label)
		bestG := 0.0
		timed := map[Shape]string{} // shape -> the variant that timed it
		for vi, v := range variants {
			if s, _ := ShapeVariant(M, v); timed[s] != "" {
				fmt.Printf("%-6s %-7s (same shape as %s)\n", label, v, timed[s])
				continue
			} else {
				timed[s] = v
			}
			k, err := NewKernelVariant(ctx, p, v)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.ScoreDB(db, out); err != nil { // layout upload and first launch
				t.Fatal(err)
			}
			// Every variant must give the first one's scores (checked
			// against the CPU by TestGPUMatchesCPU).
			if vi == 0 {
				copy(want, out)
			} else if bad := countDiff(out, want); bad > 0 {
				t.Errorf("%s: variant %s differs from %s on %d of %d sequences", label, v, variants[0], bad, len(seqs))
			}
			k.KernelTime, k.flagged = 0, 0
			t0 := time.Now()
			if err := k.ScoreDB(db, out); err != nil {
				t.Fatal(err)
			}
			wall := time.Since(t0)
			sh := k.Shape
			fn := k.fn
			if k.fnScan != nil {
				fn = k.fnScan
			}
			regs, _ := fn.Attribute(cuda.FuncNumRegs)
			spill, _ := fn.Attribute(cuda.FuncLocalSizeBytes)
			g := float64(total) * float64(M) / k.KernelTime.Seconds() / 1e9
			scan := ""
			if k.fnScan != nil { // the scan to this length, D passes above
				scan = fmt.Sprintf(" L<=%d", k.scanMax)
			}
			fmt.Printf("%-6s %-7s %-34s %5d %6d %4d %10.3f %10.3f %10.1f\n", label, v,
				fmt.Sprintf("T=%d W=%d C=%d NS=%d G=%d B=%d %s%s", sh.T, sh.W, sh.C, sh.ns(), sh.ngrp(), sh.Block, sh.tables(), scan),
				regs, spill, residentWarps(d, sh, regs), k.KernelTime.Seconds(), wall.Seconds(), g)
			if sh.Wave { // (the exact build's rescoring is in the kernel time)
				fmt.Printf("%-6s %-7s wave: %d of %d targets listed for the exact build (%.4f %%)\n", label, v, k.Flagged(), len(seqs), 100*float64(k.Flagged())/float64(len(seqs)))
			}
			if g > bestG {
				bestG, best[label] = g, fmt.Sprintf("%s %.1f", v, g)
			}
			k.Close()
		}
	}
	for _, M := range ms {
		timeModel(strconv.Itoa(M), randomProfile(rng, amino, M, "ls", false))
	}
	// HMMGO_HMM2_MODELS: test models (testdata/hmmer2/models) timed
	// after the random ones, labelled name:M.
	if e := os.Getenv("HMMGO_HMM2_MODELS"); e != "" {
		for _, name := range strings.Split(e, ",") {
			p := readProfile(t, name)
			timeModel(fmt.Sprintf("%s:%d", strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".hmm2"), p.M), p)
		}
	}
	fmt.Printf("fastest variant per M (GCUPS):")
	for _, l := range labels {
		fmt.Printf(" %s:%s;", l, best[l])
	}
	fmt.Println()
	// Streamed, as hmm2search --gpu sends its chunks.
	p := randomProfile(rng, amino, 300, "ls", false)
	sc, err := NewScorer([]*cuda.Context{ctx}, p)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	t0 := time.Now()
	for start := 0; start < len(seqs); start += 4096 {
		end := min(start+4096, len(seqs))
		if err := sc.Score(seqs[start:end], out[start:end]); err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Since(t0)
	fmt.Printf("streamed in chunks of 4096 sequences, M=300: %.3f s, %.1f GCUPS\n", wall.Seconds(), float64(total)*300/wall.Seconds()/1e9)
}

// benchVariants are the variants $HMMGO_HMM2_VARIANTS lists, else def.
func benchVariants(def []string) []string {
	if e := os.Getenv("HMMGO_HMM2_VARIANTS"); e != "" {
		return strings.Split(e, ",")
	}
	return def
}

// residentWarps estimates the warps of shape s that fit a multiprocessor
// with regs registers a thread: whole blocks, limited by registers
// (allocated per warp in multiples of 256), shared memory (1 KiB
// reserved per block) and threads. For the benchmark's table only.
func residentWarps(d *cuda.Device, s Shape, regs int) int {
	warps := s.Block / 32
	blocks := d.MaxThreadsPerSM / s.Block
	if perWarp := (regs*32 + 255) / 256 * 256; perWarp > 0 {
		blocks = min(blocks, d.RegistersPerSM/perWarp/warps)
	}
	if sb := s.SharedBytes(); sb > 0 {
		blocks = min(blocks, d.SharedMemPerSM/(sb+1024))
	}
	return blocks * warps
}
