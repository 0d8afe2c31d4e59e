package fwdback

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestTraceSamplerRealModels: 200 traces per target (as domain
// definition samples a region) from TraceSampler and from StochasticTrace,
// each from its own generator with the same seed, are the same traces,
// on every testdata model against targets of its database (multihit
// Forward matrices of whole targets).
func TestTraceSamplerRealModels(t *testing.T) {
	var s TraceSampler
	forEachModelForward(t, 3, func(path string, om *oprofile.Profile, sq *seqio.Sequence, fwd *Matrix, n int) {
		want, got := easel.NewRandom(uint32(7+n)), easel.NewRandom(uint32(7+n))
		var wtr, gtr hits.Trace
		s.Reset(fwd)
		for z := 0; z < 200; z++ {
			StochasticTrace(want, om, fwd, &wtr)
			s.Trace(got, om, &gtr)
			if !slices.Equal(gtr.St, wtr.St) || !slices.Equal(gtr.K, wtr.K) || !slices.Equal(gtr.I, wtr.I) {
				t.Fatalf("%s vs %s: trace %d differs", filepath.Base(path), sq.Name, z)
			}
		}
		if want.Float64() != got.Float64() {
			t.Fatalf("%s vs %s: the generators drifted apart", filepath.Base(path), sq.Name)
		}
	})
}

// TestTraceSamplerSelectE: the kept sums pick what stoSelectE's scan
// picks, for rolls in random order (so that a row's sums are extended
// piece by piece), at and just below every running sum, and past the
// row's total (HMMER's second scan), on rows of non-negative values
// (bisection) and of values with negatives and zeros (linear search).
func TestTraceSamplerSelectE(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var s TraceSampler
	for trial := 0; trial < 300; trial++ {
		M, L := 1+rng.Intn(200), 1+rng.Intn(4)
		ox := NewMatrix()
		ox.grow(M, L, true)
		signed := trial%3 == 0
		for j := range ox.dp {
			for z := range ox.dp[j] {
				v := float32(rng.ExpFloat64())
				switch {
				case rng.Intn(5) == 0:
					v = 0
				case signed && rng.Intn(4) == 0:
					v = -v / 8 // rows still sum above zero: a second scan ends
				}
				ox.dp[j][z] = v
			}
		}
		var rows []int
		for i := 1; i <= L; i++ {
			ox.row(i)[0][0] = 1
			// E near the row's total, so that rolls fall all along it.
			var tot float32
			for _, v := range flat(ox.row(i)) {
				tot += max(v, 0)
			}
			ox.X[i][XE] = tot * float32(0.8+0.3*rng.Float64())
			rows = append(rows, i)
		}
		s.Reset(ox)
		var rolls []float64
		for _, i := range rows {
			sum, norm := 0.0, splat(ftz64(1.0/float64(ox.X[i][XE])))
			for q := 0; q < ox.Q; q++ {
				for _, c := range []int{cM, cD} {
					for _, u := range vmul(ox.row(i)[q*3+c], norm) {
						sum += float64(u)
						if sum >= 0 && sum < 1 {
							rolls = append(rolls, sum, math.Nextafter(sum, -1))
						}
					}
				}
			}
		}
		for n := 0; n < 40; n++ {
			rolls = append(rolls, rng.Float64())
		}
		rng.Shuffle(len(rolls), func(a, b int) { rolls[a], rolls[b] = rolls[b], rolls[a] })
		for _, roll := range rolls {
			i := rows[rng.Intn(len(rows))]
			ws, wk := stoSelectE(ox, i, roll)
			gs, gk := s.selectE(i, roll)
			if gs != ws || gk != wk {
				t.Fatalf("%s: row %d roll %v: %v %d, scan %v %d", fmt.Sprintf("trial %d (M=%d signed=%v)", trial, M, signed), i, roll, gs, gk, ws, wk)
			}
		}
	}
}

// BenchmarkTraceEnsemble samples 200 traces (a region's ensemble in
// domain definition) from the multihit Forward matrix of a target
// holding the model's consensus envelope twice, with StochasticTrace and
// with a TraceSampler; thread CPU ms per ensemble.
func BenchmarkTraceEnsemble(b *testing.B) {
	for _, name := range []string{"fn3", "Pkinase", "SMC_N"} {
		om, env := consensusEnvelope(b, filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz"))
		dsq := append(slices.Clone(env), env...)
		om.ReconfigMultihit(len(dsq))
		fwd := NewMatrix()
		if _, err := Forward(dsq, om, fwd, true); err != nil {
			b.Fatal(err)
		}
		for _, kept := range []bool{false, true} {
			what := "StochasticTrace"
			if kept {
				what = "TraceSampler"
			}
			b.Run(name+"/"+what, func(b *testing.B) {
				defer lockThread()()
				rng := easel.NewRandom(42)
				var tr hits.Trace
				var s TraceSampler
				c0 := threadCPU()
				for i := 0; i < b.N; i++ {
					s.Reset(fwd)
					for z := 0; z < 200; z++ {
						if kept {
							s.Trace(rng, om, &tr)
						} else {
							StochasticTrace(rng, om, fwd, &tr)
						}
					}
				}
				b.ReportMetric((threadCPU()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
