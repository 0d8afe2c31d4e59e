package gpu

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
)

// freeDeleteProfile is a random ls model whose M->D, D->D and D->M
// scores are 0: the best D paths run across whole warps, so a wrong
// composition of the warps' maps shows.
func freeDeleteProfile(rng *rand.Rand, a *plan7.Alphabet, M int) *plan7.Profile {
	p := randomProfile(rng, a, M, "ls", false)
	for k := 1; k < M; k++ {
		p.Tsc[plan7.TMD][k], p.Tsc[plan7.TDD][k], p.Tsc[plan7.TDM][k] = 0, 0, 0
	}
	return p
}

// The D chain by a scan in groups of several warps (wscan, and iscan on
// the older multi-warp shapes) on the CPU: every mode, -INFTY scores,
// the impossible and wrap-around models (ScanMaxLen sends them to the
// build with D passes), short last ranks, warps of two to seven, real
// models including the 2,940-node one.
func TestKernelSourceOnCPUWarpScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(21))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape {
		s := shapeVariant(t, M, v)
		if !s.DScan || s.W < 2 {
			t.Fatalf("%s at M=%d is not a multi-warp scan shape: %+v", v, M, s)
		}
		return s
	}
	cases := []shimCase{
		{variant(200, "wscan4"), 200, amino, 12, 50, "2 warps, C=4, 8 long ranks"},
		{variant(256, "wscan4"), 256, dna, 12, 50, "2 warps, C=4, even"},
		{variant(300, "wscan4"), 300, amino, 8, 40, "3 warps, C=4, short ranks"},
		{variant(300, "wscan4.clamp.nospass"), 300, amino, 8, 40, "3 warps, clamps, no final pass"},
		{variant(300, "wscan4.ts"), 300, dna, 8, 40, "3 warps, transitions in shared memory"},
		{variant(530, "wscan8"), 530, amino, 5, 30, "3 warps, C=6, short ranks"},
		{variant(900, "wscan4"), 900, amino, 3, 20, "8 warps, C=4, short ranks"},
		{variant(1100, "wscan"), 1100, amino, 3, 20, "3 warps, C=12, short ranks"},
		{variant(1100, "v1.iscan"), 1100, dna, 3, 20, "v1's 3-warp block, shared tables, with the scan"},
		{variant(300, "wscan4.defer"), 300, amino, 8, 40, "3 warps, C=4, the D pass deferred"},
		{variant(530, "wscan8.defer"), 530, dna, 5, 30, "3 warps, C=6, short ranks, the D pass deferred"},
		{variant(700, "wscanfit.defer"), 700, amino, 4, 30, "wscanfit: 2 warps, C=11, the D pass deferred"},
	}
	checkShapesOnCPU(t, rng, cases, 300,
		30, func(M int) []Shape {
			w := max(4, (M+63)/64) // (C small enough for two warps)
			return []Shape{shapeVariant(t, M, fmt.Sprintf("wscan%d", w)), shapeVariant(t, M, fmt.Sprintf("wscan%d.clamp", w))}
		},
		30, []wrapCase{{200, variant(200, "wscan4")}, {300, variant(300, "wscan4.ts")}},
		func(M int) []Shape {
			return []Shape{shapeVariant(t, M, "wscan4"), shapeVariant(t, M, "wscan4.nospass")}
		})
	cc := shimCompiler(t)
	p := deadDeleteProfile(rng, amino, 200, "fs")
	s := variant(200, "wscan4")
	seqs := randomSeqs(rng, amino, 12, 60)
	sameScores(t, fmt.Sprintf("dead D %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	for _, v := range []string{"wscan4", "wscan4.nospass", "wscan4.clamp", "wscan4.defer", "wscan4.clamp.defer"} {
		p := freeDeleteProfile(rng, amino, 300)
		s := variant(300, v)
		seqs := randomSeqs(rng, amino, 16, 60)
		sameScores(t, fmt.Sprintf("free deletes %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	realModelsOnCPU(t, cc, rng, []string{"wscan", "wscan4", "wscanfit.defer"}, func(s Shape) bool { return s.W > 1 })
}

// realModelsOnCPU runs the real models (pkinase, and pkinase10 of 2,940
// nodes) through each variant whose shape at the model's length passes
// use, on four random targets, against viterbi.ScoreOne.
func realModelsOnCPU(t *testing.T, cc string, rng *rand.Rand, variants []string, use func(Shape) bool) {
	t.Helper()
	for _, name := range []string{"pkinase.hmm2", "pkinase10.hmm2.gz"} {
		p := readProfile(t, name)
		seqs := randomSeqs(rng, p.HMM.Alph, 4, 60)
		for _, v := range variants {
			if s := shapeVariant(t, p.M, v); use(s) {
				sameScores(t, fmt.Sprintf("%s %+v", name, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 1))
			}
		}
	}
}

// A composition that takes only the previous warp's map (not every
// earlier warp's) goes wrong: the test above sees the composition.
func TestKernelSourceOnCPUWarpScanMutation(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(22))
	amino := plan7.NewAlphabet(plan7.Amino)
	const good = "if (o < warp) {"
	if !strings.Contains(kernelSource, good) {
		t.Fatal("viterbi.cu: the composition of the warps' maps moved")
	}
	mutant := strings.Replace(kernelSource, good, "if (o == warp - 1) {", 1)
	s := shapeVariant(t, 300, "wscan4")
	p := freeDeleteProfile(rng, amino, 300)
	seqs := randomSeqs(rng, amino, 16, 60)
	files := map[string]string{"defs.h": s.Defines(), "viterbi.cu": mutant}
	if err := cudacpu.ReadFiles(files, "testdata/cudacpu/shim.h", "testdata/cudacpu/driver.cc"); err != nil {
		t.Fatal(err)
	}
	exe, err := cudacpu.Compile(cc, t.TempDir(), "h2vitmut", files, "-O1", "-fwrapv")
	if err != nil {
		t.Fatal(err)
	}
	got := runShimOn(t, exe, p, s, seqs, 2)
	for i, q := range seqs {
		if got[i] != viterbi.ScoreOne(p, q) {
			return
		}
	}
	t.Error("a composition of the previous warp's map only scored every sequence right")
}
