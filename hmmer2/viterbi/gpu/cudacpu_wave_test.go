package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
)

// plantedSeqs are n targets holding two copies of p's consensus (the best
// match residue of every node) between random stretches: in a multi-hit
// mode the second copy is reached through J, so the wavefront's
// speculated B fails and its exact build must rescore them.
func plantedSeqs(rng *rand.Rand, p *plan7.Profile, n int) [][]byte {
	a := p.HMM.Alph
	cons := make([]byte, p.M)
	for k := 1; k <= p.M; k++ {
		for x := 0; x < a.Size; x++ {
			if p.Msc[x][k] > p.Msc[cons[k-1]][k] {
				cons[k-1] = byte(x)
			}
		}
	}
	random := func(L int) []byte {
		s := make([]byte, L)
		for j := range s {
			s[j] = byte(rng.Intn(a.Size))
		}
		return s
	}
	seqs := make([][]byte, n)
	for i := range seqs {
		var s []byte
		s = append(s, random(rng.Intn(20))...)
		s = append(s, cons...)
		s = append(s, random(rng.Intn(20))...)
		s = append(s, cons...)
		seqs[i] = append(s, random(rng.Intn(20))...)
	}
	return seqs
}

// plantedListed runs each variant (shape(v) must take 150 nodes) on a
// random model in every mode with 4 planted two-domain targets and 4
// random ones: every score must equal ScoreOne, and in the modes with
// J (ls, fs) the speculated B must fail on, and list, at least the 4
// planted targets.
func plantedListed(t *testing.T, cc string, rng *rand.Rand, abc *plan7.Alphabet, shape func(v string) Shape, variants []string) {
	t.Helper()
	for _, mode := range modes {
		for _, v := range variants {
			p := randomProfile(rng, abc, 150, mode, false)
			s := shape(v)
			seqs := append(plantedSeqs(rng, p, 4), randomSeqs(rng, abc, 4, 60)...)
			got, flagged := runShimWave(t, cc, p, s, seqs, "")
			sameScores(t, fmt.Sprintf("planted hits %s %+v", mode, s), p, seqs, got)
			if (mode == "ls" || mode == "fs") && len(flagged) < 4 {
				t.Errorf("planted hits %s %s: %d targets listed, want the 4 planted ones at least", mode, v, len(flagged))
			}
		}
	}
}

// runShimWave is runShimOn for a Wave shape, which also returns the
// targets the wavefront listed for the exact build.
func runShimWave(t *testing.T, cc string, p *plan7.Profile, s Shape, seqs [][]byte, extra string) ([]int32, []int) {
	t.Helper()
	files := map[string]string{"defs.h": s.Defines() + extra, "viterbi.cu": kernelSource}
	if err := cudacpu.ReadFiles(files, "testdata/cudacpu/shim.h", "testdata/cudacpu/driver.cc"); err != nil {
		t.Fatal(err)
	}
	exe, err := cudacpu.Compile(cc, t.TempDir(), "h2vitwave", files, "-O1", "-fwrapv")
	if err != nil {
		t.Fatal(err)
	}
	got := runShimOn(t, exe, p, s, seqs, 2) // (listed targets rescored)
	raw := rawShimGrid(t, exe, p, s, seqs, 2)
	_, flagged := shimOutput(t, raw, len(seqs))
	return got, flagged
}

// The wavefront with a speculated B on the CPU: every mode, short last
// ranks, rings of one to four rows and named barriers, with and without clamps and the
// deferred pass, the impossible and wrap-around models, real models
// including the 2,940-node one; targets where J wins must be listed and
// rescored exactly.
func TestKernelSourceOnCPUWave(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(31))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	variant := func(M int, v string) Shape {
		s := shapeVariant(t, M, v)
		if !s.Wave {
			t.Fatalf("%s at M=%d is not a wavefront shape: %+v", v, M, s)
		}
		return s
	}
	cases := []shimCase{
		{variant(200, "wscan4.wave"), 200, amino, 12, 50, "2 warps, C=4, 8 long ranks"},
		{variant(300, "wscan4.wave.r1"), 300, amino, 8, 40, "3 warps, C=4, short ranks, a ring of one row"},
		{variant(300, "wscan4.defer.wave.r2"), 300, dna, 8, 40, "3 warps, the D pass deferred, a ring of two"},
		{variant(300, "wscan4.clamp.wave"), 300, amino, 8, 40, "3 warps, clamps"},
		{variant(530, "wscan8.defer.wave"), 530, amino, 5, 30, "3 warps, C=6, short ranks, deferred"},
		{variant(900, "wscan4.wave.r3"), 900, amino, 3, 20, "8 warps, C=4, a ring of three"},
		{variant(200, "wscan4.wave.nb"), 200, dna, 12, 50, "2 warps, named barriers"},
		{variant(300, "wscan4.defer.wave.nb"), 300, amino, 8, 40, "3 warps, short ranks, deferred, named barriers"},
		{variant(900, "wscan4.clamp.wave.nb"), 900, amino, 3, 20, "8 warps, clamps, named barriers"},
	}
	checkShapesOnCPU(t, rng, cases, 300,
		30, func(M int) []Shape {
			w := max(4, (M+63)/64)
			return []Shape{shapeVariant(t, M, fmt.Sprintf("wscan%d.wave", w))}
		},
		30, []wrapCase{{200, variant(200, "wscan4.wave")}},
		func(M int) []Shape { return []Shape{shapeVariant(t, M, "wscan4.defer.wave")} })
	cc := shimCompiler(t)
	plantedListed(t, cc, rng, amino, func(v string) Shape { return variant(150, v) }, []string{"wscan4.wave", "wscan4.defer.wave.r1", "wscan4.clamp.wave", "wscan4.defer.wave.nb"})
	p := freeDeleteProfile(rng, amino, 300)
	s := variant(300, "wscan4.defer.wave")
	seqs := randomSeqs(rng, amino, 16, 60)
	sameScores(t, fmt.Sprintf("free deletes %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	realModelsOnCPU(t, cc, rng, []string{"wscan4.wave", "wscanfit.defer.wave", "wscanfit.defer.wave.nb"}, func(s Shape) bool { return s.Wave })
}

// Trusting the speculated B (no check) scores planted multi-domain
// targets wrong, and handing over the previous row's slot random ones:
// the test above sees both.
func TestKernelSourceOnCPUWaveMutation(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(32))
	amino := plan7.NewAlphabet(plan7.Amino)
	p := randomProfile(rng, amino, 150, "ls", false)
	s := shapeVariant(t, 150, "wscan4.wave")
	// (Listed targets are rescored exactly: the wrong hand-over shows on
	// the others.)
	for _, m := range []struct {
		define, what string
		seqs         [][]byte
	}{{"#define WAVE_MUTATE 1\n", "trusting B", plantedSeqs(rng, p, 6)},
		{"#define WAVE_MUTATE 2\n", "the previous row's hand-over", randomSeqs(rng, amino, 12, 80)}} {
		got, _ := runShimWave(t, cc, p, s, m.seqs, m.define)
		mutationCaught(t, m.what, p, m.seqs, got)
	}
}

// mutationCaught fails the test when a mutated kernel (what) still gave
// every target of seqs HMMER2's score: a mutation test must see it.
func mutationCaught(t *testing.T, what string, p *plan7.Profile, seqs [][]byte, got []int32) {
	t.Helper()
	for i, q := range seqs {
		if got[i] != viterbi.ScoreOne(p, q) {
			return
		}
	}
	t.Errorf("%s scored every target right", what)
}
