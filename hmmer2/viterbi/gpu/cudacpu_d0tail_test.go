package gpu

import (
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// Pass 0 of the D chain over a chunk's last slots only (D0Tail), through
// the kernel on the CPU: a wrong guess of the outgoing D must only cost
// convergence passes. Two slots (the most wrong guesses) and four, on
// transitions in registers, several sequences per thread, short ranks,
// multi-warp groups, lean state and D in shared memory; random models of
// every mode, -INFTY scores, int32 wrap-around, the impossible model and
// real models.
func TestKernelSourceOnCPUShortPass0(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(9))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	tail := func(s Shape, k int) Shape {
		s.D0Tail = k
		return s
	}
	variant := func(M int, v string) Shape { return shapeVariant(t, M, v) }
	groups := func(M, W, ng int) Shape {
		s := newShape(M, 32, W, 32*W*ng)
		s.NGrp = ng
		return s
	}
	lean := func(s Shape) Shape {
		s.Lean = true
		return s
	}
	dshared := func(s Shape) Shape {
		s.Lean, s.DShared = true, true
		s.EmisShared = s.EmisShared && s.SharedBytes() <= sharedBudget
		return s
	}
	cases := []shimCase{
		{tail(variant(100, "reg16"), 2), 100, amino, 30, 60, "reg16 T=8 C=13, short ranks, tail 2"},
		{variant(100, "t4"), 100, amino, 30, 60, "t4: reg16 T=8 C=13, tail 4"},
		{tail(regWarpShape(37, 16), 3), 37, dna, 40, 60, "reg16 T=4 C=10, short ranks, tail 3"},
		{variant(200, "t2"), 200, amino, 20, 50, "t2: w1024 T=16 C=13 NS=2"},
		{tail(warpNS(33, 4, 4), 2), 33, amino, 50, 60, "T=4 NS=4 C=9, short ranks, tail 2"},
		{variant(500, "t4"), 500, amino, 5, 30, "t4: w1024 T=32 C=16 NS=2, short ranks"},
		{tail(newShape(150, 32, 2, 64), 2), 150, amino, 7, 40, "2 warps C=3, tail 2"},
		{tail(groups(700, 2, 2), 4), 700, dna, 5, 30, "2 groups of 2 warps C=11, tail 4"},
		{tail(lean(newShape(100, 8, 1, 64)), 2), 100, amino, 30, 50, "lean T=8 C=13, tail 2"},
		{tail(lean(groups(500, 2, 1)), 2), 500, amino, 5, 30, "lean, 2 warps C=8, tail 2"},
		{variant(1100, "t2"), 1100, amino, 3, 25, "t2: leanx one warp C=35, short ranks"},
		{tail(dshared(warpNS(40, 4, 2)), 2), 40, amino, 40, 50, "D in shared memory T=4 NS=2 C=10, tail 2"},
		{tail(dshared(groups(400, 2, 2)), 2), 400, dna, 5, 30, "D in shared memory, 2 groups of 2 warps, tail 2"},
		{variant(1700, "t4"), 1700, amino, 3, 20, "t4: dsmx1 one warp C=54"},
	}
	checkShapesOnCPU(t, rng, cases, 1000,
		50, func(M int) []Shape {
			return []Shape{tail(regWarpShape(M, 16), 2), tail(warpNS(M, 4, 2), 2), tail(groups(M, 2, 2), 2), tail(dshared(newShape(M, 8, 1, 64)), 2)}
		},
		30, []wrapCase{{40, tail(regWarpShape(40, 16), 2)}, {300, variant(300, "t2")}, {400, tail(lean(groups(400, 2, 2)), 2)},
			{1500, variant(1500, "t4")}, {2000, variant(2000, "t2")}},
		func(M int) []Shape {
			return []Shape{variant(M, "t2"), variant(M, "auto"), tail(warpNS(M, 8, 2), 2), tail(groups(M, 2, 2), 2), tail(dshared(newShape(M, 8, 1, 64)), 2)}
		})
}
