package gpu

import (
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
)

// These tests run viterbi.cu itself, not a transcription of it, on the
// CPU: testdata/cudacpu/shim.h with internal/cudacpu/emu.h stands in for
// the CUDA built-ins (each GPU thread a coroutine, shuffles, votes and
// barriers exchanged between the threads), so the kernel's node layout,
// lane and warp exchanges, the D chain's convergence loop, padding and the
// work loop are checked against viterbi.ScoreOne through the same tables
// and packing the GPU path uses. What they cannot check is NVRTC and the
// device itself; gpu_test.go does that on a GPU host.

// shimCompiler returns a C++ compiler, or skips.
func shimCompiler(t *testing.T) string { return cudacpu.Compiler(t, "viterbi.cu") }

// shims holds the executables, one per shape, shared by the tests and
// removed by TestMain.
var shims = cudacpu.Builds[Shape]{Name: "h2vitcpu"}

func TestMain(m *testing.M) {
	code := m.Run()
	shims.Remove()
	os.Exit(code)
}

// buildShim compiles viterbi.cu for shape s once per test binary.
func buildShim(t *testing.T, cc string, s Shape) string {
	t.Helper()
	return shims.Exe(t, s, func(dir string) (string, error) {
		files := map[string]string{"defs.h": s.Defines(), "viterbi.cu": kernelSource}
		if err := cudacpu.ReadFiles(files, "testdata/cudacpu/shim.h", "testdata/cudacpu/driver.cc"); err != nil {
			return "", err
		}
		exe, err := cudacpu.Compile(cc, dir, "h2vitcpu", files, "-O1", "-fwrapv")
		if err != nil {
			return "", fmt.Errorf("compiling viterbi.cu with the CPU shim (%+v): %w", s, err)
		}
		return exe, nil
	})
}

// runShim scores seqs with the kernel on the CPU, grid blocks at a time.
// A DScan shape's exe is its scan build: as on the GPU (scanBuild), it
// gets the targets of at most ScanMaxLen(p) residues (with its clamps if
// s.NoClamp and ClampFreeMaxLen(p) is shorter) and the build of the same
// shape with D passes the others.
func runShim(t *testing.T, exe string, p *plan7.Profile, s Shape, seqs [][]byte, grid int) []int32 {
	t.Helper()
	if !s.DScan {
		return runShimOn(t, exe, p, s, seqs, grid)
	}
	sb, fm := scanBuild(p, s)
	if fm == 0 { // as NewKernelVariant: the build with D passes only
		return runShimOn(t, buildShim(t, shimCompiler(t), s.int32()), p, s.int32(), seqs, grid)
	}
	if sb != s { // as NewKernelVariant: the scan with its clamps
		s, exe = sb, buildShim(t, shimCompiler(t), sb)
	}
	var short, long []int
	for i, q := range seqs {
		if len(q) <= fm {
			short = append(short, i)
		} else {
			long = append(long, i)
		}
	}
	got := make([]int32, len(seqs))
	is := s.int32()
	for _, part := range []struct {
		idx []int
		exe func() string
		s   Shape
	}{{short, func() string { return exe }, s}, {long, func() string { return buildShim(t, shimCompiler(t), is) }, is}} {
		if len(part.idx) == 0 {
			continue
		}
		sub := make([][]byte, len(part.idx))
		for j, i := range part.idx {
			sub[j] = seqs[i]
		}
		for j, v := range runShimOn(t, part.exe(), p, part.s, sub, grid) {
			got[part.idx[j]] = v
		}
	}
	return got
}

// runShimOn scores seqs with one build of the kernel on the CPU (a Wave
// build's listed targets with its exact build, as on the GPU).
func runShimOn(t *testing.T, exe string, p *plan7.Profile, s Shape, seqs [][]byte, grid int) []int32 {
	t.Helper()
	got, flagged := shimOutput(t, rawShimGrid(t, exe, p, s, seqs, grid), len(seqs))
	if len(flagged) > 0 {
		if !s.Wave {
			t.Fatalf("kernel (%+v) listed %d targets without the wavefront", s, len(flagged))
		}
		// As the host does: the listed targets by the exact build.
		sub := make([][]byte, len(flagged))
		for j, i := range flagged {
			sub[j] = seqs[i]
		}
		ex := s.exact()
		for j, v := range runShimOn(t, buildShim(t, shimCompiler(t), ex), p, ex, sub, grid) {
			got[flagged[j]] = v
		}
	}
	return got
}

// rawShimGrid is the driver's output for seqs on grid blocks.
func rawShimGrid(t *testing.T, exe string, p *plan7.Profile, s Shape, seqs [][]byte, grid int) []byte {
	t.Helper()
	idx := make([]int, len(seqs))
	for i := range idx {
		idx[i] = i
	}
	packed := gpudb.Pack(seqs, idx, s.PackT())
	tb := NewTables(p, s)
	var in cudacpu.Input
	in.Put([]int32{int32(packed.NBlocks), int32(len(seqs)), int32(grid), int32(s.SharedBytes())})
	in.Arrays(tb.A, tb.B, tb.E, tb.Emis, tb.Xsc, packed.Res, packed.Table)
	return cudacpu.Run(t, exe, fmt.Sprintf("kernel (%+v)", s), &in)
}

// shimOutput splits the driver's output: n scores, then the targets a
// Wave build listed for the exact build.
func shimOutput(t *testing.T, raw []byte, n int) ([]int32, []int) {
	t.Helper()
	if len(raw) < 4*n+4 {
		t.Fatalf("kernel output: %d bytes for %d targets", len(raw), n)
	}
	words := cudacpu.Words(t, raw[:len(raw)/4*4], len(raw)/4)
	got := make([]int32, n)
	for i := range got {
		got[i] = int32(words[i])
	}
	nf := int(words[n])
	if len(words) != n+1+nf {
		t.Fatalf("kernel output: %d words for %d targets and %d listed", len(words), n, nf)
	}
	flagged := make([]int, nf)
	for j := range flagged {
		flagged[j] = int(words[n+1+j])
	}
	return got, flagged
}

// sameScores fails where a score differs from ScoreOne's.
func sameScores(t *testing.T, what string, p *plan7.Profile, seqs [][]byte, got []int32) {
	t.Helper()
	bad := 0
	for i, s := range seqs {
		if want := viterbi.ScoreOne(p, s); got[i] != want {
			bad++
			if bad <= 3 {
				t.Errorf("%s: sequence %d (L=%d): kernel %d, ScoreOne %d", what, i, len(s), got[i], want)
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d of %d scores differ", what, bad, len(seqs))
	}
}

// shimCase is a kernel shape checked against ScoreOne on random models.
type shimCase struct {
	s       Shape
	M       int
	a       *plan7.Alphabet
	nseq    int
	maxLen  int
	comment string
}

// wrapCase is a shape checked on a model of M nodes whose scores wrap
// int32.
type wrapCase struct {
	M int
	s Shape
}

// shapeVariant is ShapeVariant, failing t on an unknown variant.
func shapeVariant(t *testing.T, M int, v string) Shape {
	s, err := ShapeVariant(M, v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// warpNS is a one-warp shape of T threads a sequence, ns sequences a thread.
func warpNS(M, T, ns int) Shape {
	s := newShape(M, T, 1, 64)
	s.NS = ns
	return s
}

// checkShapesOnCPU runs the kernel on the CPU for every case on a random
// model of each mode (models above skipOddModes nodes in every other
// mode only), for every impossible shape on the impossible-score model
// (impSeqs sequences of W and Y), for every wrap case on a wrap-around
// model, and for real(M) on the real models; every score must be
// ScoreOne's.
func checkShapesOnCPU(t *testing.T, rng *rand.Rand, cases []shimCase, skipOddModes int, impSeqs int, impossible func(M int) []Shape,
	wrapSeqs int, wrapCases []wrapCase, real func(M int) []Shape) {
	t.Helper()
	cc := shimCompiler(t)
	for i, c := range cases {
		for mi, mode := range modes {
			if c.M > skipOddModes && mi%2 == 1 {
				continue
			}
			p := randomProfile(rng, c.a, c.M, mode, (i+mi)%2 == 0)
			seqs := randomSeqs(rng, c.a, c.nseq, c.maxLen)
			got := runShim(t, buildShim(t, cc, c.s), p, c.s, seqs, 2)
			sameScores(t, fmt.Sprintf("%s M=%d %s %+v", mode, c.M, c.comment, c.s), p, seqs, got)
		}
	}
	imp := impossibleProfile(t)
	seqs := randomSeqs(rng, imp.HMM.Alph, impSeqs, 120)
	onlyWY(seqs)
	for _, s := range impossible(imp.M) {
		sameScores(t, fmt.Sprintf("impossible %+v", s), imp, seqs, runShim(t, buildShim(t, cc, s), imp, s, seqs, 2))
	}
	amino := plan7.NewAlphabet(plan7.Amino)
	for _, w := range wrapCases {
		p := wrapProfile(rng, amino, w.M)
		seqs := randomSeqs(rng, amino, wrapSeqs, 60)
		if !wraps(p, seqs) {
			t.Fatalf("M=%d: the wrap-around model does not wrap", w.M)
		}
		sameScores(t, fmt.Sprintf("wrap-around M=%d %+v", w.M, w.s), p, seqs, runShim(t, buildShim(t, cc, w.s), p, w.s, seqs, 2))
	}
	for _, name := range []string{"globin.hmm2", "globin_fs.hmm2", "made1.hmm2"} {
		p := readProfile(t, name)
		seqs := randomSeqs(rng, p.HMM.Alph, 24, 150)
		for _, s := range real(p.M) {
			sameScores(t, fmt.Sprintf("%s %+v", name, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 1))
		}
	}
}

func TestKernelSourceOnCPU(t *testing.T) {
	t.Parallel() // mostly compilers and single-threaded child processes
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(5))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	type variant struct {
		M       int
		shape   func(M int) Shape
		grid    int
		a       *plan7.Alphabet
		nseq    int
		maxLen  int
		zeros   bool
		comment string
	}
	warp := func(T int) func(int) Shape { return func(M int) Shape { return newShape(M, T, 1, 64) } }
	block := func(W int, trans, emis bool) func(int) Shape {
		return func(M int) Shape {
			s := newShape(M, 32, W, 32*W)
			s.TransShared, s.EmisShared = trans, emis
			return s
		}
	}
	var vs []variant
	for i, mode := range modes {
		vs = append(vs,
			variant{1, ShapeFor, 2, amino, 70, 40, i == 0, "one node"},
			variant{2, ShapeFor, 1, dna, 40, 60, false, "two nodes"},
			variant{31, ShapeFor, 1, amino, 40, 80, i == 1, "T=2, uneven"},
			variant{33, warp(4), 2, amino, 48, 60, i == 2, "T=4, uneven"},
			variant{37, warp(32), 1, dna, 20, 50, i == 3, "C=2, 5 short ranks"},
			variant{70, block(2, true, true), 2, amino, 9, 60, i == 0, "two warps"},
			variant{100, block(3, false, false), 2, amino, 7, 40, i == 1, "three warps, global tables"},
			variant{64, block(2, true, false), 1, amino, 5, 50, false, "two warps, even"},
		)
		_ = mode
	}
	for vi, v := range vs {
		mode := modes[vi/8]
		p := randomProfile(rng, v.a, v.M, mode, v.zeros)
		s := v.shape(v.M)
		seqs := randomSeqs(rng, v.a, v.nseq, v.maxLen)
		got := runShim(t, buildShim(t, cc, s), p, s, seqs, v.grid)
		sameScores(t, fmt.Sprintf("%s M=%d %s %+v", mode, v.M, v.comment, s), p, seqs, got)
	}
}

// The impossible-score model (int32 wrap-around) and real models,
// through the kernel on the CPU.
func TestKernelSourceOnCPUModels(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(6))
	p := impossibleProfile(t)
	seqs := randomSeqs(rng, p.HMM.Alph, 40, 120)
	onlyWY(seqs)
	for _, s := range []Shape{ShapeFor(p.M), newShape(p.M, 32, 2, 64), newShape(p.M, 4, 1, 32)} {
		sameScores(t, fmt.Sprintf("impossible %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	amino := plan7.NewAlphabet(plan7.Amino)
	for _, w := range []struct{ M, T, W int }{{10, 1, 1}, {40, 4, 1}, {70, 32, 2}} {
		p := wrapProfile(rng, amino, w.M)
		seqs := randomSeqs(rng, amino, 30, 60)
		if !wraps(p, seqs) {
			t.Fatalf("M=%d: the wrap-around model does not wrap", w.M)
		}
		s := newShape(w.M, w.T, w.W, 32*w.W)
		sameScores(t, fmt.Sprintf("wrap-around M=%d %+v", w.M, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	for _, name := range []string{"globin.hmm2", "globin_fs.hmm2", "globin_sw.hmm2", "globin_global.hmm2", "made1.hmm2"} {
		p := readProfile(t, name)
		seqs := randomSeqs(rng, p.HMM.Alph, 12, 150)
		s := ShapeFor(p.M)
		sameScores(t, name, p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 1))
	}
}

// Every kernel variant (several sequences per thread, one-warp shapes up
// to 1,024 nodes) on random models of every mode, with -INFTY scores,
// int32 wrap-around and real models, through the kernel on the CPU.
func TestKernelSourceOnCPUVariants(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(7))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape { return shapeVariant(t, M, v) }
	cases := []shimCase{
		{warpNS(2, 2, 2), 2, dna, 70, 50, "T=2 NS=2, 32 sequences a warp"},
		{warpNS(31, 2, 2), 31, amino, 70, 60, "T=2 NS=2, uneven"},
		{warpNS(33, 4, 2), 33, amino, 50, 60, "T=4 NS=2, uneven"},
		{warpNS(33, 4, 4), 33, amino, 70, 60, "T=4 NS=4, uneven"},
		{warpNS(37, 32, 2), 37, dna, 20, 50, "T=32 NS=2, C=2, 5 short ranks"},
		{warpNS(64, 8, 2), 64, amino, 30, 50, "T=8 NS=2, even"},
		{variant(100, "ns2"), 100, amino, 20, 50, "ns2"},
		{variant(120, "ns4"), 120, amino, 36, 40, "ns4"},
		{variant(530, "w1024"), 530, amino, 5, 30, "w1024, one warp of C=17"},
	}
	// The big model in two modes is enough; int32 wrap-around and
	// forbidden residues; the real models.
	checkShapesOnCPU(t, rng, cases, 200,
		60, func(M int) []Shape { return []Shape{variant(M, "ns2"), variant(M, "ns4"), warpNS(M, 4, 4)} },
		40, []wrapCase{{10, warpNS(10, 2, 2)}, {40, warpNS(40, 4, 2)}, {70, warpNS(70, 8, 4)}},
		func(M int) []Shape { return []Shape{variant(M, "ns2"), variant(M, "ns4")} })
}
