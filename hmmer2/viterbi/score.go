package viterbi

import "github.com/hmmgo/hmmgo/hmmer2/plan7"

// ScoreOne is the score-only reference Viterbi for one sequence: the
// recursion of Matrix.Fill with two rows instead of L+1, so its result
// is P7Viterbi()'s integer score. Every batch Scorer must agree with it.
func ScoreOne(p *plan7.Profile, dsq []byte) int32 {
	M := p.M
	row := make([]int32, 6*(M+1))
	mp, ip, dp := row[0:M+1], row[M+1:2*(M+1)], row[2*(M+1):3*(M+1)]
	mc, ic, dc := row[3*(M+1):4*(M+1)], row[4*(M+1):5*(M+1)], row[5*(M+1):]
	for k := 0; k <= M; k++ {
		mp[k], ip[k], dp[k] = negInf, negInf, negInf
	}
	ic[M], ip[M] = negInf, negInf
	tmm, tim, tdm := p.Tsc[plan7.TMM], p.Tsc[plan7.TIM], p.Tsc[plan7.TDM]
	tmd, tdd := p.Tsc[plan7.TMD], p.Tsc[plan7.TDD]
	tmi, tii := p.Tsc[plan7.TMI], p.Tsc[plan7.TII]
	bsc, esc := p.Bsc, p.Esc
	xsc := &p.Xsc
	xn, xb := int32(0), p.Xsc[plan7.XTN][plan7.Move]
	xe, xc, xj := int32(negInf), int32(negInf), int32(negInf)
	for _, x := range dsq {
		ms, is := p.Msc[x], p.Isc[x]
		mc[0], dc[0], ic[0] = negInf, negInf, negInf
		xme := int32(negInf)
		for k := 1; k <= M; k++ {
			v := mp[k-1] + tmm[k-1]
			if s := ip[k-1] + tim[k-1]; s > v {
				v = s
			}
			if s := dp[k-1] + tdm[k-1]; s > v {
				v = s
			}
			if s := xb + bsc[k]; s > v {
				v = s
			}
			v += ms[k]
			if v < negInf {
				v = negInf
			}
			mc[k] = v
			if s := v + esc[k]; s > xme {
				xme = s
			}
			d := dc[k-1] + tdd[k-1]
			if s := mc[k-1] + tmd[k-1]; s > d {
				d = s
			}
			if d < negInf {
				d = negInf
			}
			dc[k] = d
			if k < M {
				iv := mp[k] + tmi[k]
				if s := ip[k] + tii[k]; s > iv {
					iv = s
				}
				iv += is[k]
				if iv < negInf {
					iv = negInf
				}
				ic[k] = iv
			}
		}
		xn, xe, xj, xb, xc = specials(xsc, xn, xj, xc, xme)
		mp, mc = mc, mp
		ip, ic = ic, ip
		dp, dc = dc, dp
	}
	_ = xe
	return xc + xsc[plan7.XTC][plan7.Move]
}

// specials advances the N, E, J, B, C states by one row, in HMMER2's
// order, given the previous row's N, J, C and this row's best M->E.
func specials(xsc *[4][2]int32, pn, pj, pc, xme int32) (n, e, j, b, c int32) {
	n = negInf
	if s := pn + xsc[plan7.XTN][plan7.Loop]; s > negInf {
		n = s
	}
	e = xme
	j = negInf
	if s := pj + xsc[plan7.XTJ][plan7.Loop]; s > negInf {
		j = s
	}
	if s := e + xsc[plan7.XTE][plan7.Loop]; s > j {
		j = s
	}
	b = negInf
	if s := n + xsc[plan7.XTN][plan7.Move]; s > negInf {
		b = s
	}
	if s := j + xsc[plan7.XTJ][plan7.Move]; s > b {
		b = s
	}
	c = negInf
	if s := pc + xsc[plan7.XTC][plan7.Loop]; s > negInf {
		c = s
	}
	if s := e + xsc[plan7.XTE][plan7.Move]; s > c {
		c = s
	}
	return
}
