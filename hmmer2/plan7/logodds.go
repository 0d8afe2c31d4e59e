package plan7

import "math"

// Profile is a model in search form: the scaled integer log-odds scores
// that HMMER2's DP algorithms read (P7Logoddsify). Node vectors have
// M+1 entries; entry 0 is -Infty, the boundary condition Viterbi uses.
type Profile struct {
	HMM *HMM
	M   int
	// Tsc[TMM..TDD][k], k = 0..M-1 meaningful (entry 0 = -Infty).
	Tsc [7][]int32
	// Msc[x][k] match emission of symbol x (degenerate symbols
	// included), k = 1..M; Isc[x][k] insert emission, k = 1..M-1.
	Msc [MaxCode][]int32
	Isc [MaxCode][]int32
	Bsc []int32 // B->M_k entry, B->D1..D(k-1) folded in
	Esc []int32 // M_k->E exit, D(k+1)..D_M folded in
	Xsc [4][2]int32

	// Viterbi is true when wing retraction used max (Viterbi mode)
	// rather than sum (hmm2search --forward).
	Viterbi bool
}

// DegenerateSymbolScore is the score of a degenerate symbol: the
// null-weighted mean of its residues' log-odds, truncated toward zero.
func DegenerateSymbolScore(a *Alphabet, p, null []float32, ambig int) int32 {
	var numer, denom float32
	for x := 0; x < a.Size; x++ {
		if a.Degenerate[ambig][x] {
			numer = float32(float64(numer) + float64(float64(null[x])*Log2(p[x]/null[x])))
			denom += null[x]
		}
	}
	return int32(intScale * float64(numer) / float64(denom))
}

// Logoddsify converts the model to search-form scores. viterbiMode
// selects max (true) or sum (false) when folding the D_1 and D_M wings
// into entry and exit scores, as P7Logoddsify(hmm, viterbi_mode).
func (h *HMM) Logoddsify(viterbiMode bool) *Profile {
	M := h.M
	a := h.Alph
	p := &Profile{HMM: h, M: M, Viterbi: viterbiMode}
	for s := range p.Tsc {
		p.Tsc[s] = make([]int32, M+1)
		p.Tsc[s][0] = -Infty
		p.Tsc[s][M] = -Infty // never read; no node M+1
	}
	for x := 0; x < MaxCode; x++ {
		p.Msc[x] = make([]int32, M+1)
		p.Isc[x] = make([]int32, M+1)
		p.Msc[x][0] = -Infty
		p.Isc[x][0] = -Infty
		p.Isc[x][M] = -Infty
	}
	p.Bsc = make([]int32, M+1)
	p.Esc = make([]int32, M+1)

	for k := 1; k <= M; k++ {
		for x := 0; x < a.Size; x++ {
			p.Msc[x][k] = Prob2Score(h.Mat[k][x], h.Null[x])
			if k < M {
				p.Isc[x][k] = Prob2Score(h.Ins[k][x], h.Null[x])
			}
		}
		for x := a.Size; x < a.Iupac; x++ {
			p.Msc[x][k] = DegenerateSymbolScore(a, h.Mat[k][:], h.Null[:], x)
			if k < M {
				p.Isc[x][k] = DegenerateSymbolScore(a, h.Ins[k][:], h.Null[:], x)
			}
		}
	}

	for k := 1; k < M; k++ {
		t := &h.T[k]
		p.Tsc[TMM][k] = Prob2Score(t[TMM], h.P1)
		p.Tsc[TMI][k] = Prob2Score(t[TMI], h.P1)
		p.Tsc[TMD][k] = Prob2Score(t[TMD], 1.0)
		p.Tsc[TIM][k] = Prob2Score(t[TIM], h.P1)
		p.Tsc[TII][k] = Prob2Score(t[TII], h.P1)
		p.Tsc[TDM][k] = Prob2Score(t[TDM], h.P1)
		p.Tsc[TDD][k] = Prob2Score(t[TDD], 1.0)
	}

	scale := intScale * log2e
	logP1 := math.Log(float64(h.P1))

	// Entry: B->M_k is the better (or summed) of B->M_k and
	// B->D_1..D_(k-1)->M_k; the float/double mix follows P7Logoddsify.
	accum := float32(-9999.)
	if h.Tbd1 > 0 {
		accum = float32(math.Log(float64(h.Tbd1)))
	}
	for k := 1; k <= M; k++ {
		tbm := float32(-9999.)
		if h.Begin[k] > 0 {
			tbm = float32(math.Log(float64(h.Begin[k])))
		}
		if k > 1 && accum > -9999. {
			if h.T[k-1][TDM] > 0 {
				alt := float64(accum) + math.Log(float64(h.T[k-1][TDM]))
				tbm = fold(tbm, alt, viterbiMode)
			}
			if h.T[k-1][TDD] > 0 {
				accum = float32(float64(accum) + math.Log(float64(h.T[k-1][TDD])))
			} else {
				accum = -9999.
			}
		}
		if tbm > -9999. {
			p.Bsc[k] = int32(math.Floor(0.5 + float64(scale*(float64(tbm)-logP1))))
		} else {
			p.Bsc[k] = -Infty
		}
	}

	// Exit: M_k->E is the better (or summed) of M_k->E and
	// M_k->D_(k+1)..D_M->E.
	p.Esc[M] = 0
	accum = 0
	for k := M - 1; k >= 1; k-- {
		tme := float32(-9999.)
		if h.End[k] > 0 {
			tme = float32(math.Log(float64(h.End[k])))
		}
		if accum > -9999. {
			if h.T[k][TMD] > 0 {
				alt := float64(accum) + math.Log(float64(h.T[k][TMD]))
				tme = fold(tme, alt, viterbiMode)
			}
			if h.T[k][TDD] > 0 {
				accum = float32(float64(accum) + math.Log(float64(h.T[k][TDD])))
			} else {
				accum = -9999.
			}
		}
		if tme > -9999. {
			p.Esc[k] = int32(math.Floor(0.5 + float64(scale*float64(tme))))
		} else {
			p.Esc[k] = -Infty
		}
	}

	p.Xsc[XTN][Loop] = Prob2Score(h.Xt[XTN][Loop], h.P1)
	p.Xsc[XTN][Move] = Prob2Score(h.Xt[XTN][Move], 1.0)
	p.Xsc[XTE][Loop] = Prob2Score(h.Xt[XTE][Loop], 1.0)
	p.Xsc[XTE][Move] = Prob2Score(h.Xt[XTE][Move], 1.0)
	p.Xsc[XTC][Loop] = Prob2Score(h.Xt[XTC][Loop], h.P1)
	p.Xsc[XTC][Move] = Prob2Score(h.Xt[XTC][Move], float32(1.-float64(h.P1)))
	p.Xsc[XTJ][Loop] = Prob2Score(h.Xt[XTJ][Loop], h.P1)
	p.Xsc[XTJ][Move] = Prob2Score(h.Xt[XTJ][Move], 1.0)
	return p
}

// fold combines a direct log transition with the delete-path one: the
// MAX macro (double comparison) in Viterbi mode, LogSum otherwise.
func fold(direct float32, alt float64, viterbiMode bool) float32 {
	if viterbiMode {
		if float64(direct) > alt {
			return direct
		}
		return float32(alt)
	}
	return LogSum(direct, float32(alt))
}
