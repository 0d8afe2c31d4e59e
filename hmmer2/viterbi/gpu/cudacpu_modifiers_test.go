package gpu

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// TestShapeModifiers checks the parsing of launch modifiers.
func TestShapeModifiers(t *testing.T) {
	s := shapeVariant(t, 100, "auto.b32.m12.c100.eg")
	if s.Block != 32 || s.MinBlocks != 12 || s.Carveout != 100 || s.EmisShared || !s.TransReg {
		t.Errorf("auto.b32.m12.c100.eg at M=100: %+v", s)
	}
	if !strings.Contains(s.Defines(), "#define MINBLOCKS 12\n") || !strings.Contains(s.Defines(), "#define BLOCK 32\n") {
		t.Errorf("defines of %+v:\n%s", s, s.Defines())
	}
	if d := shapeVariant(t, 100, "auto").Defines(); strings.Contains(d, "MINBLOCKS") || strings.Contains(d, "NARROWB") {
		t.Errorf("auto's defines name a modifier:\n%s", d)
	}
	if s := shapeVariant(t, 2000, "auto.nb"); !s.NarrowB || !s.DShared {
		t.Errorf("auto.nb at M=2000: %+v", s)
	}
	for _, bad := range []string{"auto.", "auto.b33", "auto.b2048", "auto.c101", "auto.m0", "auto.x1", "auto.bq", "nonesuch.b32"} {
		if _, err := ShapeVariant(100, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ShapeVariant(5000, "auto.b64"); err == nil {
		t.Error("a block size accepted for a multi-warp shape")
	}
	if _, err := ShapeVariant(3000, "dsmx1.b1024"); err == nil {
		t.Error("a block whose D cells exceed shared memory accepted")
	}
}

// The modifiers through the kernel on the CPU: narrow D-pass loads on
// every lean path (one warp with D in registers and in shared memory,
// NS = 2, multi-warp groups with global tables), one-warp blocks with
// transitions in registers and emissions in global memory.
func TestKernelSourceOnCPUModifiers(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(9))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape { return shapeVariant(t, M, v) }
	narrow := func(s Shape) Shape {
		s.NarrowB = true
		return s
	}
	leanGroups := func(M int) Shape {
		s := newShape(M, 32, 2, 64)
		s.TransShared, s.EmisShared, s.Lean = false, false, true
		return narrow(s)
	}
	cases := []shimCase{
		{variant(300, "leanx.nb"), 300, amino, 8, 40, "leanx.nb: T=32 C=10 NS=2, lean, narrow loads"},
		{variant(1100, "leanx.nb"), 1100, dna, 3, 25, "leanx.nb: one warp of C=35"},
		{variant(1700, "auto.nb"), 1700, amino, 3, 20, "auto.nb: dsmx1, C=54, D in shared memory"},
		{leanGroups(500), 500, amino, 5, 30, "lean, 2 warps, global tables, narrow loads"},
		{variant(100, "auto.b32.m12.c100"), 100, amino, 20, 40, "reg16 in one-warp blocks"},
		{variant(200, "reg16.b64.eg"), 200, dna, 20, 40, "reg16 T=16, emissions in global memory, 2-warp blocks"},
		{variant(500, "auto.b32.m8"), 500, amino, 4, 30, "w1024 T=32 C=16 NS=2 in one-warp blocks"},
	}
	checkShapesOnCPU(t, rng, cases, 1000,
		40, func(M int) []Shape {
			return []Shape{variant(M, "leanx.nb"), variant(M, "auto.b32"), narrow(variant(M, "dsmx1")), leanGroups(M)}
		},
		30, []wrapCase{{300, variant(300, "leanx.nb")}, {1500, variant(1500, "auto.nb")}, {2000, variant(2000, "auto.nb")}, {400, leanGroups(400)}},
		func(M int) []Shape {
			return []Shape{variant(M, "leanx.nb"), variant(M, "auto.b32.eg"), leanGroups(M)}
		})
}
