package gpu

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// Transitions in registers (one-warp and multi-warp shapes), several
// multi-warp groups per block, lean state with and without short D
// passes, and D in shared memory, through the kernel on the CPU: random
// models of every mode, -INFTY scores, int32 wrap-around, the impossible
// model and real models. The group cases use block tables whose length
// is not a multiple of the groups per block (idle groups in the last
// block) and sequences of lengths 0..maxLen in one block.
func TestKernelSourceOnCPUGroupsAndRegisters(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(8))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	regWarp := func(M, T, ns int) Shape {
		s := newShape(M, T, 1, 64).withTransReg()
		s.NS = ns
		return s
	}
	groups := func(M, W, ng int, reg, trans, emis bool) Shape {
		s := newShape(M, 32, W, 32*W*ng)
		s.NGrp = ng
		if reg {
			return s.withTransReg()
		}
		s.TransShared, s.EmisShared = trans, emis
		return s
	}
	lean := func(s Shape, exit bool) Shape {
		s.Lean, s.DExit = true, exit
		return s
	}
	dshared := func(s Shape) Shape {
		s.Lean, s.DShared = true, true
		s.EmisShared = s.EmisShared && s.SharedBytes() <= sharedBudget
		return s
	}
	reg8 := func(M int) Shape { return regWarpShape(M, 8) } // T raised until C <= 8
	variant := func(M int, v string) Shape { return shapeVariant(t, M, v) }
	cases := []shimCase{
		{regWarp(1, 1, 1), 1, amino, 40, 40, "reg, one node"},
		{regWarp(37, 8, 1), 37, amino, 40, 60, "reg T=8, uneven"},
		{regWarp(37, 4, 2), 37, dna, 50, 60, "reg T=4 NS=2, uneven"},
		{regWarp(64, 8, 2), 64, amino, 40, 50, "reg T=8 NS=2, even"},
		{reg8(100), 100, amino, 20, 40, "reg T=16 C=7"},
		{regWarp(100, 16, 2), 100, amino, 40, 40, "reg T=16 NS=2"},
		{reg8(300), 300, amino, 4, 30, "reg, T=32 C=10"},
		{variant(150, "reg16"), 150, dna, 20, 40, "reg16, T=16 C=10"},
		{groups(70, 2, 3, false, true, true), 70, amino, 11, 50, "3 groups of 2 warps, shared tables"},
		{groups(100, 3, 2, false, false, false), 100, amino, 9, 40, "2 groups of 3 warps, global tables"},
		{groups(64, 2, 2, false, true, false), 64, dna, 7, 50, "2 groups of 2 warps, even"},
		{groups(70, 2, 1, true, false, false), 70, amino, 7, 50, "2 warps, transitions in registers"},
		{groups(90, 2, 2, true, false, false), 90, amino, 9, 40, "2 groups of 2 warps, transitions in registers"},
		{lean(regWarp(64, 4, 2), true), 64, dna, 40, 50, "lean, short D passes, reg T=4 NS=2 C=16"},
		{variant(300, "lean64"), 300, amino, 8, 40, "lean64, T=32 C=10 NS=2"},
		{variant(1700, "auto0"), 1700, amino, 3, 20, "auto0: dsmx1, one warp of C=54, D in shared memory"},
		{variant(2100, "auto0"), 2100, dna, 4, 20, "auto0: dsmx1, one warp of C=66, D in shared memory"},
		{variant(150, "lean64"), 150, amino, 20, 40, "lean64, reg16 T=16 C=10"},
		{lean(groups(600, 2, 2, false, true, true), true), 600, amino, 5, 30, "lean, short D passes, 2 groups of 2 warps, C=10"},
		{lean(groups(700, 2, 1, false, true, false), true), 700, dna, 5, 30, "lean, short D passes, 2 warps, C=11"},
		{lean(regWarp(100, 8, 1), true), 100, amino, 30, 50, "lean, reg T=8 C=13"},
		{lean(newShape(64, 4, 1, 64), false), 64, dna, 40, 50, "lean without short passes, T=4 C=16"},
		{lean(warpNS(64, 4, 2), true), 64, amino, 40, 50, "lean, T=4 NS=2 C=16"},
		{variant(1100, "lean64"), 1100, amino, 3, 25, "lean64, one warp of C=35"},
		{lean(groups(700, 2, 2, false, true, true), true), 700, amino, 5, 30, "lean, 2 groups of 2 warps, C=11"},
		{lean(groups(500, 2, 1, false, false, false), false), 500, dna, 5, 30, "lean without short passes, 2 warps, global tables"},
		{dshared(newShape(100, 8, 1, 64)), 100, amino, 30, 50, "D in shared memory, T=8 C=13"},
		{dshared(newShape(37, 4, 1, 64)), 37, dna, 40, 50, "D in shared memory, T=4, uneven"},
		{dshared(warpNS(64, 4, 2)), 64, amino, 40, 50, "D in shared memory, T=4 NS=2 C=16"},
		{dshared(newShape(100, 32, 1, 128)), 100, amino, 8, 40, "D in shared memory, T=32 C=4, 4 warps a block"},
		{variant(1100, "dsmx1"), 1100, amino, 3, 25, "dsmx1, one warp of C=35, short ranks"},
		{dshared(groups(2100, 2, 6, false, true, true)), 2100, amino, 7, 15, "D in shared memory, 6 groups of 2 warps, C=33"},
		{variant(2990, "dsmx1"), 2990, amino, 2, 15, "dsmx1, one warp of C=94, short ranks"},
		{dshared(warpNS(40, 4, 2)), 40, amino, 40, 50, "D in shared memory, T=4 NS=2, uneven"},
		{dshared(groups(700, 2, 2, false, true, true)), 700, amino, 5, 30, "D in shared memory, 2 groups of 2 warps, C=11"},
		{dshared(groups(500, 2, 1, false, false, false)), 500, dna, 5, 30, "D in shared memory, 2 warps, global tables"},
	}
	checkShapesOnCPU(t, rng, cases, math.MaxInt,
		50, func(M int) []Shape {
			return []Shape{reg8(M), regWarp(M, 4, 2), groups(M, 2, 3, false, true, true), groups(M, 2, 1, true, false, false),
				variant(M, "lean64"), lean(regWarp(M, 2, 2), true), lean(warpNS(M, 2, 2), true), lean(groups(M, 2, 2, false, true, true), true),
				dshared(newShape(M, 4, 1, 64)), dshared(warpNS(M, 2, 2)), dshared(groups(M, 2, 2, false, true, true))}
		},
		30, []wrapCase{{40, regWarp(40, 4, 2)}, {40, regWarp(40, 8, 1)}, {70, groups(70, 2, 2, false, true, true)}, {70, groups(70, 2, 1, true, false, false)},
			{40, lean(regWarp(40, 4, 2), true)}, {300, variant(300, "lean64")}, {300, variant(300, "leanx")},
			{40, lean(warpNS(40, 4, 2), true)}, {1700, variant(1700, "auto0")}, {400, lean(groups(400, 2, 2, false, true, true), true)},
			{40, dshared(warpNS(40, 4, 2))}, {2000, variant(2000, "auto0")}, {1500, variant(1500, "auto0")}, {400, dshared(groups(400, 2, 2, false, true, true))}},
		func(M int) []Shape {
			return []Shape{reg8(M), variant(M, "auto"), groups(M, 2, 2, false, true, true), variant(M, "lean64"), lean(groups(M, 2, 2, false, true, true), true),
				lean(warpNS(M, 8, 2), true), dshared(newShape(M, 8, 1, 64)), dshared(warpNS(M, 8, 2))}
		})
}
