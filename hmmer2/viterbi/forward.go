package viterbi

import "github.com/hmmgo/hmmgo/hmmer2/plan7"

// Forward is P7Forward(): the summed score over all paths, with
// HMMER2's table-driven integer ILogsum. Only two rows are kept; the
// values are those of HMMER2's full matrix.
func Forward(p *plan7.Profile, dsq []byte) int32 {
	M, L := p.M, len(dsq)
	var mmx, imx, dmx [2][]int32
	for r := 0; r < 2; r++ {
		mmx[r], imx[r], dmx[r] = make([]int32, M+1), make([]int32, M+1), make([]int32, M+1)
	}
	var xmx [2][nX]int32
	xmx[0][xN] = 0
	xmx[0][xB] = p.Xsc[plan7.XTN][plan7.Move]
	xmx[0][xE], xmx[0][xC], xmx[0][xJ] = negInf, negInf, negInf
	for k := 0; k <= M; k++ {
		mmx[0][k], imx[0][k], dmx[0][k] = negInf, negInf, negInf
	}
	t := &p.Tsc
	xsc := &p.Xsc
	lg := plan7.ILogsum
	cur := 0
	for i := 1; i <= L; i++ {
		cur = i % 2
		prv := 1 - cur
		x := dsq[i-1]
		mc, ic, dc := mmx[cur], imx[cur], dmx[cur]
		mp, ip, dp := mmx[prv], imx[prv], dmx[prv]
		xb := xmx[prv][xB]
		mc[0], ic[0], dc[0] = negInf, negInf, negInf
		for k := 1; k < M; k++ {
			mc[k] = lg(lg(mp[k-1]+t[plan7.TMM][k-1], ip[k-1]+t[plan7.TIM][k-1]),
				lg(xb+p.Bsc[k], dp[k-1]+t[plan7.TDM][k-1]))
			mc[k] += p.Msc[x][k]
			dc[k] = lg(mc[k-1]+t[plan7.TMD][k-1], dc[k-1]+t[plan7.TDD][k-1])
			ic[k] = lg(mp[k]+t[plan7.TMI][k], ip[k]+t[plan7.TII][k])
			ic[k] += p.Isc[x][k]
		}
		mc[M] = lg(lg(mp[M-1]+t[plan7.TMM][M-1], ip[M-1]+t[plan7.TIM][M-1]),
			lg(xb+p.Bsc[M], dp[M-1]+t[plan7.TDM][M-1]))
		mc[M] += p.Msc[x][M]

		xc, xp := &xmx[cur], &xmx[prv]
		xc[xN] = xp[xN] + xsc[plan7.XTN][plan7.Loop]
		xc[xE] = negInf
		for k := 1; k <= M; k++ {
			xc[xE] = lg(xc[xE], mc[k]+p.Esc[k])
		}
		xc[xJ] = lg(xp[xJ]+xsc[plan7.XTJ][plan7.Loop], xc[xE]+xsc[plan7.XTE][plan7.Loop])
		xc[xB] = lg(xc[xN]+xsc[plan7.XTN][plan7.Move], xc[xJ]+xsc[plan7.XTJ][plan7.Move])
		xc[xC] = lg(xp[xC]+xsc[plan7.XTC][plan7.Loop], xc[xE]+xsc[plan7.XTE][plan7.Move])
	}
	return xmx[cur][xC] + xsc[plan7.XTC][plan7.Move]
}
