package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// (trial) lc2 on the CPU shim.
func TestKernelSourceOnCPUStripLC2(t *testing.T) {
	rng := rand.New(rand.NewSource(45))
	amino := plan7.NewAlphabet(plan7.Amino)
	dna := plan7.NewAlphabet(plan7.Nucleic)
	cases := []shimCase{
		{stripVariant(t, 300, "strip4.lc2"), 300, amino, 8, 70, "3 strips, lc2"},
		{stripVariant(t, 900, "strip4.se.rs.nr.bs.lc2.b64"), 900, dna, 5, 150, "8 strips lc2"},
	}
	none := func(int) []Shape { return nil }
	checkShapesOnCPU(t, rng, cases, 300, 0, none, 0, nil, none)
	cc := shimCompiler(t)
	plantedListed(t, cc, rng, amino, func(v string) Shape { return stripVariant(t, 150, v) }, []string{"strip4.lc2", "strip4.se.rs.nr.bs.lc2"})
	p := oneExitProfile(rng, amino, 150, 40)
	seqs := append(plantedSeqs(rng, p, 4), randomSeqs(rng, amino, 8, 80)...)
	for _, v := range []string{"strip4.se.rs.nr.bs.lc2"} {
		s := stripVariant(t, 150, v)
		got, flagged := runShimWave(t, cc, p, s, seqs, "")
		sameScores(t, fmt.Sprintf("one exit node %+v", s), p, seqs, got)
		if len(flagged) < 4 {
			t.Errorf("one exit node %s: %d listed", v, len(flagged))
		}
	}
}
