package fwdback

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// consensusEnvelope is a domain envelope as domain definition rescores
// it: the model's consensus (most likely residue of every match state)
// with 20 random-looking residues on each side, the profile in unihit
// mode for that length. Posteriors then concentrate on one path, as on a
// real homolog.
func consensusEnvelope(tb testing.TB, path string) (*oprofile.Profile, []byte) {
	tb.Helper()
	r, err := hmm.OpenFile(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		tb.Fatal(err)
	}
	var dsq []byte
	flank := func(seed int) {
		for i := 0; i < 20; i++ {
			dsq = append(dsq, byte((seed+7*i)%h.Alph.K))
		}
	}
	flank(3)
	for k := 1; k <= h.M; k++ {
		best := 0
		for x, p := range h.Mat[k] {
			if p > h.Mat[k][best] {
				best = x
			}
		}
		dsq = append(dsq, byte(best))
	}
	flank(11)
	om := oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), len(dsq)), h)
	om.ReconfigUnihit(len(dsq))
	return om, dsq
}

// BenchmarkDomainKernels times the per-envelope steps of domain
// definition: Forward and Backward (full matrices as rescoring uses them,
// and parsers for comparison), posterior decoding, optimal accuracy, its
// traceback and null2 by expectation, and rescoring's whole sequence from
// fresh matrices ("rescore"), per model and kernel level. Mcells/s counts M x L cells per second (one core).
func BenchmarkDomainKernels(b *testing.B) {
	models := map[string]string{}
	for _, name := range []string{"fn3", "Pkinase", "SMC_N"} {
		models[name] = filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz")
	}
	for _, name := range []string{"fn3", "Pkinase", "SMC_N", "2405"} {
		path := models[name]
		if name == "2405" {
			path = filepath.Join(testutil.SharedData(b, "CUDAMPF/query_models"), "2405.hmm.gz")
		}
		om, dsq := consensusEnvelope(b, path)
		L := len(dsq)
		fwd, bck, pp, ox := NewMatrix(), NewMatrix(), NewMatrix(), NewMatrix()
		if _, err := Forward(dsq, om, fwd, true); err != nil {
			b.Fatal(err)
		}
		if _, err := Backward(dsq, om, fwd, bck, true); err != nil {
			b.Fatal(err)
		}
		null2 := make([]float32, om.Abc.Kp)
		var tr hits.Trace
		// timed runs f b.N times at level l and reports Mcells/s of wall
		// time and the thread's CPU milliseconds per call.
		timed := func(b *testing.B, l simd.Level, setup, f func()) {
			withLevel(l, func() {
				defer lockThread()()
				if setup != nil {
					setup()
				}
				b.ResetTimer()
				c0 := threadCPU()
				for i := 0; i < b.N; i++ {
					f()
				}
				cpu := threadCPU() - c0
				b.ReportMetric(float64(om.M)*float64(L)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mcells/s")
				b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
			})
		}
		for _, l := range simd.Available() {
			for _, full := range []bool{true, false} {
				kind := "parser"
				if full {
					kind = "full"
				}
				mf, mb := NewMatrix(), NewMatrix()
				b.Run(name+"/forward-"+kind+"/"+l.String(), func(b *testing.B) {
					timed(b, l, nil, func() { Forward(dsq, om, mf, full) })
				})
				b.Run(name+"/backward-"+kind+"/"+l.String(), func(b *testing.B) {
					timed(b, l, func() { Forward(dsq, om, mf, full) }, func() { Backward(dsq, om, mf, mb, full) })
				})
			}
			withLevel(l, func() {
				if err := Decoding(om, fwd, bck, pp); err != nil {
					b.Fatal(err)
				}
				OptimalAccuracy(om, pp, ox)
			})
			// Domain definition's sequence on one envelope, in place as
			// rescoring runs it: the three calls, then DecodeAlign. Each
			// iteration first restores the matrices (not timed).
			fw, bk := NewMatrix(), NewMatrix()
			for _, fused := range []bool{false, true} {
				what := "separate"
				if fused {
					what = "fused"
				}
				b.Run(name+"/decode-oa-null2-"+what+"/"+l.String(), func(b *testing.B) {
					withLevel(l, func() {
						defer lockThread()()
						var cpu, wall time.Duration
						for i := 0; i < b.N; i++ {
							fw.grow(om.M, L, true)
							bk.grow(om.M, L, true)
							copy(fw.dp, fwd.dp)
							copy(fw.X, fwd.X)
							copy(bk.dp, bck.dp)
							copy(bk.X, bck.X)
							bk.HasOwnScales = bck.HasOwnScales
							c0, w0 := threadCPU(), time.Now()
							var err error
							if fused {
								_, err = DecodeAlign(om, fw, bk, null2)
							} else if err = Decoding(om, fw, bk, bk); err == nil {
								OptimalAccuracy(om, bk, fw)
								Null2ByExpectation(om, bk, null2)
							}
							cpu += threadCPU() - c0
							wall += time.Since(w0)
							if err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(om.M)*float64(L)*float64(b.N)/wall.Seconds()/1e6, "Mcells/s")
						b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
					})
				})
			}
			// Rescoring's whole sequence on one envelope, from fresh
			// matrices: Forward and Backward with their matrices stored,
			// then DecodeAlign reading them back.
			rf, rb := NewMatrix(), NewMatrix()
			b.Run(name+"/rescore/"+l.String(), func(b *testing.B) {
				timed(b, l, nil, func() {
					Forward(dsq, om, rf, true)
					Backward(dsq, om, rf, rb, true)
					if _, err := DecodeAlign(om, rf, rb, null2); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(name+"/decoding/"+l.String(), func(b *testing.B) {
				timed(b, l, nil, func() { Decoding(om, fwd, bck, pp) })
			})
			b.Run(name+"/oa/"+l.String(), func(b *testing.B) {
				timed(b, l, nil, func() { OptimalAccuracy(om, pp, ox) })
			})
			b.Run(name+"/oatrace/"+l.String(), func(b *testing.B) {
				timed(b, l, nil, func() { OATrace(om, pp, ox, &tr) })
			})
			b.Run(name+"/null2/"+l.String(), func(b *testing.B) {
				timed(b, l, nil, func() { Null2ByExpectation(om, pp, null2) })
			})
		}
	}
}
