package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// stripVariant is ShapeVariant for a shape that must be a strip shape.
func stripVariant(t *testing.T, M int, v string) Shape {
	t.Helper()
	s := shapeVariant(t, M, v)
	if !s.Strip || !s.Wave || s.Block%32 != 0 {
		t.Fatalf("%s at M=%d is not a strip shape: %+v", v, M, s)
	}
	return s
}

// Vertical strips on the CPU: every mode, strips of uneven ranks and a
// model that is not a multiple of the strip, with and without clamps and
// the deferred pass, the impossible and wrap-around models (the build
// with D passes), free deletes, real models up to the 2,940-node one;
// targets where J wins are listed and rescored exactly, and so are
// targets longer than the scratch.
func TestKernelSourceOnCPUStrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(41))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	cases := []shimCase{
		{stripVariant(t, 200, "strip4"), 200, amino, 12, 50, "2 strips, C=4, 8 long ranks"},
		{stripVariant(t, 300, "strip4"), 300, dna, 8, 40, "3 strips, C=4, short ranks"},
		{stripVariant(t, 300, "strip4.nodefer"), 300, amino, 8, 40, "3 strips, the D pass after the scan"},
		{stripVariant(t, 300, "strip4.clamp"), 300, amino, 8, 40, "3 strips, clamps"},
		{stripVariant(t, 530, "strip8"), 530, amino, 5, 30, "3 strips, C=6, short ranks"},
		{stripVariant(t, 900, "strip4.b64"), 900, amino, 3, 20, "8 strips, C=4, two warps a block"},
		{stripVariant(t, 300, "strip4.se"), 300, amino, 13, 40, "3 strips, emissions in shared memory, four warps a block"},
		{stripVariant(t, 900, "strip4.se.b64.clamp"), 900, dna, 5, 20, "8 strips, emissions in shared memory, two warps a block, clamps"},
		{stripVariant(t, 300, "strip4.rs"), 300, amino, 8, 260, "3 strips, records through a ring in shared memory, targets past its 64 rows"},
		{stripVariant(t, 900, "strip4.se.rs.b64"), 900, dna, 5, 150, "8 strips, records through a ring, emissions in shared memory"},
		{stripVariant(t, 2100, "strip4.se.rs.clamp"), 2100, amino, 6, 100, "17 strips, records through a ring, clamps"},
		{stripVariant(t, 300, "strip4.nr.bs"), 300, amino, 8, 70, "3 strips, no second shuffle of the boundary, D->D sums once"},
		{stripVariant(t, 300, "strip4.bs.nodefer.clamp"), 300, dna, 8, 70, "3 strips, D->D sums once, the D pass after the scan, clamps"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.b64"), 900, amino, 5, 150, "8 strips, ring, no second shuffle, D->D sums once"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.b64.clamp"), 900, dna, 5, 100, "8 strips, ring, no second shuffle, D->D sums once, clamps"},
		{stripVariant(t, 300, "strip4.lc"), 300, amino, 8, 70, "3 strips, lane chains"},
		{stripVariant(t, 530, "strip8.nodefer.clamp.lc"), 530, dna, 5, 40, "3 strips, C=6, lane chains, the D pass after the scan, clamps"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.lc.b64"), 900, amino, 5, 150, "8 strips, ring, no second shuffle, D->D sums once, lane chains"},
		{stripVariant(t, 2100, "strip4.se.rs.nr.bs.lc.clamp"), 2100, dna, 6, 100, "17 strips, ring, no second shuffle, D->D sums once, lane chains, clamps"},
		{stripVariant(t, 900, "strip4.se.ea.b64"), 900, dna, 5, 40, "8 strips, emissions copied asynchronously, two warps a block"},
		{stripVariant(t, 2100, "strip4.se.rs.nr.bs.lc.ea"), 2100, amino, 6, 100, "17 strips, ring, lane chains, emissions copied asynchronously"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.lc.ps.ea.rw.b64"), 900, dna, 5, 150, "8 strips, residues through the ring, two warps a block"},
		{stripVariant(t, 300, "strip4.rs.rw.clamp"), 300, amino, 8, 260, "3 strips, residues through the ring, targets past its 64 rows, clamps"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.lc.ps.b64"), 900, amino, 5, 150, "8 strips, lane chains, predicated record stores"},
		{stripVariant(t, 530, "strip8.nodefer.clamp.ps"), 530, dna, 5, 40, "3 strips, C=6, predicated record stores, E in the records"},
		{stripVariant(t, 1100, "strip18.se.rs.nr.bs.lc.ps.ea.rw.b256"), 1100, amino, 9, 70, "2 strips, C=18 (wide), blocks of 8 warps"},
		{stripVariant(t, 300, "strip4.sh"), 300, dna, 8, 70, "3 strips, C=4, strips 1 and 2 of short ranks run 3 slots"},
		{stripVariant(t, 530, "strip8.nodefer.clamp.sh"), 530, amino, 5, 40, "3 strips, C=6, strip 2 runs 5 slots, E in the records"},
		{stripVariant(t, 1153, "strip13.se.rs.nr.bs.ps.ea.rw.sh"), 1153, amino, 5, 70, "3 strips, C=13, one long rank, strips 1 and 2 run 12 slots"},
		{stripVariant(t, 1025, "strip18.se.rs.nr.bs.lc.ps.ea.rw.sh.b256"), 1025, dna, 5, 70, "2 strips, C=17, one long rank, strip 1 runs 16 slots"},
		{stripVariant(t, 700, "strip11.se.rs.nr.bs.lc.ps.ea.rw.fl"), 700, amino, 5, 70, "2 strips, C=11, the first and last strips built apart"},
		{stripVariant(t, 530, "strip8.nodefer.clamp.sh.fl"), 530, dna, 5, 40, "3 strips, C=6, first, middle and short last strip built apart, E in the records"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.lc.ps.ea.rw.sh.fl.u2.b64"), 900, amino, 5, 150, "8 strips, first and last apart, rows two an iteration"},
		{stripVariant(t, 300, "strip4.u2"), 300, amino, 8, 71, "3 strips, rows two an iteration, odd lengths"},
	}
	// Small models in two strips or more: C <= 2 to 4.
	small := func(M int) []Shape {
		if M <= 64 {
			return nil
		}
		return []Shape{stripVariant(t, M, fmt.Sprintf("strip%d", max(2, min(4, (M-1)/64))))}
	}
	checkShapesOnCPU(t, rng, cases, 300,
		30, small,
		30, []wrapCase{{200, stripVariant(t, 200, "strip4")}},
		small)
	cc := shimCompiler(t)
	plantedListed(t, cc, rng, amino, func(v string) Shape { return stripVariant(t, 150, v) }, []string{"strip4", "strip4.nodefer", "strip4.clamp", "strip4.se", "strip4.rs", "strip4.se.rs", "strip4.nr", "strip4.se.rs.nr.bs", "strip4.lc", "strip4.se.rs.nr.bs.lc", "strip4.nodefer.clamp.lc", "strip4.se.rs.nr.bs.lc.ps", "strip4.ps"})
	// One-residue targets, and targets longer than a scratch of 64 rows
	// (listed whole, scored by the exact build); the others fit it.
	p := randomProfile(rng, amino, 250, "ls", false)
	s := stripVariant(t, 250, "strip4")
	var seqs [][]byte
	for _, L := range []int{1, 1, 2, 31, 32, 33, 63, 64, 65, 100, 400} {
		seqs = append(seqs, randomSeqs(rng, amino, 1, 0)[0][:0])
		for j := 0; j < L; j++ {
			seqs[len(seqs)-1] = append(seqs[len(seqs)-1], byte(rng.Intn(amino.Size)))
		}
	}
	got, flagged := runShimWave(t, cc, p, s, seqs, "#define STRIP_ROWS 64\n")
	sameScores(t, fmt.Sprintf("1 to 400 residues, 64 rows of scratch %+v", s), p, seqs, got)
	long := 0
	for _, i := range flagged {
		if len(seqs[i]) > 64 {
			long++
		}
	}
	if long != 3 {
		t.Errorf("64 rows of scratch: %d of the 3 longer targets listed (%v)", long, flagged)
	}
	for _, v := range []string{"strip4.se", "strip4.rs", "strip4.se.rs", "strip4.se.rs.nr.bs", "strip4.se.rs.nr.bs.lc", "strip4.se.rs.nr.bs.lc.ps", "strip4.se.rs.nr.bs.lc.ps.ea.rw"} {
		s = stripVariant(t, 250, v)
		got, _ = runShimWave(t, cc, p, s, seqs, "#define STRIP_ROWS 64\n")
		sameScores(t, fmt.Sprintf("1 to 400 residues, 64 rows of scratch %+v", s), p, seqs, got)
	}
	p = freeDeleteProfile(rng, amino, 300)
	seqs = randomSeqs(rng, amino, 16, 60)
	for _, v := range []string{"strip4", "strip4.lc"} {
		s = stripVariant(t, 300, v)
		sameScores(t, fmt.Sprintf("free deletes %+v", s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
	}
	// One exit node inside strip 0 (lane chains: J and C from one lane
	// of the first strip), planted and random targets.
	p = oneExitProfile(rng, amino, 150, 40)
	seqs = append(plantedSeqs(rng, p, 4), randomSeqs(rng, amino, 8, 80)...)
	for _, v := range []string{"strip4", "strip4.se.rs.nr.bs", "strip4.se.rs.nr.bs.lc", "strip4.lc.clamp"} {
		s = stripVariant(t, 150, v)
		got, flagged = runShimWave(t, cc, p, s, seqs, "")
		sameScores(t, fmt.Sprintf("one exit node %+v", s), p, seqs, got)
		if len(flagged) < 4 {
			t.Errorf("one exit node %s: %d targets listed, want the 4 planted ones at least", v, len(flagged))
		}
	}
	realModelsOnCPU(t, cc, rng, []string{"strip4", "strip", "strip12", "strip16.nodefer", "strip.se", "strip.se.rs", "strip.se.rs.nr.bs", "strip15.se.rs.nr.bs", "strip.se.rs.nr.bs.lc", "strip15.se.rs.nr.bs.lc", "strip.se.rs.nr.bs.lc.ps", "strip15.se.rs.nr.bs.ps", "strip.se.rs.nr.bs.lc.ea", "strip.se.rs.nr.bs.lc.ps.ea.rw"}, func(s Shape) bool { return s.Strip })
}

// oneExitProfile is a random local multi-hit profile whose exits (M->E)
// all score -2^23 but node k's, which scores 0: E, and with it J and C,
// comes from node k alone (2^23 is within the scan's bounds).
func oneExitProfile(rng *rand.Rand, a *plan7.Alphabet, M, k int) *plan7.Profile {
	p := randomProfile(rng, a, M, "ls", false)
	for j := 1; j <= M; j++ {
		p.Esc[j] = -1 << 23
	}
	p.Esc[k] = 0
	return p
}

// Trusting the speculated B (no check) scores planted multi-domain
// targets wrong; a boundary record from the wrong row, or an E maximum
// not carried from strip to strip, random ones: the test above sees all
// three. With lane chains (lc), on a model whose only exit is node 40
// (strip 0, lane 13 at C = 3): the checks of lane 0 or of the last strip
// alone miss planted targets, and C from lane 0 or from the last strip
// alone scores random ones wrong.
func TestKernelSourceOnCPUStripMutation(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(42))
	amino := plan7.NewAlphabet(plan7.Amino)
	p := randomProfile(rng, amino, 150, "ls", false)
	pl := randomProfile(rng, amino, 150, "fs", false)
	for _, v := range []string{"strip4", "strip4.rs", "strip4.nr.bs", "strip4.se.rs.nr.bs"} {
		s := stripVariant(t, 150, v)
		for _, m := range []struct {
			define, what string
			seqs         [][]byte
			local        bool
		}{{"#define STRIP_MUTATE 1\n", "trusting B", plantedSeqs(rng, p, 6), false},
			{"#define STRIP_MUTATE 2\n", "the wrong row's record", randomSeqs(rng, amino, 12, 80), false},
			{"#define STRIP_MUTATE 3\n", "E not carried", randomSeqs(rng, amino, 12, 80), true}} {
			p := p
			if m.local { // (a glocal model's E is its last node's: in the last strip)
				p = pl
			}
			got, _ := runShimWave(t, cc, p, s, m.seqs, m.define)
			mutationCaught(t, v+": "+m.what, p, m.seqs, got)
		}
	}
	pe := oneExitProfile(rng, amino, 150, 40)
	for _, v := range []string{"strip4.lc", "strip4.se.rs.nr.bs.lc"} {
		s := stripVariant(t, 150, v)
		for _, m := range []struct {
			define, what string
			p            *plan7.Profile
			seqs         [][]byte
		}{{"#define STRIP_MUTATE 1\n", "trusting B", p, plantedSeqs(rng, p, 6)},
			{"#define STRIP_MUTATE 2\n", "the wrong row's record", p, randomSeqs(rng, amino, 12, 80)},
			{"#define STRIP_MUTATE 5\n", "lane 0's check", pe, plantedSeqs(rng, pe, 6)},
			{"#define STRIP_MUTATE 7\n", "the last strip's checks", pe, plantedSeqs(rng, pe, 6)},
			{"#define STRIP_MUTATE 4\n", "lane 0's C", pe, randomSeqs(rng, amino, 12, 80)},
			{"#define STRIP_MUTATE 6\n", "the last strip's C", pe, randomSeqs(rng, amino, 12, 80)}} {
			got, _ := runShimWave(t, cc, m.p, s, m.seqs, m.define)
			mutationCaught(t, v+": "+m.what, m.p, m.seqs, got)
		}
	}
	// The predicated record store (ps) of the wrong lane.
	for _, v := range []string{"strip4.ps", "strip4.se.rs.nr.bs.lc.ps"} {
		seqs := randomSeqs(rng, amino, 12, 80)
		got, _ := runShimWave(t, cc, p, stripVariant(t, 150, v), seqs, "#define STRIP_MUTATE 8\n")
		mutationCaught(t, v+": lane 30's record", p, seqs, got)
	}
	// Short strips (sh) that also shorten strip 0, where ranks 0-21 of
	// the 150 nodes hold 3 (strip 1's hold 2).
	for _, v := range []string{"strip4.sh", "strip4.se.rs.nr.bs.lc.ps.ea.rw.sh"} {
		seqs := randomSeqs(rng, amino, 12, 80)
		got, _ := runShimWave(t, cc, p, stripVariant(t, 150, v), seqs, "#define STRIP_MUTATE 10\n")
		mutationCaught(t, v+": strip 0 without its last slot", p, seqs, got)
	}
	// The residue ring (rw) read one row ahead, over targets that refill it.
	for _, v := range []string{"strip4.rs.rw", "strip4.se.rs.nr.bs.lc.ps.ea.rw"} {
		seqs := randomSeqs(rng, amino, 12, 150)
		got, _ := runShimWave(t, cc, p, stripVariant(t, 150, v), seqs, "#define STRIP_MUTATE 9\n")
		mutationCaught(t, v+": the next row's residue", p, seqs, got)
	}
}

// The I value of a strip's boundary record: a single-hit local model
// whose insert state at strip 0's last node b emits every residue at +2
// bits and loops for free, so every target's best path ends in I_b and
// crosses into strip 1 from I_b to M_(b+1), which reads I_b from the
// record. With one hit (sw) no check can fail and nothing is listed: the
// strip kernel's own cells give every score.
func TestKernelSourceOnCPUStripInsertBoundary(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(47))
	amino := plan7.NewAlphabet(plan7.Amino)
	cc := shimCompiler(t)
	const M = 150
	for _, v := range []string{"strip4", "strip4.se.rs.nr.bs", "strip4.se.rs.nr.bs.lc.ps.ea"} {
		s := stripVariant(t, M, v)
		b := 0 // strip 0's last node: rank 31's last
		for j := 0; j < s.C; j++ {
			b = max(b, s.node(31, j))
		}
		p := randomProfile(rng, amino, M, "sw", false)
		for x := range p.Isc {
			p.Isc[x][b] = 2000
		}
		p.Tsc[plan7.TMI][b], p.Tsc[plan7.TII][b], p.Tsc[plan7.TIM][b] = 0, 0, 0
		seqs := randomSeqs(rng, amino, 8, 60)
		got, flagged := runShimWave(t, cc, p, s, seqs, "")
		sameScores(t, fmt.Sprintf("inserts at node %d, strip 0's last %+v", b, s), p, seqs, got)
		if len(flagged) > 0 {
			t.Errorf("%s: %d targets listed, want none (one hit)", v, len(flagged))
		}
	}
}
