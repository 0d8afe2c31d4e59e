package profile

import (
	"math"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// Transition score indices into Profile.TSC[k], HMMER's order
// (p7P_MM ... p7P_DD). BM of node k is stored at TSC[k-1][BM].
const (
	PMM = iota
	PIM
	PDM
	PBM
	PMD
	PMI
	PII
	PDD
	NTrans
)

// Special states and their two transitions.
const (
	XE = iota
	XN
	XJ
	XC
)
const (
	Loop = 0
	Move = 1
)

var negInf = float32(math.Inf(-1))

// Profile is a configured log-odds profile (P7_PROFILE) in nats, local
// multihit mode.
type Profile struct {
	M   int
	Abc *alphabet.Alphabet
	// TSC[k][t] for k = 0..M-1 (node 0 holds only the BM entry into M1).
	TSC [][NTrans]float32
	// MSC[x][k] is the match score of node k (1..M) for residue code x.
	MSC [][]float32
	XSC [4][2]float32
	NJ  float32 // expected number of J passes: 1 multihit, 0 unihit
	L   int     // length the N, C, J transitions are set for
}

// Config builds the local multihit profile of h against bg with length
// model L (p7_ProfileConfig with p7_LOCAL).
func Config(h *hmm.HMM, bg *Background, L int) *Profile {
	M := h.M
	abc := h.Alph
	gm := &Profile{M: M, Abc: abc}
	gm.TSC = make([][NTrans]float32, M)
	for t := 0; t < NTrans; t++ {
		gm.TSC[0][t] = negInf
	}

	// Local entry: occ[k] / sum_i occ[i]*(M-i+1), stored off by one.
	occ := Occupancy(h)
	var Z float32
	for k := 1; k <= M; k++ {
		Z += float32(occ[k] * float32(M-k+1))
	}
	for k := 1; k <= M; k++ {
		gm.TSC[k-1][PBM] = float32(easel.Log(float64(occ[k] / Z)))
	}

	gm.XSC[XE][Move] = float32(-math.Ln2)
	gm.XSC[XE][Loop] = float32(-math.Ln2)
	gm.NJ = 1.0

	for k := 1; k < M; k++ {
		t := &h.T[k]
		tp := &gm.TSC[k]
		tp[PMM] = logf64(t[hmm.TMM])
		tp[PMI] = logf64(t[hmm.TMI])
		tp[PMD] = logf64(t[hmm.TMD])
		tp[PIM] = logf64(t[hmm.TIM])
		tp[PII] = logf64(t[hmm.TII])
		tp[PDM] = logf64(t[hmm.TDM])
		tp[PDD] = logf64(t[hmm.TDD])
	}

	gm.MSC = make([][]float32, abc.Kp)
	for x := range gm.MSC {
		gm.MSC[x] = make([]float32, M+1)
		gm.MSC[x][0] = negInf
	}
	sc := make([]float32, abc.Kp)
	sc[abc.K] = negInf
	sc[abc.Kp-2] = negInf
	sc[abc.Kp-1] = negInf
	for k := 1; k <= M; k++ {
		for x := 0; x < abc.K; x++ {
			sc[x] = float32(easel.Log(float64(h.Mat[k][x]) / float64(bg.F[x])))
		}
		abc.FExpectScVec(sc, bg.F)
		for x := 0; x < abc.Kp; x++ {
			gm.MSC[x][k] = sc[x]
		}
	}
	gm.ReconfigLength(L)
	return gm
}

// logf64 is HMMER's log() of a float probability, stored as float.
func logf64(p float32) float32 { return float32(easel.Log(float64(p))) }

// Occupancy returns the match state occupancy of each node 1..M
// (p7_hmm_CalculateOccupancy); occ[0] is 0.
func Occupancy(h *hmm.HMM) []float32 {
	occ := make([]float32, h.M+1)
	occ[1] = h.T[0][hmm.TMI] + h.T[0][hmm.TMM]
	for k := 2; k <= h.M; k++ {
		t := &h.T[k-1]
		// The first product is float, the second double (1.0 is a double
		// constant in HMMER's C), and the sum is rounded once.
		a := float32(occ[k-1] * (t[hmm.TMM] + t[hmm.TMI]))
		b := (1.0 - float64(occ[k-1])) * float64(t[hmm.TDM])
		occ[k] = float32(float64(a) + b)
	}
	return occ
}

// ReconfigLength sets the N, C and J transitions for a target of length L
// (p7_ReconfigLength).
func (gm *Profile) ReconfigLength(L int) {
	pmove := (2.0 + gm.NJ) / (float32(L) + 2.0 + gm.NJ)
	ploop := 1.0 - pmove
	lp, mv := logf64(ploop), logf64(pmove)
	for _, s := range []int{XN, XC, XJ} {
		gm.XSC[s][Loop] = lp
		gm.XSC[s][Move] = mv
	}
	gm.L = L
}

// MaxMatchScore is the largest match or insert score over canonical
// residues (insert scores are 0), the basis of the MSV byte bias.
func (gm *Profile) MaxMatchScore() float32 {
	max := float32(0)
	for x := 0; x < gm.Abc.K; x++ {
		for k := 1; k <= gm.M; k++ {
			if gm.MSC[x][k] > max {
				max = gm.MSC[x][k]
			}
		}
	}
	return max
}
