package fwdback

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// compareParsers runs GPU.Parsers and checks every target against the
// CPU's parser Forward and Backward; it returns how many targets made
// Backward use its own scale factors.
func compareParsers(t *testing.T, g *GPU, what string, om *oprofile.Profile, dsqs [][]byte) int {
	t.Helper()
	got, err := g.Parsers(om, dsqs, nil)
	if err != nil {
		t.Fatalf("%s (M=%d): %v", what, om.M, err)
	}
	want := make([]Parser, len(dsqs))
	testutil.Each(len(dsqs), func(i int) { want[i] = cpuParser(om, dsqs[i], len(dsqs[i])) })
	own := 0
	for i := range dsqs {
		sameParser(t, fmt.Sprintf("%s (M=%d, %s) target %d (L=%d)", what, om.M, g.LastShape, i, len(dsqs[i])), got[i], want[i])
		if want[i].Bck.HasOwnScales {
			own++
		}
	}
	return own
}

// TestGPUParsersMatchCPU: the special rows of the GPU's Forward and
// Backward (what domain definition reads) equal the CPU's bit for bit.
func TestGPUParsersMatchCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		if h.Alph.Type == alphabet.DNA {
			compareParsers(t, g, h.Name, optimizedProfile(h), nuc)
		} else {
			compareParsers(t, g, h.Name, optimizedProfile(h), prot)
		}
	}
	rng := rand.New(rand.NewSource(29))
	own := 0
	for _, M := range []int{3, 30, 99, 100, 150, 400, 800} {
		for _, unihit := range []bool{false, true} {
			h := testmodels.RandomHMM(rng, amino, M)
			if M == 150 {
				h = deletionHeavy(h)
			}
			om := optimizedProfile(h)
			if unihit {
				om.ReconfigUnihit(om.L)
			}
			dsqs := randomTargets(rng, h, 120, 1500)
			for r := 0; r < 10; r++ {
				dsqs = append(dsqs, homolog(rng, h, 2+r))
			}
			own += compareParsers(t, g, fmt.Sprintf("random unihit=%v", unihit), om, dsqs)
		}
	}
	if own == 0 {
		t.Error("no target made Backward switch to its own scale factors")
	}
	proteome := testmodels.ReadDsqs(t, testutil.GPUData(t, "pyhmmer/seqs/938293.PRJEB85.HG003687.faa"), amino)
	for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
		// Forward survivors are few: a few hundred targets per model.
		var dsqs [][]byte
		for i := 0; i < len(proteome); i += 7 {
			dsqs = append(dsqs, proteome[i])
		}
		if h.M > 1000 {
			dsqs = dsqs[:len(dsqs)/3]
		}
		compareParsers(t, g, h.Name, optimizedProfile(h), dsqs)
	}
}
