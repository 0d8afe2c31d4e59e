package fwdback

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// batchJobs makes a batch of queries of different sizes and alphabets,
// each with its own selection of targets (empty ones included).
func batchJobs(rng *rand.Rand) []BatchJob {
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	var jobs []BatchJob
	for _, v := range []struct {
		abc   *alphabet.Alphabet
		M     int
		heavy bool
	}{{amino, 6, false}, {amino, 130, true}, {dna, 40, false}, {amino, 64, false}, {amino, 1, false}} {
		h := testmodels.RandomHMM(rng, v.abc, v.M)
		if v.heavy {
			h = deletionHeavy(h)
		}
		dsqs := randomTargets(rng, h, 30, 160)
		dsqs = append(dsqs, homolog(rng, h, 4))
		want := make([]bool, len(dsqs))
		for i := range want {
			want[i] = rng.Intn(3) > 0
		}
		want[0], want[len(want)-1] = true, true // an empty target, a homolog
		jobs = append(jobs, BatchJob{OM: optimizedProfile(h), Targets: dsqs, Want: want})
	}
	jobs[3].Want = nil // every target
	return jobs
}

// checkBatch compares a batch's results with Forward, target by target.
func checkBatch(t *testing.T, what string, jobs []BatchJob, got []BatchResult) {
	t.Helper()
	for j, job := range jobs {
		want, wantErr := cpuScores(job.OM, job.Targets, ownLengths(job.Targets))
		for i := range job.Targets {
			if job.Want != nil && !job.Want[i] {
				want[i], wantErr[i] = 0, nil
			}
		}
		compareScores(t, fmt.Sprintf("%s job %d (M=%d)", what, j, job.OM.M), job.Targets, got[j].Scores, got[j].Errs, want, wantErr)
	}
}

// The block table of a batch: each block's targets belong to its job,
// every selected non-empty target is in exactly one block, and blocks come
// longest work first.
func TestPackJobs(t *testing.T) {
	jobs := batchJobs(rand.New(rand.NewSource(5)))
	bp, err := newBatchPlan(jobs)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, len(bp.dsqs))
	prev := int64(-1)
	for b := 0; b < bp.packed.NBlocks; b++ {
		e := bp.packed.Table[b*gpudb.BlockBytes:]
		j := int(bp.bjob[b])
		maxLen := int(binary.LittleEndian.Uint32(e[256:]))
		work := int64(maxLen) * int64(bp.plans[j].Q)
		if prev >= 0 && work > prev {
			t.Errorf("block %d: work %d after %d", b, work, prev)
		}
		prev = work
		for g := 0; g < int(binary.LittleEndian.Uint32(e[260:])); g++ {
			k := int(binary.LittleEndian.Uint32(e[4*g:]))
			if k < bp.first[j] || k >= bp.first[j+1] {
				t.Errorf("block %d of job %d holds target %d (job's: %d..%d)", b, j, k, bp.first[j], bp.first[j+1]-1)
			}
			if l := int(binary.LittleEndian.Uint32(e[128+4*g:])); l != len(bp.dsqs[k]) || l > maxLen {
				t.Errorf("block %d: target %d length %d, has %d (max %d)", b, k, l, len(bp.dsqs[k]), maxLen)
			}
			seen[k]++
		}
	}
	for k, d := range bp.dsqs {
		if want := min(1, len(d)); seen[k] != want {
			t.Errorf("target %d (L=%d) in %d blocks", k, len(d), seen[k])
		}
	}
}

// fwd_multi_kernel itself, run on the CPU (see cudacpu_test.go): a batch
// of five queries in one launch, in both state placements, with the plain
// row walk and the chunked one (chunks of 3, 4 and 16 steps: Q is rarely
// a multiple, so full chunks and the one-step tail both run), gives every
// selected target Forward's score bit for bit.
func TestMultiKernelOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	jobs := batchJobs(rand.New(rand.NewSource(29)))
	bp, err := newBatchPlan(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		stateShared bool
		pipe        int
	}{{true, 0}, {false, 0}, {true, 3}, {false, 4}, {true, 4}, {false, 16}} {
		stateShared := v.stateShared
		exe := filepath.Join(t.TempDir(), "multi")
		b2i := map[bool]int{false: 0, true: 1}
		cmd := exec.Command(cc, "-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing", "-msse2",
			"-DBLOCK=64", "-DPROF_SHARED=0", fmt.Sprintf("-DSTATE_SHARED=%d", b2i[stateShared]), fmt.Sprintf("-DFWD_PIPE=%d", v.pipe),
			"-I", ".", "-I", filepath.Join("testdata", "cudacpu"),
			"-I", filepath.Join(testutil.RepoRoot(t), "internal", "cudacpu"), "-o", exe, filepath.Join("testdata", "cudacpu", "multi.cc"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("compiling fwd_multi_kernel with the CPU shim: %v\n%s", err, out)
		}
		// Two blocks of two warps: the warps come back for more work and
		// switch profiles between blocks.
		warps, grid := 2, 2
		stw := 4 * 3 * bp.qmax * 32
		shared, stateFloats := 0, 0
		if stateShared {
			shared = warps * stw
		} else {
			stateFloats = grid * warps * stw / 4
		}
		res := bp.residues()
		var in cudacpu.Input
		in.Put([]int32{int32(len(jobs)), int32(bp.packed.NBlocks), int32(len(bp.dsqs)), int32(grid), int32(shared), int32(res), int32(bp.qmax)})
		in.Put(int64(stateFloats))
		bjob := new(bytes.Buffer)
		binary.Write(bjob, binary.LittleEndian, bp.bjob)
		in.Arrays(bp.jobTab, bjob.Bytes(), bytesOf(bp.trans), bytesOf(bp.odds), bp.packed.Res, bp.packed.Table, bytesOf(bp.loop))
		raw := cudacpu.Run(t, exe, "multi kernel", &in)
		n := len(bp.dsqs)
		if len(raw) < 4*n+4 {
			t.Fatalf("kernel output: %d bytes for %d targets", len(raw), n)
		}
		nrec := int(binary.LittleEndian.Uint32(raw[4*n:]))
		if nrec == 0 || nrec > res || len(raw) != 4*n+4+scaleRecordBytes*nrec {
			t.Fatalf("kernel output: %d records, %d bytes", nrec, len(raw))
		}
		got, err := bp.assemble(floatsOf(raw[:4*n]), decodeScaleRecords(raw[4*n+4:]))
		if err != nil {
			t.Fatal(err)
		}
		checkBatch(t, fmt.Sprintf("state shared=%v pipe=%d", stateShared, v.pipe), jobs, got)
	}
}

// A job whose profile the kernel cannot reproduce is computed on the CPU,
// the others still on the kernel's path.
func TestBatchPlanCPUJob(t *testing.T) {
	jobs := batchJobs(rand.New(rand.NewSource(31)))[:2]
	bp, err := newBatchPlan(jobs)
	if err != nil {
		t.Fatal(err)
	}
	bp.plans[1] = nil // as if its profile had a subnormal value
	got, err := bp.assemble(make([]float32, len(bp.dsqs)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, wantErr := cpuScores(jobs[1].OM, jobs[1].Targets, ownLengths(jobs[1].Targets))
	for i := range jobs[1].Targets {
		if !jobs[1].Want[i] {
			want[i], wantErr[i] = 0, nil
		}
	}
	compareScores(t, "CPU job", jobs[1].Targets, got[1].Scores, got[1].Errs, want, wantErr)
}

// asIndex turns a job's Want into the Index naming the same targets.
func asIndex(job BatchJob) BatchJob {
	job.Index = []int{}
	for i := range job.Targets {
		if job.Want == nil || job.Want[i] {
			job.Index = append(job.Index, i)
		}
	}
	job.Want = nil
	return job
}

// A batch whose jobs name their targets by Index is planned exactly as
// the same batch by Want (same block table, residues and profiles: the
// kernel does the same operations), and its results are the Want
// results' selected entries, in Index order.
func TestBatchIndexMatchesWant(t *testing.T) {
	jobs := batchJobs(rand.New(rand.NewSource(37)))
	byIndex := make([]BatchJob, len(jobs))
	for j, job := range jobs {
		byIndex[j] = asIndex(job)
	}
	a, err := newBatchPlan(jobs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBatchPlan(byIndex)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.packed.Table, b.packed.Table) || !bytes.Equal(a.packed.Res, b.packed.Res) || !bytes.Equal(a.jobTab, b.jobTab) ||
		fmt.Sprint(a.bjob, a.first, a.trans, a.odds, a.loop) != fmt.Sprint(b.bjob, b.first, b.trans, b.odds, b.loop) {
		t.Fatal("plans by Index and by Want differ")
	}
	// Any outputs will do: the same for both plans.
	rng := rand.New(rand.NewSource(3))
	outC := make([]float32, len(a.dsqs))
	for i := range outC {
		outC[i] = rng.Float32() + 0.5
	}
	ra, err := a.assemble(outC, nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.assemble(outC, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j := range jobs {
		if len(rb[j].Scores) != len(byIndex[j].Index) {
			t.Fatalf("job %d: %d results for %d targets", j, len(rb[j].Scores), len(byIndex[j].Index))
		}
		for k, i := range byIndex[j].Index {
			if ra[j].Scores[i] != rb[j].Scores[k] || (ra[j].Errs[i] == nil) != (rb[j].Errs[k] == nil) {
				t.Errorf("job %d target %d: %v (%v) by Index, %v (%v) by Want", j, i, rb[j].Scores[k], rb[j].Errs[k], ra[j].Scores[i], ra[j].Errs[i])
			}
		}
	}
	bad := []BatchJob{{OM: jobs[0].OM, Targets: jobs[0].Targets, Index: []int{len(jobs[0].Targets)}}}
	if _, err := newBatchPlan(bad); err == nil {
		t.Error("an Index past the targets was accepted")
	}
}
