package fwdback

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// BenchmarkEnvelopeGroup reports GCUPS per core (nodes x residues per
// second) of rescoring's full-matrix Forward ("fwd") and Backward
// ("bck") on four envelopes per iteration: the model's consensus
// envelope (consensusEnvelope) with a tenth of its residues redrawn and
// 0-19 residues cut from its end, each profile unihit with its own
// length. "single" is Forward/Backward one envelope at a time (the wide
// AVX2 rows), "pair" ForwardGroup/BackwardGroup two at a time (AVX2),
// "quad" four at a time (AVX-512). "par" is the Backward parser of the
// same four (BackwardParsers), each profile multihit with its own
// length, as domain definition runs it on whole targets.
func BenchmarkEnvelopeGroup(b *testing.B) {
	paths := map[string]string{}
	for _, name := range []string{"fn3", "Pkinase", "SMC_N"} {
		paths[name] = filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz")
	}
	for _, name := range []string{"fn3", "Pkinase", "SMC_N", "2405"} {
		path := paths[name]
		if name == "2405" {
			path = filepath.Join(testutil.SharedData(b, "CUDAMPF/query_models"), "2405.hmm.gz")
		}
		om, cons := consensusEnvelope(b, path)
		rng := rand.New(rand.NewSource(1))
		ds, oms := make([][]byte, 4), make([]*oprofile.Profile, 4)
		fwds, bcks := make([]*Matrix, 4), make([]*Matrix, 4)
		pms, pfs := make([]*oprofile.Profile, 4), make([]*Matrix, 4)
		cellsPer := 0
		for j := range ds {
			d := append([]byte(nil), cons[:len(cons)-rng.Intn(20)]...)
			for i := range d {
				if rng.Intn(10) == 0 {
					d[i] = byte(rng.Intn(om.Abc.K))
				}
			}
			c, m := *om, *om
			c.ReconfigUnihit(len(d))
			m.ReconfigLength(len(d))
			ds[j], oms[j], pms[j] = d, &c, &m
			fwds[j], bcks[j], pfs[j] = NewMatrix(), NewMatrix(), NewMatrix()
			Forward(d, &m, pfs[j], false)
			cellsPer += len(d) * om.M
		}
		sc, errs := make([]float32, 4), make([]error, 4)
		w := NewEnvWork()
		for _, kind := range []string{"single", "pair", "quad"} {
			l := map[string]simd.Level{"single": simd.AVX2, "pair": simd.AVX2, "quad": simd.AVX512}[kind]
			if l > level {
				continue
			}
			size := map[string]int{"single": 1, "pair": 2, "quad": 4}[kind]
			for _, dir := range []string{"fwd", "bck", "par"} {
				b.Run(name+"/"+dir+"/"+kind, func(b *testing.B) {
					withLevel(l, func() {
						ForwardGroup(ds[:2], oms[:2], fwds[:2], sc, errs, w)
						ForwardGroup(ds[2:], oms[2:], fwds[2:], sc, errs, w)
						defer lockThread()()
						cells, c0 := 0, threadCPU()
						b.ResetTimer()
						for i := 0; i < b.N; i++ {
							for j := 0; j < 4; j += size {
								switch dir {
								case "fwd":
									ForwardGroup(ds[j:j+size], oms[j:j+size], fwds[j:j+size], sc, errs, w)
								case "par":
									BackwardParsers(ds[j:j+size], pms[j:j+size], pfs[j:j+size], bcks[j:j+size], sc, errs, w)
								default:
									BackwardGroup(ds[j:j+size], oms[j:j+size], fwds[j:j+size], bcks[j:j+size], sc, errs, w)
								}
							}
							cells += cellsPer
						}
						reportCells(b, cells, threadCPU()-c0)
					})
				})
			}
		}
	}
}
