package fwdback

import (
	"sort"

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
	stochasticTrace(rng, om, ox, tr, nil)
}

// TraceSampler is StochasticTrace for many traces of one Forward matrix,
// as domain definition samples 200 per region. Choosing the node that
// ends a domain (stoSelectE) scans the row in striped order, adding up
// to all of its M and D cells in double until the sum passes the random
// roll; the running sums of a row are the same for every trace, so the
// sampler keeps those it has computed and looks a roll up among them.
// The traces are StochasticTrace's, draw for draw.
type TraceSampler struct {
	ox   *Matrix
	rows map[int]*eSums
	free []*eSums
}

// Reset readies s for Forward matrix ox, which must not change until the
// next Reset.
func (s *TraceSampler) Reset(ox *Matrix) {
	for i, e := range s.rows {
		s.free = append(s.free, e)
		delete(s.rows, i)
	}
	if s.rows == nil {
		s.rows = map[int]*eSums{}
	}
	s.ox = ox
}

// Trace is StochasticTrace(rng, om, ox, tr) for the matrix of Reset.
func (s *TraceSampler) Trace(rng *easel.Random, om *oprofile.Profile, tr *hits.Trace) {
	stochasticTrace(rng, om, s.ox, tr, s)
}

// stochasticTrace is StochasticTrace, with the E rows' sums kept in es
// unless it is nil.
func stochasticTrace(rng *easel.Random, om *oprofile.Profile, ox *Matrix, tr *hits.Trace, es *TraceSampler) {
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
			roll := rng.Float64()
			if es != nil {
				s1, k = es.selectE(i, roll)
			} else {
				s1, k = stoSelectE(ox, i, roll)
			}
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
func stoSelectE(ox *Matrix, i int, roll float64) (hits.State, int) {
	Q := ox.Q
	row := ox.row(i)
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

// eSums holds the running sums of stoSelectE's first scan of one row, as
// far as it has gone: sum[8q+r] after M cell (q, r), sum[8q+4+r] after D
// cell (q, r).
type eSums struct {
	sum []float64
	// up: no term so far was negative or NaN, so sum never decreases and
	// the first sum above a roll can be found by bisection.
	up bool
}

// selectE is stoSelectE(s.ox, i, roll) from the kept sums of row i,
// extended as far as the roll needs.
func (s *TraceSampler) selectE(i int, roll float64) (hits.State, int) {
	e := s.rows[i]
	if e == nil {
		if n := len(s.free); n > 0 {
			e, s.free = s.free[n-1], s.free[:n-1]
		} else {
			e = new(eSums)
		}
		e.sum, e.up = e.sum[:0], true
		s.rows[i] = e
	}
	Q := s.ox.Q
	j := e.first(roll, 0)
	for j == len(e.sum) && j < 8*Q {
		e.extend(s.ox, i, roll)
		j = e.first(roll, j)
	}
	if j == len(e.sum) {
		// The whole row did not pass it: HMMER scans the row again.
		return stoSelectE(s.ox, i, roll)
	}
	q, c, r := j/8, j%8/4, j%4
	return [2]hits.State{hits.StM, hits.StD}[c], r*Q + q + 1
}

// first returns the first j >= from with roll < sum[j] (the scan's test),
// or len(sum); no sum before from passes roll.
func (e *eSums) first(roll float64, from int) int {
	if e.up {
		return from + sort.Search(len(e.sum)-from, func(j int) bool { return roll < e.sum[from+j] })
	}
	for from < len(e.sum) && !(roll < e.sum[from]) {
		from++
	}
	return from
}

// extend continues the scan of row i a vector at a time until a sum
// passes roll or the row ends.
func (e *eSums) extend(ox *Matrix, i int, roll float64) {
	Q := ox.Q
	row := ox.row(i)
	norm := splat(ftz64(1.0 / float64(ox.X[i][XE])))
	sum := 0.0
	if n := len(e.sum); n > 0 {
		sum = e.sum[n-1]
	}
	for q := len(e.sum) / 8; q < Q; q++ {
		for _, c := range [2]int{cM, cD} {
			u := vmul(row[q*3+c], norm)
			for r := 0; r < 4; r++ {
				if !(u[r] >= 0) {
					e.up = false
				}
				sum += float64(u[r])
				e.sum = append(e.sum, sum)
			}
		}
		if roll < sum {
			return
		}
	}
}
