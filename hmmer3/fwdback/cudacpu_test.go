package fwdback

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// These tests run fwd.cu itself, not a transcription of it, on the CPU:
// testdata/cudacpu/shim.h with internal/cudacpu/emu.h stands in for the
// CUDA built-ins (each GPU thread a coroutine, shuffles and votes
// exchanged between the 32 lanes of a warp), and the host's SSE arithmetic
// in flush-to-zero mode stands in for the GPU's -ftz=true single
// precision. They check the kernel's indexing, lane exchanges,
// warp-uniform control flow, padding and records against Forward, through
// the same plan, packing and assembly code the GPU path uses. What they
// cannot check is NVRTC and the device; gpu_test.go does that on a GPU
// host.

// shimCompiler returns a C++ compiler, or skips.
func shimCompiler(t *testing.T) string { return cudacpu.Compiler(t, "fwd.cu") }

// buildShim compiles the kernel with the shim for one shape.
func buildShim(t *testing.T, cc string, s fwdShape) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "fwdcpu")
	b2i := map[bool]int{false: 0, true: 1}
	cmd := exec.Command(cc, "-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing", "-msse2",
		fmt.Sprintf("-DBLOCK=%d", s.Block), fmt.Sprintf("-DPROF_SHARED=%d", b2i[s.ProfShared]), fmt.Sprintf("-DSTATE_SHARED=%d", b2i[s.StateShared]),
		fmt.Sprintf("-DFWD_PIPE=%d", s.Pipe), "-I", ".", "-I", filepath.Join("testdata", "cudacpu"),
		"-I", filepath.Join(testutil.RepoRoot(t), "internal", "cudacpu"), "-o", exe, filepath.Join("testdata", "cudacpu", "driver.cc"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compiling fwd.cu with the CPU shim: %v\n%s", err, out)
	}
	return exe
}

// shimShape is a small launch: warps warps per block, grid blocks.
func shimShape(p *fwdPlan, warps, grid int, profShared, stateShared bool) fwdShape {
	s := fwdShape{Block: 32 * warps, ProfShared: profShared, StateShared: stateShared, grid: grid}
	if profShared {
		s.sharedBytes += p.profileBytes()
	}
	if stateShared {
		s.sharedBytes += warps * p.stateBytesPerWarp()
	}
	return s
}

// runShim runs the compiled kernels over dsqs and returns what the GPU
// path's launch returns; with rows, Backward too and the special rows.
func runShim(t *testing.T, exe string, p *fwdPlan, s fwdShape, dsqs [][]byte, rows bool) (*fwdRun, []int64) {
	t.Helper()
	var idx []int
	residues := 0
	for i, d := range dsqs {
		if len(d) > 0 {
			idx = append(idx, i)
			residues += len(d)
		}
	}
	packed := gpudb.Pack(dsqs, idx, threadsPerTarget)
	xoff, rowFloats := rowOffsets(dsqs, idx)
	if !rows {
		rowFloats = 0
	}
	stateFloats := 0
	if !s.StateShared {
		stateFloats = s.grid * (s.Block / 32) * p.stateBytesPerWarp() / 4
	}
	b2i := map[bool]int32{false: 0, true: 1}
	var in cudacpu.Input
	in.Put([]int32{int32(p.Q), int32(p.QS), int32(p.Kp), b2i[p.Check], int32(packed.NBlocks), int32(len(dsqs)),
		int32(s.grid), int32(s.sharedBytes), int32(residues), b2i[rows]})
	in.Put([]int64{int64(stateFloats), int64(rowFloats)})
	in.Put([]float32{p.EMove, p.ELoop})
	xoffBytes := new(bytes.Buffer)
	binary.Write(xoffBytes, binary.LittleEndian, xoff)
	in.Arrays(bytesOf(p.Trans), bytesOf(p.Odds), packed.Res, packed.Table, bytesOf(p.LoopMove), xoffBytes.Bytes())
	raw := cudacpu.Run(t, exe, "kernel", &in)
	n := len(dsqs)
	if len(raw) < 4*n+4 {
		t.Fatalf("kernel output: %d bytes for %d targets", len(raw), n)
	}
	r := &fwdRun{outC: floatsOf(raw[:4*n])}
	nrec := int(binary.LittleEndian.Uint32(raw[4*n:]))
	recEnd := 4*n + 4 + scaleRecordBytes*nrec
	want := recEnd
	if rows {
		want += 8*rowFloats + 4*n
	}
	if nrec > residues || len(raw) != want {
		t.Fatalf("kernel output: %d records, %d bytes", nrec, len(raw))
	}
	r.recs = decodeScaleRecords(raw[4*n+4 : recEnd])
	if rows {
		r.fx = floatsOf(raw[recEnd : recEnd+4*rowFloats])
		r.bx = floatsOf(raw[recEnd+4*rowFloats : recEnd+8*rowFloats])
		for o := recEnd + 8*rowFloats; o < len(raw); o += 4 {
			r.own = append(r.own, int32(binary.LittleEndian.Uint32(raw[o:])))
		}
	}
	return r, xoff
}

func floatsOf(b []byte) []float32 {
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

func bytesOf(f []float32) []byte {
	b := make([]byte, 4*len(f))
	for i, x := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func checkShim(t *testing.T, exe string, what string, om *oprofile.Profile, s func(*fwdPlan) fwdShape, dsqs [][]byte) {
	t.Helper()
	lengths := ownLengths(dsqs)
	plan, err := newFwdPlan(om, lengths)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := runShim(t, exe, plan, s(plan), dsqs, false)
	got, gotErr, err := assembleScores(plan, dsqs, r.outC, r.recs)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, wantErr := cpuScores(om, dsqs, lengths)
	compareScores(t, what, dsqs, got, gotErr, want, wantErr)
}

func TestKernelSourceOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(17))
	amino := alphabet.New(alphabet.Amino)
	type variant struct {
		name                    string
		profShared, stateShared bool
		Ms                      []int
		pipe                    int // FWD_PIPE: the chunked row walk, whose full chunks and tails these Ms cover
	}
	for _, v := range []variant{
		{"shared", true, true, []int{1, 6, 64, -40}, 0},
		{"state-shared", false, true, []int{120, -130}, 0},
		{"global", false, false, []int{3, 101}, 0},
		{"global+profile", true, false, []int{230}, 0},
		{"shared, chunks of 4", true, true, []int{6, 64, -40}, 4},
		{"global, chunks of 16", false, false, []int{101, -230}, 16},
	} {
		exe := buildShim(t, cc, fwdShape{Block: 64, ProfShared: v.profShared, StateShared: v.stateShared, Pipe: v.pipe})
		for _, M := range v.Ms {
			h, M := modelOfSize(rng, amino, M)
			// Two blocks of two warps: 32 targets at a time, so the 40
			// targets make the warps come back for more work; lengths
			// differ within a warp (padding rows, early-stopping passes).
			dsqs := randomTargets(rng, h, 40, 150)
			dsqs = append(dsqs, testmodels.RandomDsq(rng, amino, 700), homolog(rng, h, 4))
			shape := func(p *fwdPlan) fwdShape { return shimShape(p, 2, 2, v.profShared, v.stateShared) }
			checkShim(t, exe, fmt.Sprintf("%s M=%d", v.name, M), optimizedProfile(h), shape, dsqs)
		}
	}
}

func TestKernelSourceOnCPURealModels(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	exe := buildShim(t, cc, fwdShape{Block: 32, ProfShared: true, StateShared: false})
	shape := func(p *fwdPlan) fwdShape { return shimShape(p, 1, 3, true, false) }
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		dsqs := prot
		if h.Alph.Type == alphabet.DNA {
			dsqs = nuc
		}
		checkShim(t, exe, h.Name, optimizedProfile(h), shape, dsqs[:min(len(dsqs), 16)])
	}
}

// TestKernelCompilesForNVPTX compiles fwd.cu and bwd.cu for a GPU with clang's NVPTX
// back end (no CUDA toolkit needed), every variant, and checks that no
// multiply-add was contracted. It skips where clang cannot target NVPTX.
func TestKernelCompilesForNVPTX(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang not on PATH: device compilation of fwd.cu not checked")
	}
	dir := t.TempDir()
	nvptx := func(src string, defs ...string) ([]byte, error) {
		out := filepath.Join(dir, "out.ptx")
		args := append([]string{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_80",
			"-Xclang", "-target-feature", "-Xclang", "+ptx70", "-ffp-contract=off", "-O2", "-S", "-o", out,
			"-include", filepath.Join("testdata", "cudacpu", "nvptx.h")}, defs...)
		if msg, err := exec.Command(clang, append(args, src)...).CombinedOutput(); err != nil {
			return msg, err
		}
		return os.ReadFile(out)
	}
	probe := filepath.Join(dir, "probe.cu")
	os.WriteFile(probe, []byte("extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffffu, p[0], 1); }\n"), 0o644)
	if msg, err := nvptx(probe); err != nil {
		t.Skipf("clang cannot compile CUDA for NVPTX here: %v\n%s", err, msg)
	}
	// The program as gpu.go builds it: fwd.cu, then bwd.cu.
	prog := filepath.Join(dir, "fwdback.cu")
	wd, _ := os.Getwd()
	os.WriteFile(prog, []byte(fmt.Sprintf("#include \"%s\"\n#include \"%s\"\n", filepath.Join(wd, "fwd.cu"), filepath.Join(wd, "bwd.cu"))), 0o644)
	for _, v := range [][2]int{{1, 1}, {0, 1}, {0, 0}, {1, 0}} {
		ptx, err := nvptx(prog, "-DBLOCK=256", fmt.Sprintf("-DPROF_SHARED=%d", v[0]), fmt.Sprintf("-DSTATE_SHARED=%d", v[1]))
		if err != nil {
			t.Fatalf("PROF_SHARED=%d STATE_SHARED=%d: %v\n%s", v[0], v[1], err, ptx)
		}
		if bytes.Contains(ptx, []byte("fma.")) {
			t.Errorf("PROF_SHARED=%d STATE_SHARED=%d: the PTX has fused multiply-adds", v[0], v[1])
		}
		entries := []string{"fwd_kernel", "bwd_kernel"}
		if v[0] == 0 {
			entries = append(entries, "fwd_multi_kernel") // profiles in global memory only
		}
		for _, k := range entries {
			if !bytes.Contains(ptx, []byte(".entry "+k)) {
				t.Errorf("PROF_SHARED=%d STATE_SHARED=%d: no %s entry in the PTX", v[0], v[1], k)
			}
		}
	}
}

// sameParser fails the test where a parser result differs from the CPU's
// in any special-row bit, scale sum, flag, score or error.
func sameParser(t *testing.T, what string, got, want Parser) {
	t.Helper()
	bits := math.Float32bits
	if (got.Err == nil) != (want.Err == nil) || bits(got.FwdScore) != bits(want.FwdScore) || bits(got.BckScore) != bits(want.BckScore) {
		t.Errorf("%s: scores %v/%v (%v), CPU %v/%v (%v)", what, got.FwdScore, got.BckScore, got.Err, want.FwdScore, want.BckScore, want.Err)
	}
	for _, m := range []struct {
		name      string
		got, want *Matrix
	}{{"forward", got.Fwd, want.Fwd}, {"backward", got.Bck, want.Bck}} {
		if m.got.L != m.want.L || len(m.got.X) != len(m.want.X) || m.got.HasOwnScales != m.want.HasOwnScales || bits(m.got.TotScale) != bits(m.want.TotScale) {
			t.Errorf("%s %s: L %d/%d, %d/%d rows, own scales %v/%v, total scale %v/%v", what, m.name,
				m.got.L, m.want.L, len(m.got.X), len(m.want.X), m.got.HasOwnScales, m.want.HasOwnScales, m.got.TotScale, m.want.TotScale)
			continue
		}
		for i := range m.got.X {
			for c := 0; c < NXCells; c++ {
				if bits(m.got.X[i][c]) != bits(m.want.X[i][c]) {
					t.Errorf("%s %s row %d cell %d: %v, CPU %v", what, m.name, i, c, m.got.X[i][c], m.want.X[i][c])
					return
				}
			}
		}
	}
}

// The Backward kernel and the special rows of both kernels, run on the
// CPU: every row bit for bit with Forward and Backward's parser matrices,
// including Backward's switch to its own scale factors (unihit repeats).
func TestParsersOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(23))
	amino := alphabet.New(alphabet.Amino)
	own := 0
	for _, v := range []struct {
		M                       int
		unihit, heavy           bool
		profShared, stateShared bool
	}{{7, false, false, true, true}, {30, true, false, true, true}, {30, false, false, false, false}, {104, true, true, false, true}} {
		exe := buildShim(t, cc, fwdShape{Block: 64, ProfShared: v.profShared, StateShared: v.stateShared})
		h := testmodels.RandomHMM(rng, amino, v.M)
		if v.heavy {
			h = deletionHeavy(h)
		}
		om := optimizedProfile(h)
		if v.unihit {
			om.ReconfigUnihit(om.L)
		}
		dsqs := randomTargets(rng, h, 24, 200)
		for r := 0; r < 6; r++ {
			dsqs = append(dsqs, homolog(rng, h, 2+r))
		}
		lengths := ownLengths(dsqs)
		plan, err := newFwdPlan(om, lengths)
		if err != nil {
			t.Fatal(err)
		}
		var idx []int
		for i, d := range dsqs {
			if len(d) > 0 {
				idx = append(idx, i)
			}
		}
		r, xoff := runShim(t, exe, plan, shimShape(plan, 2, 2, v.profShared, v.stateShared), dsqs, true)
		got := finishParsers(om, plan, dsqs, lengths, idx, xoff, r)
		for i, d := range dsqs {
			want := cpuParser(om, d, lengths[i])
			sameParser(t, fmt.Sprintf("M=%d unihit=%v target %d (L=%d)", v.M, v.unihit, i, len(d)), got[i], want)
			if want.Bck.HasOwnScales {
				own++
			}
			var gd, wd Domains
			if len(d) > 0 && DomainDecoding(om, got[i].Fwd, got[i].Bck, &gd) == nil && DomainDecoding(om, want.Fwd, want.Bck, &wd) == nil {
				for j := range wd.MOcc {
					if math.Float32bits(gd.MOcc[j]) != math.Float32bits(wd.MOcc[j]) || math.Float32bits(gd.BTot[j]) != math.Float32bits(wd.BTot[j]) {
						t.Errorf("M=%d target %d: domain decoding differs at %d", v.M, i, j)
						break
					}
				}
			}
		}
	}
	if own == 0 {
		t.Error("no target made Backward switch to its own scale factors: that path went untested")
	}
}
