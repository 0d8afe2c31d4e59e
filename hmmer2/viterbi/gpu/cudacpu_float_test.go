package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
)

// The FP32 kernel (the float modifier) through the kernel on the CPU, in
// every one-warp state layout it is built for: random models of every
// mode, the real models, and the models the bound must send to the int32
// kernel (-INFTY scores, the impossible model, int32 wrap-around, dead
// deletes), as runShim routes targets the way the GPU path does.
func TestKernelSourceOnCPUFloat(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(12))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape {
		s := shapeVariant(t, M, v)
		if !s.Float {
			t.Fatalf("%s at M=%d is not FP32: %+v", v, M, s)
		}
		return s
	}
	scan := func(s Shape) Shape {
		s.Float, s.DScan = true, true
		return s
	}
	cases := []shimCase{
		{scan(warpNS(37, 32, 2)), 37, dna, 20, 50, "T=32 NS=2, C=2, 5 short ranks, D chain by a scan"},
		{scan(warpNS(20, 32, 1)), 20, amino, 20, 50, "T=32, C=1, 12 ranks without a node, D chain by a scan"},
		{variant(100, "reg16.float"), 100, amino, 30, 60, "reg16 T=8 C=13, transitions in registers"},
		{variant(37, "reg16.float"), 37, dna, 40, 60, "reg16, uneven"},
		{variant(300, "auto.float"), 300, amino, 12, 40, "auto: w1024 T=32 C=10 NS=2"},
		{variant(500, "auto.float"), 500, amino, 8, 30, "auto: 12-warp blocks, C=16 NS=2"},
		{variant(530, "w1024.float"), 530, amino, 5, 30, "w1024, one warp of C=17"},
		{variant(120, "ns4.float"), 120, amino, 36, 40, "ns4"},
		{variant(1500, "lean64.float"), 1500, amino, 3, 20, "lean64, short D passes"},
		{variant(1700, "dsmx1.float"), 1700, amino, 3, 20, "dsmx1, D in shared memory"},
		{variant(100, "reg16.dscan"), 100, amino, 30, 60, "reg16, D chain by a scan"},
		{variant(37, "reg16.dscan"), 37, dna, 40, 60, "reg16 T=4, uneven, D chain by a scan"},
		{variant(300, "auto.dscan"), 300, amino, 12, 40, "w1024 T=32 C=10 NS=2, D chain by a scan"},
		{variant(33, "w1024.dscan"), 33, amino, 40, 40, "T=4 NS=2 C=9, 1 short rank, D chain by a scan"},
		{variant(40, "auto.dscan.b32"), 40, dna, 40, 40, "one-warp blocks, D chain by a scan"},
	}
	checkShapesOnCPU(t, rng, cases, 200,
		40, func(M int) []Shape { return []Shape{variant(M, "reg16.float"), variant(M, "auto.float")} },
		30, []wrapCase{{40, variant(40, "reg16.float")}, {300, variant(300, "auto.dscan")}},
		func(M int) []Shape {
			return []Shape{variant(M, "auto.float"), variant(M, "reg16.float"), variant(M, "auto.dscan"), variant(M, "reg16.dscan")}
		})
	cc := shimCompiler(t)
	for _, M := range []int{40, 300} {
		p := deadDeleteProfile(rng, amino, M, "ls")
		if fm := FloatMaxLen(p); fm != 0 {
			t.Errorf("dead deletes M=%d: FloatMaxLen %d, want 0", M, fm)
		}
		s := variant(M, "auto.float")
		seqs := randomSeqs(rng, amino, 12, 60)
		sameScores(t, fmt.Sprintf("dead D M=%d %+v", M, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
}

// hotProfile is a random ls model whose match state at every node emits
// residue 0 with probability near 1 against a null of 1e-4 for it: about
// 13 bits a residue, so a run of residue 0 pushes the scores towards
// 2^24 within about 1,300 residues.
func hotProfile(rng *rand.Rand, a *plan7.Alphabet, M int) *plan7.Profile {
	h := randomProfile(rng, a, M, "ls", false).HMM
	for k := 1; k <= M; k++ {
		for x := range h.Mat[k] {
			h.Mat[k][x] = 1e-6
		}
		h.Mat[k][0] = 1
	}
	for x := 1; x < a.Size; x++ {
		h.Null[x] = 1
	}
	h.Null[0] = 1e-4
	h.Renormalize()
	return h.Logoddsify(true)
}

// The int32 kernel with the D chain by a scan (the iscan modifier) on
// the CPU, in the shapes it is built for (one warp, no lean state): every
// mode, -INFTY scores, the impossible, wrap-around and dead-delete models
// (ScanMaxLen sends them to the plain int32 build), real models, and
// ranks without a node.
func TestKernelSourceOnCPUIntScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(15))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape {
		s := shapeVariant(t, M, v)
		if !s.DScan || s.Float {
			t.Fatalf("%s at M=%d is not the int32 scan: %+v", v, M, s)
		}
		return s
	}
	scan := func(s Shape) Shape {
		s.DScan = true
		return s
	}
	cases := []shimCase{
		{scan(warpNS(37, 32, 2)), 37, dna, 20, 50, "T=32 NS=2, C=2, 5 short ranks"},
		{scan(warpNS(20, 32, 1)), 20, amino, 20, 50, "T=32, C=1, 12 ranks without a node"},
		{variant(100, "reg16.iscan"), 100, amino, 30, 60, "reg16 T=8 C=13"},
		{variant(37, "reg16.iscan"), 37, dna, 40, 60, "reg16 T=4, uneven"},
		{variant(300, "auto.iscan"), 300, amino, 12, 40, "w1024 T=32 C=10 NS=2"},
		{variant(500, "auto.iscan"), 500, amino, 8, 30, "12-warp blocks, C=16 NS=2"},
		{variant(33, "w1024.iscan"), 33, amino, 40, 40, "T=4 NS=2 C=9, 1 short rank"},
		{variant(1000, "auto.iscan"), 1000, amino, 3, 20, "one warp of C=32"},
	}
	checkShapesOnCPU(t, rng, cases, 200,
		40, func(M int) []Shape { return []Shape{variant(M, "reg16.iscan"), variant(M, "auto.iscan")} },
		30, []wrapCase{{40, variant(40, "reg16.iscan")}, {300, variant(300, "auto.iscan")}},
		func(M int) []Shape { return []Shape{variant(M, "auto.iscan"), variant(M, "reg16.iscan")} })
	cc := shimCompiler(t)
	for _, M := range []int{40, 300} {
		p := deadDeleteProfile(rng, amino, M, "fs")
		if n := ScanMaxLen(p); n != 0 {
			t.Errorf("dead deletes M=%d: ScanMaxLen %d, want 0", M, n)
		}
		s := variant(M, "auto.iscan")
		seqs := randomSeqs(rng, amino, 12, 60)
		sameScores(t, fmt.Sprintf("dead D M=%d %+v", M, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	// The hot model's long runs (real scores far above 2^24): the int32
	// scan has no such bound.
	p := hotProfile(rng, amino, 60)
	if ScanMaxLen(p) < 100000 {
		t.Errorf("hot model: ScanMaxLen %d", ScanMaxLen(p))
	}
	long := [][]byte{make([]byte, 3*FloatMaxLen(p)), make([]byte, 5000)}
	s := variant(p.M, "reg16.iscan")
	sameScores(t, fmt.Sprintf("hot model %+v", s), p, long, runShim(t, buildShim(t, cc, s), p, s, long, 1))
}

// The bound: which models it covers, and lengths just inside and outside
// it on a model whose scores reach 2^24.
func TestFloatMaxLen(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	amino := plan7.NewAlphabet(plan7.Amino)
	for _, name := range []string{"globin.hmm2", "globin_fs.hmm2", "globin_sw.hmm2", "globin_global.hmm2", "fn3.hmm2", "rrm.hmm2", "pkinase.hmm2", "made1.hmm2"} {
		p := readProfile(t, name)
		if fm := FloatMaxLen(p); fm < 1000 {
			t.Errorf("%s: FloatMaxLen %d, want a real model's targets covered", name, fm)
		} else {
			t.Logf("%s (M=%d): FP32 exact to L=%d", name, p.M, fm)
		}
	}
	for _, M := range []int{100, 1000, 3000} {
		if fm := FloatMaxLen(randomProfile(rng, amino, M, "ls", false)); fm < 2000 {
			t.Errorf("random ls M=%d: FloatMaxLen %d", M, fm)
		}
	}
	// Models with a -INFTY score the recurrences read.
	for _, c := range []struct {
		what string
		p    *plan7.Profile
	}{{"impossible", impossibleProfile(t)}, {"wrap-around", wrapProfile(rng, amino, 40)},
		{"dead deletes", deadDeleteProfile(rng, amino, 40, "fs")}} {
		if fm := FloatMaxLen(c.p); fm != 0 {
			t.Errorf("%s: FloatMaxLen %d, want 0", c.what, fm)
		}
	}
	zeros := 0
	for i := 0; i < 20; i++ {
		p := randomProfile(rng, amino, 50, modes[i%4], true)
		if FloatMaxLen(p) == 0 {
			zeros++
		}
	}
	if zeros != 20 {
		t.Errorf("random models with zero probabilities: %d of 20 sent to int32", zeros)
	}
	// Just inside and outside: hi(L) <= 2^24 binds.
	p := hotProfile(rng, amino, 60)
	f := scanFloatScores(p)
	fm := FloatMaxLen(p)
	if !f.ok || fm < 100 || fm > 3000 {
		t.Fatalf("hot model: FloatMaxLen %d (%+v)", fm, f)
	}
	for _, L := range []int{fm, fm + 1} {
		lo, hi := f.bounds(L)
		inside := lo >= -floatExact && hi <= floatExact
		if inside != (L == fm) {
			t.Errorf("hot model, L=%d (FloatMaxLen %d): bounds [%d, %d]", L, fm, lo, hi)
		}
	}
	// The bound is sound: a run of the hot residue at fm scores at most
	// hi(fm), and beyond it real scores leave the exact range.
	run := make([]byte, 3*fm)
	if sc := viterbi.ScoreOne(p, run[:fm]); int64(sc) > floatExact {
		t.Errorf("hot model: score %d at L=%d above 2^24", sc, fm)
	}
	if sc := viterbi.ScoreOne(p, run); sc < floatExact {
		t.Errorf("hot model: score %d at L=%d, expected above 2^24", sc, len(run))
	}
}

// The FP32 kernel on the CPU at lengths up to the bound on the hot model
// (real scores up to about 2^24, where float addition is still exact),
// and the int32 kernel beyond it.
func TestKernelSourceOnCPUFloatAtTheBound(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(14))
	amino := plan7.NewAlphabet(plan7.Amino)
	p := hotProfile(rng, amino, 60)
	fm := FloatMaxLen(p)
	var seqs [][]byte
	for _, L := range []int{fm - 1, fm, fm, fm + 1, fm + 7, 2 * fm} {
		s := make([]byte, L)
		for j := range s {
			if rng.Intn(40) == 0 {
				s[j] = byte(rng.Intn(amino.Size))
			}
		}
		seqs = append(seqs, s)
	}
	for _, v := range []string{"reg16.float", "auto.float", "auto.dscan"} {
		s := shapeVariant(t, p.M, v)
		sameScores(t, fmt.Sprintf("hot model %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	// Beyond the bound the scores leave the exact range: the FP32 build
	// alone on them differs from HMMER2 somewhere (which is why the
	// bound routes them to int32).
	s := shapeVariant(t, p.M, "reg16.float")
	long := seqs[4:]
	got := runShimOn(t, buildShim(t, cc, s), p, s, long, 1)
	differ := 0
	for i, q := range long {
		if got[i] != viterbi.ScoreOne(p, q) {
			differ++
		}
	}
	t.Logf("FP32 alone beyond the bound: %d of %d scores differ", differ, len(long))
}
