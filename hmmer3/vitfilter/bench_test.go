package vitfilter

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
		ms = append(ms, benchModel{"c" + n, oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)})
	}
	for _, m := range ms {
		m.om.ReconfigLength(350)
	}
	return ms
}

func benchTargets() [][]byte {
	rng := rand.New(rand.NewSource(1))
	seqs := make([][]byte, 64)
	for i := range seqs {
		seqs[i] = randomSeq(rng, 350, 20)
	}
	return seqs
}

// BenchmarkFilter reports GCUPS (model nodes x residues per second, one
// core) of Score per model and kernel on 64 random targets of 350
// residues (uniform over the 20 amino acids).
func BenchmarkFilter(b *testing.B) {
	seqs := benchTargets()
	for _, m := range benchModels(b) {
		for _, l := range simd.Available() {
			b.Run(m.name+"/"+l.String(), func(b *testing.B) {
				defer lockThread()()
				cells, c0 := 0, threadCPU()
				for i := 0; i < b.N; i++ {
					s := seqs[i%len(seqs)]
					scoreWith(l, s, &m.om.Vit)
					cells += len(s) * m.om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
				if cpu := threadCPU() - c0; cpu > 0 {
					b.ReportMetric(float64(cells)/cpu.Seconds()/1e9, "cpu-GCUPS")
				}
			})
		}
	}
}

// BenchmarkBatch reports GCUPS of ScoreBatch on the same targets, 16 per
// call: "batch" is ScoreBatch as the pipeline calls it (the selected
// level; the multi-target kernels up to pairMaxM or multiMaxM, one
// target at a time above), "batch/L" the same at level L, "pair/L" the
// multi-target kernel of level L forced on at every M, and on AVX-512
// "quad" and "duo" its two forms (four targets of 8 lanes, two of 16).
func BenchmarkBatch(b *testing.B) {
	seqs := benchTargets()
	for _, m := range benchModels(b) {
		jobs := make([]Job, len(seqs))
		for i := range jobs {
			jobs[i] = Job{Dsq: seqs[i], XW: m.om.Vit.XW}
		}
		out := make([]float32, 16)
		run := func(name string, l simd.Level, force bool, mk multiKernel) {
			b.Run(m.name+"/"+name, func(b *testing.B) {
				if force {
					defer forceMultiTarget()()
				}
				defer func(mk multiKernel) { multiAVX512 = mk }(multiAVX512)
				multiAVX512 = mk
				defer lockThread()()
				cells, c0 := 0, threadCPU()
				for i := 0; i < b.N; i++ {
					j := jobs[(i*16)%len(jobs):][:16]
					scoreBatch(l, &m.om.Vit, j, out)
					cells += 16 * 350 * m.om.M
				}
				b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
				if cpu := threadCPU() - c0; cpu > 0 {
					b.ReportMetric(float64(cells)/cpu.Seconds()/1e9, "cpu-GCUPS")
				}
			})
		}
		run("batch", level, false, multiAVX512)
		for _, l := range simd.Available() {
			if l >= simd.AVX2 {
				run("batch/"+l.String(), l, false, multiAVX512)
				run("pair/"+l.String(), l, true, multiAVX512)
			}
			if l >= simd.AVX512 {
				run("quad/"+l.String(), l, true, quadAVX512)
				run("duo/"+l.String(), l, true, duoAVX512)
			}
		}
	}
}
