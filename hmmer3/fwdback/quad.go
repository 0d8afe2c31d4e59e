package fwdback

import "github.com/hmmgo/hmmgo/hmmer3/oprofile"

// Four targets share each 512-bit register of the quad Forward row
// kernel (AVX-512), one per 128-bit part, each part performing HMMER's
// four-lane SSE operations for its own target, as the paired kernel does
// with two. The row specials stay per target, in Go.

// qvec is a quad vector: the four lanes of targets 0, 1, 2 and 3.
type qvec = [16]float32

// Group reports how many targets the grouped Forward filter scores at
// once: 4 with the quad kernel (ForwardQuad, AVX-512), 2 with the paired
// one (ForwardPair, AVX2), else 1.
func Group() int {
	switch {
	case useQuad():
		return 4
	case usePair():
		return 2
	}
	return 1
}

// quadRow and quadScale are the quad kernels; tests put quad-shaped
// stand-ins built from the SSE row here to check ForwardQuad's
// bookkeeping where the CPU has no AVX-512.
var (
	quadRow   = fwdRowQuadAVX512
	quadScale = scaleRowQuadAVX512
)

// ForwardQuad returns the Forward parser scores (and errors) of the four
// targets ds, each with its own length configuration oms[j] of one
// model: what Forward(ds[j], oms[j], ox, false) returns, bit for bit.
// All four run on the quad kernel until only one has rows left, which
// goes on alone; a target that ends earlier leaves its part zero, where
// it adds nothing and stops no one (zero cells stay zero and never grow).
// Without AVX-512 (or with an empty target) it is two ForwardPair calls.
// pm.Keep[j], when set, receives target j's special rows.
func ForwardQuad(ds *[4][]byte, oms *[4]*oprofile.Profile, pm *PairMatrix, sc *[4]float32, errs *[4]error) {
	for j := 1; j < 4; j++ {
		if oms[j].FB.Q != oms[0].FB.Q || oms[j].M != oms[0].M {
			panic("fwdback: ForwardQuad of different models")
		}
	}
	if !useQuad() || len(ds[0]) == 0 || len(ds[1]) == 0 || len(ds[2]) == 0 || len(ds[3]) == 0 {
		sc[0], errs[0], sc[1], errs[1] = pm.forwardPair(ds[0], ds[1], oms[0], oms[1], pm.Keep[0], pm.Keep[1])
		sc[2], errs[2], sc[3], errs[3] = pm.forwardPair(ds[2], ds[3], oms[2], oms[3], pm.Keep[2], pm.Keep[3])
		return
	}
	fb := &oms[0].FB
	Q, all4 := fb.Q, oms[0].M < 100
	if n := 3 * Q; cap(pm.quad) < n {
		pm.quad = make([]qvec, n)
	} else {
		pm.quad = pm.quad[:n]
	}
	dp := pm.quad
	clear(dp)
	var sp [4]fwdSpecials
	for j := range sp {
		sp[j] = newSpecials(&oms[j].FB.XF)
		sp[j].keepIn(pm.Keep[j], oms[j].M, len(ds[j]))
	}
	var (
		rf            [4]*[4]float32
		xB, xEv, inv  qvec
		i, live, last int
	)
	for ; ; i++ {
		live = 0
		for j, d := range ds {
			switch {
			case i < len(d):
				live, last = live+1, j
			case i == len(d):
				for k := range dp {
					clear(dp[k][4*j : 4*j+4])
				}
			}
		}
		if live <= 1 {
			break
		}
		for j, d := range ds {
			x, b := byte(0), float32(0)
			if i < len(d) {
				x, b = d[i], sp[j].xB
			}
			rf[j] = asVec4(fb.RF[x])
			xB[4*j], xB[4*j+1], xB[4*j+2], xB[4*j+3] = b, b, b, b
		}
		quadRow(&dp[0], &dp[0], asVec4(fb.TF), &rf, Q, &xB, all4, &xEv)
		rescale := false
		for j, d := range ds {
			f := float32(1)
			if i < len(d) {
				e := xEv[4*j : 4*j+4]
				f = sp[j].row((e[0]+e[1])+(e[2]+e[3]), &oms[j].FB.XF)
			}
			inv[4*j], inv[4*j+1], inv[4*j+2], inv[4*j+3] = f, f, f, f
			rescale = rescale || f != 1
		}
		if rescale {
			quadScale(&dp[0], len(dp), &inv)
		}
	}

	// The longest target goes on alone from its part of the quad row.
	if live == 1 {
		if cap(pm.single) < len(dp) {
			pm.single = make([]vec, len(dp))
		}
		row := pm.single[:len(dp)]
		for k := range row {
			copy(row[k][:], dp[k][4*last:4*last+4])
		}
		pm.forwardAlone(row, ds[last][i:], fb, all4, &sp[last], &oms[last].FB.XF)
	}
	for j := range sp {
		sc[j], errs[j] = sp[j].score(len(ds[j]), &oms[j].FB.XF)
	}
}
