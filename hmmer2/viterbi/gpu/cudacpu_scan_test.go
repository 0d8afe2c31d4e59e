package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
)

// hotProfile is a random ls model whose match state at every node emits
// residue 0 with probability near 1 against a null of 1e-4 for it: about
// 13 bits a residue, so a run of residue 0 pushes the scores past
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

// The int32 kernel with the D chain by a scan and no clamps where none
// can bind (the iscan and noclamp modifiers, auto's build to M = 256) on
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
		s := shapeVariant(t, M, v+".noclamp")
		if !s.DScan || !s.NoClamp {
			t.Fatalf("%s at M=%d is not the int32 scan without clamps: %+v", v, M, s)
		}
		return s
	}
	scan := func(s Shape) Shape {
		s.DScan, s.NoClamp, s.ScanPass = true, true, true
		return s
	}
	cases := []shimCase{
		{scan(warpNS(37, 32, 2)), 37, dna, 20, 50, "T=32 NS=2, C=2, 5 short ranks"},
		{scan(warpNS(20, 32, 1)), 20, amino, 20, 50, "T=32, C=1, 12 ranks without a node"},
		{variant(100, "reg16.iscan.spass"), 100, amino, 30, 60, "reg16 T=8 C=13"},
		{variant(100, "reg16.iscan"), 100, amino, 30, 60, "reg16 T=8 C=13, no final pass"},
		{variant(37, "reg16.iscan.spass"), 37, dna, 40, 60, "reg16 T=4, uneven"},
		{variant(300, "auto.iscan.spass"), 300, amino, 12, 40, "w1024 T=32 C=10 NS=2"},
		{variant(300, "auto.iscan.nospass"), 300, amino, 12, 40, "w1024 T=32 C=10 NS=2, no final pass"},
		{variant(500, "auto0.iscan"), 500, amino, 8, 30, "12-warp blocks, C=16 NS=2"},
		{variant(33, "w1024.iscan.spass"), 33, amino, 40, 40, "T=4 NS=2 C=9, 1 short rank"},
		{variant(1000, "auto0.iscan.spass"), 1000, amino, 3, 20, "one warp of C=32"},
		{variant(100, "reg16.iscan.spass.defer"), 100, amino, 30, 60, "reg16 T=8 C=13, the D pass deferred"},
		{variant(37, "reg16.iscan.spass.defer"), 37, dna, 40, 60, "reg16 T=4, uneven, the D pass deferred"},
		{variant(300, "auto.iscan.spass.defer"), 300, amino, 12, 40, "w1024 T=32 C=10 NS=2, the D pass deferred"},
		{variant(500, "auto.defer"), 500, amino, 8, 30, "one warp, T=32 C=16, the D pass deferred"},
	}
	checkShapesOnCPU(t, rng, cases, 200,
		40, func(M int) []Shape { return []Shape{variant(M, "reg16.iscan"), variant(M, "auto.iscan")} },
		30, []wrapCase{{40, variant(40, "reg16.iscan")}, {300, variant(300, "auto.iscan")}},
		func(M int) []Shape {
			return []Shape{variant(M, "auto.iscan"), variant(M, "reg16.iscan"), variant(M, "reg16.iscan.spass"), shapeVariant(t, M, "auto.clamp"), variant(M, "reg16.iscan.spass.defer")}
		})
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
	// The hot model's long runs (real scores far above 2^24, where the
	// removed FP32 build was no longer exact): the int32 scan has no
	// such bound.
	p := hotProfile(rng, amino, 60)
	if ScanMaxLen(p) < 100000 {
		t.Errorf("hot model: ScanMaxLen %d", ScanMaxLen(p))
	}
	long := [][]byte{make([]byte, 4000), make([]byte, 5000)}
	if sc := viterbi.ScoreOne(p, long[0]); sc < 2*scanScoreMax {
		t.Fatalf("hot model: score %d at L=%d, want far above 2^24", sc, len(long[0]))
	}
	s := variant(p.M, "reg16.iscan")
	sameScores(t, fmt.Sprintf("hot model %+v", s), p, long, runShim(t, buildShim(t, cc, s), p, s, long, 1))
}

// ScanMaxLen: which models it covers (real ones, random ls ones), which
// it sends to the build with D passes (-INFTY scores the recurrences
// read), and its length bound on a model whose scores grow fast.
func TestScanMaxLen(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	amino := plan7.NewAlphabet(plan7.Amino)
	for _, name := range []string{"globin.hmm2", "globin_fs.hmm2", "globin_sw.hmm2", "globin_global.hmm2", "fn3.hmm2", "rrm.hmm2", "pkinase.hmm2", "made1.hmm2"} {
		p := readProfile(t, name)
		if n := ScanMaxLen(p); n < 100000 {
			t.Errorf("%s: ScanMaxLen %d, want a real model's targets covered", name, n)
		}
	}
	for _, M := range []int{100, 1000, 3000} {
		if n := ScanMaxLen(randomProfile(rng, amino, M, "ls", false)); n < 100000 {
			t.Errorf("random ls M=%d: ScanMaxLen %d", M, n)
		}
	}
	for _, c := range []struct {
		what string
		p    *plan7.Profile
	}{{"impossible", impossibleProfile(t)}, {"wrap-around", wrapProfile(rng, amino, 40)},
		{"dead deletes", deadDeleteProfile(rng, amino, 40, "fs")}} {
		if n := ScanMaxLen(c.p); n != 0 {
			t.Errorf("%s: ScanMaxLen %d, want 0", c.what, n)
		}
	}
	zeros := 0
	for i := 0; i < 20; i++ {
		if ScanMaxLen(randomProfile(rng, amino, 50, modes[i%4], true)) == 0 {
			zeros++
		}
	}
	if zeros != 20 {
		t.Errorf("random models with zero probabilities: %d of 20 sent to D passes", zeros)
	}
	// The hot model: a run of its residue at ScanMaxLen stays below 2^31
	// (the bound is sound), and the bound is not absurdly short.
	p := hotProfile(rng, amino, 60)
	n := ScanMaxLen(p)
	ok, row := scanScores(p)
	if !ok || n < 100000 || int64(n)*row > 1<<31 {
		t.Fatalf("hot model: ScanMaxLen %d, row %d, ok %v", n, row, ok)
	}
	if sc := viterbi.ScoreOne(p, make([]byte, 10000)); int64(sc) > 10000*row {
		t.Errorf("hot model: score %d at L=10000 above 10000 rows of %d", sc, row)
	}
}

// ClampFreeMaxLen: it covers what ScanMaxLen covers for real and random
// models (so auto runs them without clamps), is 0 where ScanMaxLen is,
// and on a model whose N->N score makes it short it sits exactly at the
// limit of its bound; the build without clamps is exact on targets of
// that length made of the model's worst residue, and scanBuild gives
// that model the scan with its clamps.
func TestClampFreeMaxLen(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	amino := plan7.NewAlphabet(plan7.Amino)
	for _, name := range []string{"globin.hmm2", "globin_fs.hmm2", "globin_sw.hmm2", "fn3.hmm2", "rrm.hmm2", "pkinase.hmm2", "made1.hmm2"} {
		p := readProfile(t, name)
		if n, m := ClampFreeMaxLen(p), ScanMaxLen(p); n < m {
			t.Errorf("%s: ClampFreeMaxLen %d below ScanMaxLen %d", name, n, m)
		}
	}
	for i, M := range []int{50, 100, 300, 1000} {
		p := randomProfile(rng, amino, M, modes[i%4], false)
		if n, m := ClampFreeMaxLen(p), ScanMaxLen(p); m > 0 && n < m {
			t.Errorf("random %s M=%d: ClampFreeMaxLen %d below ScanMaxLen %d", modes[i%4], M, n, m)
		}
	}
	for _, p := range []*plan7.Profile{impossibleProfile(t), wrapProfile(rng, amino, 40), deadDeleteProfile(rng, amino, 40, "fs")} {
		if n := ClampFreeMaxLen(p); n != 0 {
			t.Errorf("a model ScanMaxLen refuses: ClampFreeMaxLen %d", n)
		}
	}
	// N->N of -10^7: the bound allows about 90 residues.
	const M = 60
	p := randomProfile(rng, amino, M, "ls", false)
	p.Xsc[plan7.XTN][plan7.Loop] = -10000000
	L := ClampFreeMaxLen(p)
	if L < 50 || L > 100 {
		t.Fatalf("N->N -10^7: ClampFreeMaxLen %d", L)
	}
	if low := clampLow(p, L); low < -plan7.Infty+clampMargin {
		t.Errorf("at L=%d the bound fails: low %d", L, low)
	}
	if low := clampLow(p, L+1); low >= -plan7.Infty+clampMargin {
		t.Errorf("at L+1=%d the bound still holds: low %d", L+1, low)
	}
	s := shapeVariant(t, M, "reg16.iscan.noclamp.spass")
	if sb, n := scanBuild(p, s); n != ScanMaxLen(p) || sb.NoClamp || !sb.DScan || !sb.ScanPass {
		t.Errorf("N->N -10^7: scanBuild gives %+v up to %d", sb, n)
	}
	// The worst residue (smallest match score anywhere) in runs of L, and
	// random targets of up to L residues, through the build without
	// clamps itself.
	worst, ws := 0, int32(0)
	for c := 0; c < amino.Size; c++ {
		for k := 1; k <= M; k++ {
			if p.Msc[c][k] < ws {
				worst, ws = c, p.Msc[c][k]
			}
		}
	}
	run := make([]byte, L)
	for i := range run {
		run[i] = byte(worst)
	}
	seqs := append(randomSeqs(rng, amino, 30, L), run, run[:L-1], run[:L/2])
	cc := shimCompiler(t)
	sameScores(t, fmt.Sprintf("N->N -10^7, L <= %d, %+v", L, s), p, seqs, runShimOn(t, buildShim(t, cc, s), p, s, seqs, 2))
	// Past the bound (targets to 300 residues) the clamps do bind on this
	// model: the build without them goes wrong, scanBuild's choice not.
	long := randomSeqs(rng, amino, 30, 300)
	got := runShimOn(t, buildShim(t, cc, s), p, s, long, 2)
	bad := 0
	for i, q := range long {
		if got[i] != viterbi.ScoreOne(p, q) {
			bad++
		}
	}
	if bad == 0 {
		t.Errorf("N->N -10^7: no clamp bound on targets to 300 residues; the model tests nothing")
	}
	sameScores(t, fmt.Sprintf("N->N -10^7, L <= 300, scanBuild of %+v", s), p, long, runShim(t, buildShim(t, cc, s), p, s, long, 2))
}
