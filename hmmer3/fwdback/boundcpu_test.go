package fwdback

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// These tests run fwdbound.cu itself on the CPU (testdata/cudacpu/bound.cc
// with the shim, flush-to-zero SSE arithmetic standing in for -ftz=true)
// and check every score against Forward's to within BoundMargin.

// buildBoundShim compiles fwdbound.cu with the shim; mutate sets
// FB_MUTATE (0: the kernel as shipped), regs FB_REGS, unroll FB_U.
func buildBoundShim(t *testing.T, mutate int, regs bool, unroll int) string {
	t.Helper()
	cc := cudacpu.Compiler(t, "fwdbound.cu")
	files := map[string]string{}
	if err := cudacpu.ReadFiles(files, "fwdbound.cu", filepath.Join("testdata", "cudacpu", "shim.h")); err != nil {
		t.Fatal(err)
	}
	drv, err := os.ReadFile(filepath.Join("testdata", "cudacpu", "bound.cc"))
	if err != nil {
		t.Fatal(err)
	}
	files["driver.cc"] = string(drv)
	exe, err := cudacpu.Compile(cc, t.TempDir(), "boundcpu", files, "-O2", "-ffp-contract=off", "-fno-strict-aliasing", "-msse2",
		fmt.Sprintf("-DFB_MUTATE=%d", mutate), fmt.Sprintf("-DFB_REGS=%d", map[bool]int{false: 0, true: 1}[regs]), fmt.Sprintf("-DFB_U=%d", unroll))
	if err != nil {
		t.Fatalf("compiling fwdbound.cu with the CPU shim: %v", err)
	}
	return exe
}

// boundOnCPU runs ForwardBoundBatch's plan, kernel and assembly with the
// kernel on the CPU (compiled with FB_REGS=regs): warps warps a block,
// grid blocks.
func boundOnCPU(t *testing.T, exe string, regs bool, jobs []BatchJob, warps, grid int) ([]BatchResult, *boundPlan) {
	t.Helper()
	bp, err := newBoundPlan(jobs, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	ntasks := len(bp.taskOf)
	if ntasks == 0 {
		return bp.assemble(nil, nil), bp
	}
	var in cudacpu.Input
	in.Put([]int32{int32(len(jobs)), int32(ntasks), int32(grid), int32(32 * warps), int32(bp.boundStateC(regs)), int32(warps * boundStateBytes(bp.boundStateC(regs)))})
	in.Arrays(bp.jobTab, bp.tasks, bytesOf(bp.trans), bytesOf(bp.odds), bp.res)
	raw := cudacpu.Run(t, exe, "fwdbound_kernel", &in)
	if len(raw) != 8*ntasks {
		t.Fatalf("kernel output: %d bytes for %d tasks", len(raw), ntasks)
	}
	outC := floatsOf(raw[:4*ntasks])
	outExp := make([]int32, ntasks)
	for k := range outExp {
		outExp[k] = int32(binary.LittleEndian.Uint32(raw[4*ntasks+4*k:]))
	}
	return bp.assemble(outC, outExp), bp
}

// boundStats collects |bound score - Forward| against BoundMargin.
type boundStats struct {
	n, errBoth, over int
	worst            float64 // largest |diff| / margin
	worstDiff        float64
	worstWhat        string
	maxL, maxM       int
}

// check compares one job's results with Forward on the CPU.
func (s *boundStats) check(t *testing.T, what string, job BatchJob, got BatchResult) {
	t.Helper()
	want, wantErr := cpuScores(job.OM, job.Targets, ownLengths(job.Targets))
	for i, d := range job.Targets {
		if job.Want != nil && !job.Want[i] {
			continue
		}
		s.n++
		s.maxL, s.maxM = max(s.maxL, len(d)), max(s.maxM, job.OM.M)
		if got.Errs[i] != nil || wantErr[i] != nil {
			if (got.Errs[i] == nil) != (wantErr[i] == nil) {
				t.Errorf("%s target %d (L=%d): error %v, Forward's %v", what, i, len(d), got.Errs[i], wantErr[i])
			}
			s.errBoth++
			continue
		}
		if len(d) == 0 {
			if math.Float32bits(got.Scores[i]) != math.Float32bits(want[i]) {
				t.Errorf("%s empty target %d: %v, Forward %v", what, i, got.Scores[i], want[i])
			}
			continue
		}
		diff := math.Abs(float64(got.Scores[i]) - float64(want[i]))
		m := float64(BoundMargin(len(d), job.OM.M, got.Scores[i]))
		if r := diff / m; r > s.worst || math.IsNaN(r) {
			s.worst, s.worstDiff, s.worstWhat = r, diff, fmt.Sprintf("%s target %d (L=%d, score %v)", what, i, len(d), want[i])
		}
		if !(diff <= m) {
			s.over++
			if s.over <= 5 {
				t.Errorf("%s target %d (L=%d): %v, Forward %v: |diff| %.3g > margin %.3g", what, i, len(d), got.Scores[i], want[i], diff, m)
			}
		}
	}
}

func (s *boundStats) log(t *testing.T) {
	t.Logf("%d targets (L <= %d, M <= %d; %d errors on both sides): largest |diff|/margin %.3g (|diff| %.3g nats, %s)",
		s.n, s.maxL, s.maxM, s.errBoth, s.worst, s.worstDiff, s.worstWhat)
}

// lowComplexity is a short random motif repeated to length L.
func lowComplexity(rng *rand.Rand, abc *alphabet.Alphabet, L int) []byte {
	motif := testmodels.RandomDsq(rng, abc, 1+rng.Intn(4))
	d := make([]byte, L)
	for i := range d {
		d[i] = motif[i%len(motif)]
	}
	return d
}

// boundTargets is a mix for model h: random targets of every length scale,
// homologs (rescaled rows, many hits), one-residue and low-complexity runs.
func boundTargets(rng *rand.Rand, h *hmm.HMM, n, maxLen int) [][]byte {
	abc := h.Alph
	ds := [][]byte{{}, testmodels.RandomDsq(rng, abc, 1), testmodels.RandomDsq(rng, abc, 2)}
	for len(ds) < n {
		L := 1 + rng.Intn(maxLen)
		switch rng.Intn(6) {
		case 0:
			ds = append(ds, homolog(rng, h, 1+rng.Intn(3)))
		case 1:
			ds = append(ds, lowComplexity(rng, abc, L))
		case 2:
			ds = append(ds, make([]byte, L)) // all the first residue
		default:
			ds = append(ds, testmodels.RandomDsq(rng, abc, L))
		}
	}
	return ds
}

// runBoundJobs runs jobs through the shim and checks them all.
func runBoundJobs(t *testing.T, exe string, regs bool, jobs []BatchJob, st *boundStats) {
	t.Helper()
	got, bp := boundOnCPU(t, exe, regs, jobs, 2, 3)
	for j, job := range jobs {
		if !bp.onGPU[j] {
			t.Errorf("job %d (M=%d, alphabet %v) was left to the CPU", j, job.OM.M, job.OM.Abc.Type)
		}
		st.check(t, fmt.Sprintf("job %d (M=%d alphabet %v)", j, job.OM.M, job.OM.Abc.Type), job, got[j])
	}
}

func TestBoundKernelOnCPU(t *testing.T) {
	t.Parallel()
	exe, shared := buildBoundShim(t, 0, true, 4), buildBoundShim(t, 0, false, 8)
	rng := rand.New(rand.NewSource(29))
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	var st boundStats
	// Model lengths around every chunk size change: the register variants
	// (C = 1..6, 8), the shared-memory path (C = 12, 16, 32, 80) and, with
	// FB_REGS=0 and FB_U=8, that path with chunks that are not multiples
	// of its unrolling; several queries a launch, as ForwardBoundBatch
	// sends them.
	for _, v := range []struct {
		Ms   []int
		regs bool
	}{
		{[]int{1, 2, 3, 31, 32, 33}, true}, {[]int{63, 64, 65, 100, -150, 192, 193, 256}, true},
		{[]int{257, -400, 512, 1000}, true}, {[]int{2500}, true},
		{[]int{1, 33, 100, -150, 200, 300, 1000}, false},
	} {
		var jobs []BatchJob
		for _, M := range v.Ms {
			h, M := modelOfSize(rng, amino, M)
			n, maxLen := 50, 600
			if M >= 1000 {
				n, maxLen = 12, 5000
			}
			jobs = append(jobs, BatchJob{OM: optimizedProfile(h), Targets: boundTargets(rng, h, n, maxLen)})
		}
		e := exe
		if !v.regs {
			e = shared
		}
		runBoundJobs(t, e, v.regs, jobs, &st)
	}
	// A DNA model and targets up to 5,000 long, with selections and Index.
	h := testmodels.RandomHMM(rng, dna, 90)
	ts := boundTargets(rng, h, 40, 5000)
	want := make([]bool, len(ts))
	for i := range want {
		want[i] = i%3 != 0
	}
	jobs := []BatchJob{{OM: optimizedProfile(h), Targets: ts, Want: want}}
	runBoundJobs(t, exe, true, jobs, &st)
	idx := []int{5, 1, 5, 0, 9}
	got, _ := boundOnCPU(t, exe, true, []BatchJob{{OM: jobs[0].OM, Targets: ts, Index: idx}}, 1, 2)
	ref, _ := boundOnCPU(t, exe, true, []BatchJob{{OM: jobs[0].OM, Targets: ts}}, 1, 2)
	for k, i := range idx {
		if got[0].Scores[k] != ref[0].Scores[i] {
			t.Errorf("Index %d (target %d): %v, without Index %v", k, i, got[0].Scores[k], ref[0].Scores[i])
		}
	}
	st.log(t)
	if st.worst > 0.5 {
		t.Errorf("largest |diff|/margin %.3g: the margin has little room left", st.worst)
	}
}

// The real models: the package's fixtures, and the 24 CUDAMPF query models
// (M = 100..2405) when the shared data is present.
func TestBoundKernelOnCPURealModels(t *testing.T) {
	t.Parallel()
	exe := buildBoundShim(t, 0, true, 4)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	models := testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz"))
	cudampf := filepath.Join(testutil.RepoRoot(t), "..", "shared", "data", "CUDAMPF", "query_models")
	if d := os.Getenv("HMMGO_SHARED_DATA"); d != "" {
		cudampf = filepath.Join(d, "CUDAMPF", "query_models")
	}
	if _, err := os.Stat(cudampf); err == nil {
		models = append(models, testmodels.ReadModels(t, filepath.Join(cudampf, "*.hmm.gz"))...)
	} else {
		t.Logf("CUDAMPF models not present (%v): package fixtures only", err)
	}
	rng := rand.New(rand.NewSource(31))
	var st boundStats
	var jobs []BatchJob
	for _, h := range models {
		ts := prot
		if h.Alph.Type == alphabet.DNA {
			ts = nuc
		}
		n := 24
		if h.M > 1000 {
			n = 6
		}
		mine := append([][]byte(nil), ts[:min(len(ts), n)]...)
		mine = append(mine, homolog(rng, h, 2), lowComplexity(rng, h.Alph, 300))
		jobs = append(jobs, BatchJob{OM: optimizedProfile(h), Targets: mine})
		if len(jobs) == 6 {
			runBoundJobs(t, exe, true, jobs, &st)
			jobs = nil
		}
	}
	if len(jobs) > 0 {
		runBoundJobs(t, exe, true, jobs, &st)
	}
	st.log(t)
	if st.worst > 0.5 {
		t.Errorf("largest |diff|/margin %.3g: the margin has little room left", st.worst)
	}
}

// Mutations of the kernel that the comparison must catch, on both paths.
func TestBoundKernelMutationsFail(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(37))
	amino := alphabet.New(alphabet.Amino)
	h := deletionHeavy(testmodels.RandomHMM(rng, amino, 150))
	plain := testmodels.RandomHMM(rng, amino, 90)
	long := testmodels.RandomHMM(rng, amino, 300)
	jobs := []BatchJob{{OM: optimizedProfile(h), Targets: boundTargets(rng, h, 24, 400)},
		{OM: optimizedProfile(plain), Targets: boundTargets(rng, plain, 24, 400)},
		{OM: optimizedProfile(long), Targets: boundTargets(rng, long, 24, 400)}}
	for _, m := range []struct {
		mutate int
		what   string
	}{{1, "no D carry between lanes"}, {2, "no D in E"}} {
		exe := buildBoundShim(t, m.mutate, true, 4)
		got, _ := boundOnCPU(t, exe, true, jobs, 2, 2)
		for j, job := range jobs {
			want, wantErr := cpuScores(job.OM, job.Targets, ownLengths(job.Targets))
			over := 0
			for i, d := range job.Targets {
				if len(d) == 0 || wantErr[i] != nil || got[j].Errs[i] != nil {
					continue
				}
				if math.Abs(float64(got[j].Scores[i]-want[i])) > float64(BoundMargin(len(d), job.OM.M, got[j].Scores[i])) {
					over++
				}
			}
			t.Logf("%s, M=%d (C=%d): %d targets outside the margin", m.what, job.OM.M, boundChunk(job.OM.M), over)
			if over == 0 {
				t.Errorf("%s, M=%d: every score within the margin; the test cannot see this bug", m.what, job.OM.M)
			}
		}
	}
}

func TestBoundMargin(t *testing.T) {
	inf := float32(math.Inf(1))
	prev := float32(0)
	for _, L := range []int{0, 1, 10, 100, 1000, 5000} {
		m := BoundMargin(L, 150, -10)
		if !(m > prev) || m == inf {
			t.Errorf("BoundMargin(%d, 150, -10) = %v after %v: not increasing in L", L, m, prev)
		}
		prev = m
	}
	prev = 0
	for _, M := range []int{1, 10, 100, 1000, 2500} {
		m := BoundMargin(300, M, 5)
		if !(m > prev) || m == inf {
			t.Errorf("BoundMargin(300, %d, 5) = %v after %v: not increasing in M", M, m, prev)
		}
		prev = m
	}
	if a, b, c := BoundMargin(300, 150, 0), BoundMargin(300, 150, -50), BoundMargin(300, 150, 50); !(a < b && b == c) {
		t.Errorf("margins at scores 0, -50, 50: %v %v %v: want growing with |score|", a, b, c)
	}
	if m := BoundMargin(350, 150, 20); m > 0.1 {
		t.Errorf("BoundMargin(350, 150, 20) = %v: too wide to be of use", m)
	}
	for _, c := range []struct {
		L, M int
		s    float32
	}{{100000, 100000, 0}, {40000, 1000, 0}, {300, 150, float32(math.NaN())}, {300, 150, inf}, {-1, 150, 0}} {
		if m := BoundMargin(c.L, c.M, c.s); m != inf {
			t.Errorf("BoundMargin(%d, %d, %v) = %v, want +Inf", c.L, c.M, c.s, m)
		}
	}
	t.Logf("margins at score 20: L=350 M=150 %.4f, L=1000 M=400 %.4f, L=5000 M=2405 %.4f nats",
		BoundMargin(350, 150, 20), BoundMargin(1000, 400, 20), BoundMargin(5000, 2405, 20))
}

// TestBoundKernelCompilesForNVPTX compiles fwdbound.cu for a GPU with
// clang's NVPTX back end, both FB_REGS variants, and checks that nothing
// was contracted into a multiply-add and nothing went to local memory
// (a register array indexed at run time). It skips without clang.
func TestBoundKernelCompilesForNVPTX(t *testing.T) {
	t.Parallel()
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang not on PATH: device compilation of fwdbound.cu not checked")
	}
	out := filepath.Join(t.TempDir(), "out.ptx")
	for _, regs := range []int{1, 0} {
		args := []string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_80",
			"-Xclang", "-target-feature", "-Xclang", "+ptx70", "-ffp-contract=off", "-O2", "-S", "-o", out,
			"-include", filepath.Join("testdata", "cudacpu", "nvptx.h"), fmt.Sprintf("-DFB_REGS=%d", regs), "fwdbound.cu"}
		if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			t.Skipf("clang cannot compile CUDA for NVPTX here: %v\n%s", err, msg)
		}
		ptx, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"fma.", "ld.local", "st.local"} {
			if strings.Contains(string(ptx), bad) {
				t.Errorf("FB_REGS=%d: the PTX has %q", regs, bad)
			}
		}
		if !strings.Contains(string(ptx), ".entry fwdbound_kernel") {
			t.Errorf("FB_REGS=%d: no fwdbound_kernel entry in the PTX", regs)
		}
	}
}

// boundLoopMove gives lengthConfig's bits without copying the profile.
func TestBoundLoopMove(t *testing.T) {
	h := testmodels.RandomHMM(rand.New(rand.NewSource(3)), alphabet.New(alphabet.Amino), 50)
	om := optimizedProfile(h)
	for _, unihit := range []bool{false, true} {
		if unihit {
			om.ReconfigUnihit(om.L)
		}
		for L := 0; L <= 40000; L++ {
			lm, err := lengthConfig(om, L)
			if err != nil {
				t.Fatal(err)
			}
			loop, move := boundLoopMove(om, L)
			if math.Float32bits(loop) != math.Float32bits(lm[0]) || math.Float32bits(move) != math.Float32bits(lm[1]) ||
				math.Float32bits(1-move) != math.Float32bits(loop) {
				t.Fatalf("unihit %v L=%d: %v %v, lengthConfig %v", unihit, L, loop, move, lm)
			}
		}
	}
}
