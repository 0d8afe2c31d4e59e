package fwdback

import (
	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// StochasticTrace samples a path from the posterior distribution encoded
// in the full Forward matrix ox (p7_StochasticTrace). It draws one random
// number per choice, in HMMER's order, so the same generator state gives
// the same trace.
func StochasticTrace(rng *easel.Random, om *oprofile.Profile, ox *Matrix, tr *hits.Trace) {
	resetTrace(tr)
	i, k := ox.L, 0
	traceAppend(tr, hits.StT, k, i, 0)
	traceAppend(tr, hits.StC, k, i, 0)
	s0 := hits.StC
	xf := &om.FB.XF
	var p2 [2]float32
	choose2 := func(a, b float32, sa, sb hits.State) hits.State {
		p2[0], p2[1] = a, b
		easel.FNorm(p2[:])
		if easel.FChoose(rng, p2[:]) == 0 {
			return sa
		}
		return sb
	}
	for s0 != hits.StS {
		var s1 hits.State
		switch s0 {
		case hits.StM:
			s1 = stoSelectM(rng, om, ox, i, k)
			k--
			i--
		case hits.StD:
			Q := ox.Q
			q, r := (k-1)%Q, (k-1)/Q
			mp, dp, _ := prevCells(ox, i, q, r)
			var tmd, tdd float32 // M->D and D->D into node k: node k-1's
			if q > 0 {
				tmd, tdd = om.FB.TF[7*(q-1)+oprofile.FMD][r], om.FB.TF[7*Q+q-1][r]
			} else if r > 0 {
				tmd, tdd = om.FB.TF[7*(Q-1)+oprofile.FMD][r-1], om.FB.TF[8*Q-1][r-1]
			}
			s1 = choose2(fmul(mp, tmd), fmul(dp, tdd), hits.StM, hits.StD)
			k--
		case hits.StI:
			Q := ox.Q
			q, r := (k-1)%Q, (k-1)/Q
			row := ox.row(i - 1)
			s1 = choose2(fmul(row[q*3+cM][r], om.FB.TF[7*q+oprofile.FMI][r]),
				fmul(row[q*3+cI][r], om.FB.TF[7*q+oprofile.FII][r]), hits.StM, hits.StI)
			i--
		case hits.StN:
			s1 = hits.StN
			if i == 0 {
				s1 = hits.StS
			}
		case hits.StC:
			s1 = choose2(fmul(ox.X[i-1][XC], xf[profile.XC][profile.Loop]),
				fmul(fmul(ox.X[i][XE], xf[profile.XE][profile.Move]), ox.X[i][XScale]), hits.StC, hits.StE)
		case hits.StJ:
			s1 = choose2(fmul(ox.X[i-1][XJ], xf[profile.XJ][profile.Loop]),
				fmul(fmul(ox.X[i][XE], xf[profile.XE][profile.Loop]), ox.X[i][XScale]), hits.StJ, hits.StE)
		case hits.StE:
			s1, k = stoSelectE(rng, ox, i)
		case hits.StB:
			s1 = choose2(fmul(ox.X[i][XN], xf[profile.XN][profile.Move]),
				fmul(ox.X[i][XJ], xf[profile.XJ][profile.Move]), hits.StN, hits.StJ)
		default:
			panic("fwdback: bogus state in stochastic traceback")
		}
		traceAppend(tr, s1, k, i, 0)
		if (s1 == hits.StN || s1 == hits.StJ || s1 == hits.StC) && s1 == s0 {
			i--
		}
		s0 = s1
	}
	tr.M = om.M
	tr.L = ox.L
	traceReverse(tr)
}

// The choices below take HMMER's four-lane products (vector times
// transition vector) in the one lane r they read: every lane is an
// independent product, so that is the same value, at a quarter of the
// multiplications.

func stoSelectM(rng *easel.Random, om *oprofile.Profile, ox *Matrix, i, k int) hits.State {
	Q := ox.Q
	q, r := (k-1)%Q, (k-1)/Q
	t := om.FB.TF[7*q : 7*q+7]
	mp, dp, ip := prevCells(ox, i-1, q, r)
	path := [4]float32{
		fmul(ox.X[i-1][XB], t[oprofile.FBM][r]),
		fmul(mp, t[oprofile.FMM][r]),
		fmul(ip, t[oprofile.FIM][r]),
		fmul(dp, t[oprofile.FDM][r]),
	}
	easel.FNorm(path[:])
	return [4]hits.State{hits.StB, hits.StM, hits.StI, hits.StD}[easel.FChoose(rng, path[:])]
}

// prevCells is lane r of prevVecs: the M, D and I cells of node k-1 in
// row i for node k at (q, r), zero when k is node 1.
func prevCells(mx *Matrix, i, q, r int) (m, d, ii float32) {
	row := mx.row(i)
	switch {
	case q > 0:
		j := (q - 1) * 3
		return row[j+cM][r], row[j+cD][r], row[j+cI][r]
	case r > 0:
		j := (mx.Q - 1) * 3
		return row[j+cM][r-1], row[j+cD][r-1], row[j+cI][r-1]
	}
	return 0, 0, 0
}

// stoSelectE picks the M or D cell that ends the domain, scanning the row
// in striped order and accumulating in double, repeating the scan until
// the roll is passed, as HMMER does.
func stoSelectE(rng *easel.Random, ox *Matrix, i int) (hits.State, int) {
	Q := ox.Q
	row := ox.row(i)
	roll := rng.Float64()
	norm := splat(ftz64(1.0 / float64(ox.X[i][XE])))
	sum := 0.0
	for {
		for q := 0; q < Q; q++ {
			u := vmul(row[q*3+cM], norm)
			for r := 0; r < 4; r++ {
				sum += float64(u[r])
				if roll < sum {
					return hits.StM, r*Q + q + 1
				}
			}
			u = vmul(row[q*3+cD], norm)
			for r := 0; r < 4; r++ {
				sum += float64(u[r])
				if roll < sum {
					return hits.StD, r*Q + q + 1
				}
			}
		}
	}
}
