package fwdback

import (
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// reportCells reports GCUPS of wall time and of the thread's CPU time
// (cpu-GCUPS; see threadCPU).
func reportCells(b *testing.B, cells int, cpu time.Duration) {
	b.ReportMetric(float64(cells)/b.Elapsed().Seconds()/1e9, "GCUPS")
	if cpu > 0 {
		b.ReportMetric(float64(cells)/cpu.Seconds()/1e9, "cpu-GCUPS")
	}
}

// BenchmarkParsers reports GCUPS (nodes x residues per second, one core)
// of the Forward parser and of Forward+Backward parsers, as the pipeline
// runs them, per model and kernel on random targets of 350 residues.
func BenchmarkParsers(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	seqs := make([][]byte, 16)
	for i := range seqs {
		seqs[i] = make([]byte, 350)
		for j := range seqs[i] {
			seqs[i][j] = byte(rng.Intn(20))
		}
	}
	for _, name := range []string{"fn3", "Pkinase", "Patched", "SMC_N"} {
		om := loadModel(b, filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz"))
		om.ReconfigLength(350)
		fwd, bck := NewMatrix(), NewMatrix()
		for _, l := range simd.Available()[:min(3, len(simd.Available()))] { // generic, sse, avx2 (avx512 runs avx2's rows)
			b.Run(name+"/fwd/"+l.String(), func(b *testing.B) {
				withLevel(l, func() {
					defer lockThread()()
					cells, c0 := 0, threadCPU()
					for i := 0; i < b.N; i++ {
						s := seqs[i%len(seqs)]
						if _, err := Forward(s, om, fwd, false); err != nil {
							b.Fatal(err)
						}
						cells += len(s) * om.M
					}
					reportCells(b, cells, threadCPU()-c0)
				})
			})
			b.Run(name+"/fwdbck/"+l.String(), func(b *testing.B) {
				withLevel(l, func() {
					defer lockThread()()
					cells, c0 := 0, threadCPU()
					for i := 0; i < b.N; i++ {
						s := seqs[i%len(seqs)]
						if _, err := Forward(s, om, fwd, false); err != nil {
							b.Fatal(err)
						}
						if _, err := Backward(s, om, fwd, bck, false); err != nil {
							b.Fatal(err)
						}
						cells += len(s) * om.M
					}
					reportCells(b, cells, threadCPU()-c0)
				})
			})
		}
	}
}
