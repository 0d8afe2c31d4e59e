package msvfilter

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// loadModel configures a testdata model as hmmsearch does (local
// multihit, L=100), with the bias filter's background.
func loadModel(tb testing.TB, name string) *oprofile.Profile {
	tb.Helper()
	r, err := hmm.OpenFile(filepath.Join(testutil.Testdata(tb, "hmmer3/models"), name+".hmm.gz"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		tb.Fatal(err)
	}
	return profileOf(h)
}

// profileOf is h configured as hmmsearch configures a query (L = 100)
// and converted to the vector profile.
func profileOf(h *hmm.HMM) *oprofile.Profile {
	return oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)
}

// randomTargets draws n sequences of length L, residues uniform over the
// K canonical codes: for a filter, mostly non-homologous targets.
func randomTargets(n, L, K int, seed int64) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	seqs := make([][]byte, n)
	for i := range seqs {
		seqs[i] = make([]byte, L)
		for j := range seqs[i] {
			seqs[i][j] = byte(rng.Intn(K))
		}
	}
	return seqs
}

// benchModel is a model configured for targets of 350 residues.
type benchModel struct {
	name string
	om   *oprofile.Profile
}

// benchModels are four testdata models (M = 86, 260, 803, 1142) and, when
// the shared data set is here, CUDAMPF query models of M = 100 to 2405
// (named cN).
func benchModels(b *testing.B) []benchModel {
	var ms []benchModel
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		ms = append(ms, benchModel{name, loadModel(b, name)})
	}
	dir := filepath.Join(testutil.RepoRoot(b), "..", "shared", "data", "CUDAMPF", "query_models")
	if d := os.Getenv("HMMGO_SHARED_DATA"); d != "" {
		dir = filepath.Join(d, "CUDAMPF", "query_models")
	}
	for _, n := range []string{"100", "200", "300", "400", "500", "800", "1001", "1509", "2405"} {
		path := filepath.Join(dir, n+".hmm.gz")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		h := testmodels.ReadModel(b, path)
		ms = append(ms, benchModel{"c" + n, profileOf(h)})
	}
	for _, m := range ms {
		m.om.ReconfigLength(350)
	}
	return ms
}

// BenchmarkFilter reports GCUPS (model nodes x residues per second, one
// core) of Score, which is SSV for almost every random target, and of the
// full MSV program, per model and kernel, on 64 random targets of 350
// residues (uniform over the 20 amino acids).
func BenchmarkFilter(b *testing.B) {
	seqs := randomTargets(64, 350, 20, 1)
	for _, m := range benchModels(b) {
		om := m.om
		for _, l := range simd.Available() {
			b.Run(m.name+"/ssv/"+l.String(), func(b *testing.B) {
				defer lockThread()()
				cells, c0 := 0, threadCPU()
				for i := 0; i < b.N; i++ {
					s := seqs[i%len(seqs)]
					scoreWith(l, s, &om.MSV)
					cells += len(s) * om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
				if cpu := threadCPU() - c0; cpu > 0 {
					b.ReportMetric(float64(cells)/cpu.Seconds()/1e9, "cpu-GCUPS")
				}
			})
			b.Run(m.name+"/msv/"+l.String(), func(b *testing.B) {
				defer lockThread()()
				cells, c0 := 0, threadCPU()
				for i := 0; i < b.N; i++ {
					s := seqs[i%len(seqs)]
					if l == simd.Generic {
						kn := kernels.Get().(*kernel)
						swarMSV(kn, s, &om.MSV)
						kernels.Put(kn)
					} else {
						msvVector(l, s, &om.MSV, stripesFor(l, &om.MSV))
					}
					cells += len(s) * om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
				if cpu := threadCPU() - c0; cpu > 0 {
					b.ReportMetric(float64(cells)/cpu.Seconds()/1e9, "cpu-GCUPS")
				}
			})
		}
	}
}
