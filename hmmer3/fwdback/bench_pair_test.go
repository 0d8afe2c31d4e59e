package fwdback

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// BenchmarkForwardBatch reports GCUPS (nodes x residues per second, one
// core) of the Forward parser as the pipeline's filter runs it, one
// ForwardBatch of 16 random targets of 300 to 400 residues per iteration:
// "single" is one SSE Forward per target, "pair" the paired AVX2 kernel,
// "quad" the quad AVX-512 one.
// Models: four testdata ones (M = 86, 260, 803, 1142) and, when the
// shared data set is here, CUDAMPF query models (cN).
func BenchmarkForwardBatch(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	seqs := make([][]byte, 16)
	for i := range seqs {
		seqs[i] = randomDsq(rng, 300+rng.Intn(101), 20)
	}
	type model struct {
		name string
		om   *oprofile.Profile
	}
	var ms []model
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		ms = append(ms, model{name, loadModel(b, filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz"))})
	}
	dir := filepath.Join(testutil.RepoRoot(b), "..", "shared", "data", "CUDAMPF", "query_models")
	if d := os.Getenv("HMMGO_SHARED_DATA"); d != "" {
		dir = filepath.Join(d, "CUDAMPF", "query_models")
	}
	for _, n := range []string{"100", "200", "500", "1001", "2405"} {
		path := filepath.Join(dir, n+".hmm.gz")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		h := testmodels.ReadModel(b, path)
		ms = append(ms, model{"c" + n, oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)})
	}
	sc, errs := make([]float32, len(seqs)), make([]error, len(seqs))
	cellsPer := 0
	for _, s := range seqs {
		cellsPer += len(s)
	}
	for _, m := range ms {
		m.om.ReconfigMultihit(350)
		for _, kind := range []string{"single", "pair", "quad"} {
			l := map[string]simd.Level{"single": simd.SSE, "pair": simd.AVX2, "quad": simd.AVX512}[kind]
			if l > level {
				continue
			}
			b.Run(m.name+"/"+kind, func(b *testing.B) {
				withLevel(l, func() {
					defer lockThread()()
					pm := NewPairMatrix()
					cells, c0 := 0, threadCPU()
					for i := 0; i < b.N; i++ {
						ForwardBatch(seqs, m.om, sc, errs, pm)
						cells += cellsPer * m.om.M
					}
					reportCells(b, cells, threadCPU()-c0)
				})
			})
		}
	}
}
