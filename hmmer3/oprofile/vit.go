package oprofile

import (
	"math"

	"github.com/hmmgo/hmmgo/easel"

	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Viterbi filter transition indices into VitProfile.T[k]: the first four
// lead into node k from node k-1 (or from B), the rest leave node k.
const (
	VBM = iota
	VMM
	VIM
	VDM
	VMD
	VMI
	VII
	VDD
)

// VitProfile is the Viterbi filter's score system: signed 16-bit scores in
// 1/500 bits offset by Base, indexed by node.
type VitProfile struct {
	M     int
	Scale float32 // 500/ln 2
	Base  int16   // 12000
	// RWV[x][k] is node k's (1..M) match score for residue x.
	RWV [][]int16
	// T[k] holds node k's transitions (1..M), in the V* order; all are
	// capped at 0 and II at -1, as HMMER does.
	T  [][8]int16
	XW [4][2]int16
	// DDBound bounds what a D->D path can add over the B->M entry it
	// competes with (HMMER's ddbound_w, "lazy F"): when the largest M->D
	// cell of a row plus DDBound does not exceed xB, no D->D path can
	// change the next row.
	DDBound int
	// Stripes are RWV and T in the vector kernels' striped order, one
	// table per vector width (see Stripe).
	Stripes []*VitStripes
}

// wordify turns a score into a 16-bit score, saturating.
func wordify(scale, sc float32) int16 {
	s := roundf(scale * sc)
	switch {
	case s >= 32767.0:
		return 32767
	case s <= -32768.0:
		return -32768
	}
	return int16(s)
}

func (p *VitProfile) convert(gm *profile.Profile) {
	M := gm.M
	p.M = M
	p.Scale = float32(500.0 / math.Ln2)
	p.Base = 12000
	p.RWV = make([][]int16, gm.Abc.Kp)
	for x := range p.RWV {
		p.RWV[x] = make([]int16, M+1)
		for k := 1; k <= M; k++ {
			p.RWV[x][k] = wordify(p.Scale, gm.MSC[x][k])
		}
	}
	capped := func(k, t int, max int16) int16 {
		if k >= M {
			return -32768
		}
		v := wordify(p.Scale, gm.TSC[k][t])
		if v > max {
			v = max
		}
		return v
	}
	p.T = make([][8]int16, M+1)
	for k := 1; k <= M; k++ {
		t := &p.T[k]
		t[VBM] = capped(k-1, profile.PBM, 0)
		t[VMM] = capped(k-1, profile.PMM, 0)
		t[VIM] = capped(k-1, profile.PIM, 0)
		t[VDM] = capped(k-1, profile.PDM, 0)
		t[VMD] = capped(k, profile.PMD, 0)
		t[VMI] = capped(k, profile.PMI, 0)
		t[VII] = capped(k, profile.PII, -1)
		t[VDD] = capped(k, profile.PDD, 32767) // DD is not capped
	}
	p.DDBound = -32768
	for k := 2; k < M-1; k++ {
		b := int(wordify(p.Scale, gm.TSC[k][profile.PDD])) + int(wordify(p.Scale, gm.TSC[k+1][profile.PDM])) -
			int(wordify(p.Scale, gm.TSC[k+1][profile.PBM]))
		p.DDBound = max(p.DDBound, b)
	}
	p.Stripe()
	p.XW[profile.XE][profile.Loop] = wordify(p.Scale, gm.XSC[profile.XE][profile.Loop])
	p.XW[profile.XE][profile.Move] = wordify(p.Scale, gm.XSC[profile.XE][profile.Move])
	for _, s := range []int{profile.XN, profile.XC, profile.XJ} {
		p.XW[s][profile.Move] = wordify(p.Scale, gm.XSC[s][profile.Move])
		// Loops are 0: HMMER's "-3 nats" approximation replaces them.
		p.XW[s][profile.Loop] = 0
	}
}

// MoveFor is the N/C/J->move score for a target of length L with nj
// expected J passes (1 multihit, 0 unihit), as ReconfigRestLength sets it;
// batch kernels use it per target.
func (p *VitProfile) MoveFor(L int, nj float32) int16 {
	pmove := (2.0 + nj) / (float32(L) + 2.0 + nj)
	return wordify(p.Scale, easel.Logf(pmove))
}
