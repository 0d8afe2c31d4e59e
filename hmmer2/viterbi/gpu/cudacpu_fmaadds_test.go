package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// The additions on the FMA pipe (IMADD: multiply-adds by an opaque 1,
// maxima regrouped into three-way maxima, the M->D source unclamped)
// through the kernel on the CPU, in every state layout: one warp with
// one, two and four sequences a thread, odd and even C, short ranks;
// multi-warp blocks and groups; transitions in registers; lean state
// with and without short D passes; D in shared memory. Random models of
// every mode, -INFTY scores, int32 wrap-around, the impossible model and
// real models.
func TestKernelSourceOnCPUFMAAdds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(10))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	ia := func(s Shape) Shape {
		s.FMAAdds = true
		return s
	}
	variant := func(M int, v string) Shape { return ia(shapeVariant(t, M, v)) }
	block := func(M, W int, trans, emis bool) Shape {
		s := newShape(M, 32, W, 32*W)
		s.TransShared, s.EmisShared = trans, emis
		return ia(s)
	}
	cases := []shimCase{
		{variant(1, "auto"), 1, amino, 40, 40, "one node"},
		{ia(newShape(31, 2, 1, 64)), 31, amino, 40, 60, "T=2, uneven"},
		{ia(warpNS(33, 4, 2)), 33, amino, 50, 60, "T=4 NS=2, uneven"},
		{ia(warpNS(33, 4, 4)), 33, dna, 50, 60, "T=4 NS=4, uneven"},
		{ia(warpNS(37, 32, 2)), 37, dna, 20, 50, "T=32 NS=2, C=2, 5 short ranks"},
		{variant(100, "auto"), 100, amino, 20, 40, "auto: reg16, T=8 C=13"},
		{variant(200, "auto"), 200, amino, 8, 40, "auto: w1024 NS=2 C=13 in 12-warp blocks"},
		{variant(530, "w1024"), 530, dna, 5, 30, "w1024, one warp of C=17"},
		{block(70, 2, true, true), 70, amino, 9, 60, "two warps"},
		{block(100, 3, false, false), 100, amino, 7, 40, "three warps, global tables"},
		{variant(300, "lean64"), 300, amino, 8, 40, "lean64: short D passes, T=32 C=10 NS=2"},
		{variant(1100, "leanx"), 1100, amino, 3, 25, "leanx: one warp of C=35"},
		{variant(1300, "auto"), 1300, dna, 3, 25, "auto: leanx C=41, emissions cached in L2"},
		{variant(1700, "auto"), 1700, amino, 3, 20, "auto: dsmx1, C=54, D in shared memory"},
		{variant(2990, "dsmx1"), 2990, amino, 2, 15, "dsmx1, C=94, short ranks"},
		{variant(3500, "auto"), 3500, amino, 2, 12, "auto: leanx groups of warps"},
	}
	checkShapesOnCPU(t, rng, cases, 500,
		40, func(M int) []Shape {
			return []Shape{variant(M, "auto"), ia(warpNS(M, 4, 2)), block(M, 2, true, true), variant(M, "lean64"), variant(M, "dsmx1")}
		},
		30, []wrapCase{{10, ia(warpNS(10, 2, 2))}, {40, variant(40, "auto")}, {70, block(70, 2, true, false)}, {300, variant(300, "auto")},
			{300, variant(300, "lean64")}, {1500, variant(1500, "auto")}, {2000, variant(2000, "auto")}},
		func(M int) []Shape { return []Shape{variant(M, "auto"), variant(M, "lean64"), ia(warpNS(M, 8, 2))} })

	// The D clamps, which IMADD moved into max3's third operand.
	cc := shimCompiler(t)
	for i, M := range []int{40, 70, 300, 1700} {
		mode := modes[i%len(modes)]
		p := deadDeleteProfile(rng, amino, M, mode)
		seqs := randomSeqs(rng, amino, 12, 60)
		shapes := []Shape{variant(M, "auto"), variant(M, "lean64"), variant(M, "dsmx1")}
		// (Two warps from M = 70, not at 40: there C = 1 leaves 24
		// threads without a node, a test-only shape whose score of an
		// impossible sequence differs from HMMER2's with or without IMADD;
		// see docs/hmm2search.md.)
		if M >= 70 {
			shapes = append(shapes, block(M, 2, true, true))
		}
		for _, s := range shapes {
			sameScores(t, fmt.Sprintf("dead D %s M=%d %+v", mode, M, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
		}
	}
}
