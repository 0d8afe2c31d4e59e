// Package testmodels makes random but valid HMMER3 models and digital
// sequences for kernel tests, at sizes no model file in the repository has,
// and reads the fixture files tests share.
package testmodels

import (
	"math"
	"math/rand"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// RandomHMM returns a valid HMMER3 model of length M with random but
// realistic parameters: each match state favours one residue, transitions
// mostly go match to match. The E-value parameters are plausible
// constants. Kernels are tested on such models for lengths no real model
// file covers.
func RandomHMM(rng *rand.Rand, abc *alphabet.Alphabet, M int) *hmm.HMM {
	K := abc.K
	h := &hmm.HMM{Name: "random", M: M, Alph: abc, NSeq: -1, EffNSeq: -1, MaxLength: -1}
	h.T = make([][hmm.NTransitions]float32, M+1)
	h.Mat = make([][]float32, M+1)
	h.Ins = make([][]float32, M+1)
	norm := func(v []float32) {
		var s float32
		for _, x := range v {
			s += x
		}
		for i := range v {
			v[i] /= s
		}
	}
	for k := 0; k <= M; k++ {
		h.Mat[k] = make([]float32, K)
		h.Ins[k] = make([]float32, K)
		for x := 0; x < K; x++ {
			h.Mat[k][x] = 0.05 + rng.Float32()*0.3
			h.Ins[k][x] = 0.5 + rng.Float32()
		}
		h.Mat[k][rng.Intn(K)] += 1 + 6*rng.Float32()
		norm(h.Mat[k])
		norm(h.Ins[k])
		t := &h.T[k]
		t[hmm.TMM], t[hmm.TMI], t[hmm.TMD] = 0.85+0.1*rng.Float32(), 0.02+0.05*rng.Float32(), 0.02+0.05*rng.Float32()
		t[hmm.TIM], t[hmm.TII] = 0.5+0.4*rng.Float32(), 0.1+0.3*rng.Float32()
		t[hmm.TDM], t[hmm.TDD] = 0.5+0.4*rng.Float32(), 0.1+0.3*rng.Float32()
		if k == M {
			t[hmm.TMD], t[hmm.TDD], t[hmm.TDM] = 0, 0, 1
		}
		norm(t[0:3])
		norm(t[3:5])
		norm(t[5:7])
	}
	h.Compo = make([]float32, K)
	for k := 1; k <= M; k++ {
		for x := 0; x < K; x++ {
			h.Compo[x] += h.Mat[k][x] / float32(M)
		}
	}
	h.EvParam = [hmm.NEvParam]float32{-8.5, 0.72, -9.0, 0.72, -4.5, 0.72}
	h.HasStats = true
	return h
}

// RandomDsq returns a random digital sequence of length L over the
// canonical residues, with a degenerate or special code now and then.
func RandomDsq(rng *rand.Rand, abc *alphabet.Alphabet, L int) []byte {
	d := make([]byte, L)
	for i := range d {
		if rng.Intn(200) == 0 {
			d[i] = byte(abc.K + 1 + rng.Intn(abc.Kp-abc.K-1))
		} else {
			d[i] = byte(rng.Intn(abc.K))
		}
	}
	return d
}

// ProteinLength draws a target length from the log-normal mix the GPU
// tests and benchmarks use for protein databases: median e^5.6, about
// 270 residues, with a tail into the thousands.
func ProteinLength(rng *rand.Rand) int { return int(math.Exp(rng.NormFloat64()*0.6+5.6)) + 1 }

// RandomDatabase returns random targets of ProteinLength lengths, at
// least n residues in all, and their residue count. With rng seeded 1 it
// is the database of the GPU throughput tests and benchmarks.
func RandomDatabase(rng *rand.Rand, abc *alphabet.Alphabet, n int) (dsqs [][]byte, residues int) {
	for residues < n {
		L := ProteinLength(rng)
		dsqs = append(dsqs, RandomDsq(rng, abc, L))
		residues += L
	}
	return dsqs, residues
}
