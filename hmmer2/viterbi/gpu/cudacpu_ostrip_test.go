package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// oneStripVariant is ShapeVariant for a shape that must be one strip.
func oneStripVariant(t *testing.T, M int, v string) Shape {
	t.Helper()
	s := stripVariant(t, M, v)
	if s.W != 1 || s.T != 32 {
		t.Fatalf("%s at M=%d is not one strip: %+v", v, M, s)
	}
	return s
}

// One strip on the CPU (the strip kernel with W == 1: no records, B
// speculated from N and checked): every mode, short ranks, emissions in
// shared or global memory, clamps, the D pass after the scan, two warps a block with more
// targets than warps, D paths from a short rank's inner node, the impossible and wrap-around
// models, free deletes, real models; planted two-domain targets are
// listed and rescored exactly.
func TestKernelSourceOnCPUOneStrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(43))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	cases := []shimCase{
		{oneStripVariant(t, 40, "ostrip"), 40, amino, 12, 50, "C=2, 8 long ranks"},
		{oneStripVariant(t, 100, "ostrip"), 100, dna, 12, 50, "C=4, 4 long ranks"},
		{oneStripVariant(t, 300, "ostrip"), 300, amino, 9, 40, "C=10, 12 long ranks"},
		{oneStripVariant(t, 300, "ostrip.eg"), 300, amino, 9, 40, "emissions in global memory"},
		{oneStripVariant(t, 300, "ostrip.nodefer"), 300, amino, 9, 40, "the D pass after the scan"},
		{oneStripVariant(t, 300, "ostrip.clamp"), 300, amino, 9, 40, "clamps"},
		{oneStripVariant(t, 170, "ostrip.b64"), 170, amino, 13, 40, "two warps a block"},
		{oneStripVariant(t, 512, "ostrip"), 512, amino, 5, 30, "C=16"},
		{oneStripVariant(t, 40, "ostrip2"), 40, amino, 13, 50, "two targets a warp, C=2"},
		{oneStripVariant(t, 100, "ostrip2"), 100, dna, 12, 50, "two targets a warp, C=4"},
		{oneStripVariant(t, 300, "ostrip2"), 300, amino, 9, 40, "two targets a warp, C=10"},
		{oneStripVariant(t, 300, "ostrip2.eg"), 300, amino, 9, 40, "two targets a warp, emissions in global memory"},
		{oneStripVariant(t, 300, "ostrip2.nodefer"), 300, amino, 9, 40, "two targets a warp, the D pass after the scan"},
		{oneStripVariant(t, 300, "ostrip2.clamp"), 300, amino, 9, 40, "two targets a warp, clamps"},
		{oneStripVariant(t, 170, "ostrip2.b64"), 170, amino, 13, 40, "two targets a warp, two warps a block"},
		{oneStripVariant(t, 512, "ostrip2"), 512, amino, 5, 30, "two targets a warp, C=16"},
		{oneStripVariant(t, 545, "ostripw"), 545, amino, 5, 30, "C=18, one long rank, blocks of 8 warps"},
		{oneStripVariant(t, 672, "ostripw"), 672, amino, 9, 30, "C=21, blocks of 8 warps, more targets than warps"},
	}
	one := func(M int) []Shape {
		return []Shape{oneStripVariant(t, M, "ostrip"), oneStripVariant(t, M, "ostrip.clamp"), oneStripVariant(t, M, "ostrip2")}
	}
	checkShapesOnCPU(t, rng, cases, 300,
		30, one,
		30, []wrapCase{{200, oneStripVariant(t, 200, "ostrip")}, {200, oneStripVariant(t, 200, "ostrip2")}},
		one)
	cc := shimCompiler(t)
	plantedListed(t, cc, rng, amino, func(v string) Shape { return oneStripVariant(t, 150, v) }, []string{"ostrip", "ostrip.nodefer", "ostrip.clamp", "ostrip.eg", "ostrip2", "ostrip2.clamp"})
	p := freeDeleteProfile(rng, amino, 300)
	for _, v := range []string{"ostrip", "ostrip2"} {
		s := oneStripVariant(t, 300, v)
		seqs := randomSeqs(rng, amino, 15, 60)
		sameScores(t, fmt.Sprintf("free deletes %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	// Single-hit (nothing listed): the best paths jump from node 125, inside
	// rank 12 of 9 nodes, through free deletes to node 200, and from node
	// 15 through deletes of a small random cost to node 250, whose sums the
	// scan composes over lanes 1 to 25.
	for _, j := range []struct{ from, to, dd int }{{125, 200, 0}, {15, 250, 5}} {
		dd := j.dd
		p = deleteJumpProfile(rng, amino, 300, "sw", j.from, j.to, dd)
		for _, v := range []string{"ostrip", "ostrip2", "ostrip2.nodefer"} {
			s := oneStripVariant(t, 300, v)
			seqs := randomSeqs(rng, amino, 8, 20)
			got, flagged := runShimWave(t, cc, p, s, seqs, "")
			sameScores(t, fmt.Sprintf("delete jumps (D->D cost to %d) %+v", dd, s), p, seqs, got)
			if len(flagged) > 0 {
				t.Errorf("delete jumps (D->D cost to %d) %s: %d targets listed", dd, v, len(flagged))
			}
		}
	}
	realModelsOnCPU(t, cc, rng, []string{"ostrip", "ostrip2"}, func(s Shape) bool { return s.Strip })
}

// One strip (one or two targets a warp) scores wrong when it trusts its
// speculated B (no check) or takes lane 0's check alone (planted
// multi-domain targets), or lane 0's C for the warp's (random targets):
// the test above sees each.
func TestKernelSourceOnCPUOneStripMutation(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(44))
	amino := plan7.NewAlphabet(plan7.Amino)
	p := randomProfile(rng, amino, 150, "ls", false)
	for _, v := range []string{"ostrip", "ostrip2"} {
		s := oneStripVariant(t, 150, v)
		for _, m := range []struct {
			define, what string
			seqs         [][]byte
		}{{"#define STRIP_MUTATE 1\n", "trusting B", plantedSeqs(rng, p, 6)},
			{"#define STRIP_MUTATE 5\n", "lane 0's check", plantedSeqs(rng, p, 6)},
			{"#define STRIP_MUTATE 4\n", "lane 0's C", randomSeqs(rng, amino, 12, 80)}} {
			got, _ := runShimWave(t, cc, p, s, m.seqs, m.define)
			mutationCaught(t, v+" "+m.what, p, m.seqs, got)
		}
	}
}

// deleteJumpProfile is a random profile of mode with free M->D and D->M
// (freeDeleteProfile's), D->D scores drawn from -dd..0 (free with dd =
// 0), and every residue scoring high at nodes from and to only, so that
// the best path jumps from M(from) through the deletes to M(to). With
// from inside a short rank and to in a later rank, and a single-hit mode
// (nothing listed for the exact build), it checks the D chain's
// hand-over from a rank's inner nodes and, with dd > 0, the D->D sums
// the scan composes.
func deleteJumpProfile(rng *rand.Rand, a *plan7.Alphabet, M int, mode string, from, to, dd int) *plan7.Profile {
	p := randomProfile(rng, a, M, mode, false)
	for k := 1; k < M; k++ {
		p.Tsc[plan7.TMD][k], p.Tsc[plan7.TDD][k], p.Tsc[plan7.TDM][k] = 0, 0, 0
		if dd > 0 {
			p.Tsc[plan7.TDD][k] = -int32(rng.Intn(dd + 1))
		}
	}
	for x := range p.Msc {
		p.Msc[x][from], p.Msc[x][to] = 2000, 2000
	}
	return p
}
