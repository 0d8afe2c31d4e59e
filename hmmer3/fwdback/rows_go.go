package fwdback

import "github.com/hmmgo/hmmgo/hmmer3/oprofile"

// The portable Forward and Backward rows. HMMER's four-lane operations
// act on each lane on its own, except where a value crosses from vector
// Q-1 of one lane into vector 0 of the next (the shifts at the start of a
// row and between D->D passes). So the rows below run one lane at a time
// over flat float32 views, with scalar carries, handing the crossing
// values from lane to lane; every cell sees the operations of the
// four-lane code in the same order. Rows read before they are written
// may be the same memory (parser matrices), so the values that cross
// lanes are taken from the previous row before any lane is written.

// lane offsets of a vector triple's cells and of a transition group
const (
	fM = 4 * cM
	fD = 4 * cD
	fI = 4 * cI
)

func tr(t int) int { return 4 * t }

// forwardRowGo is forwardRow's portable form.
func forwardRowGo(dpp, dpc, tp, rp []vec, Q int, xB float32, all4 bool) vec {
	n := 12 * Q
	pf, cf := flat(dpp)[:n], flat(dpc)[:n]
	tf, rf := flat(tp)[:32*Q], flat(rp)[:4*Q]
	dd := tf[28*Q:]
	var last [12]float32 // vector Q-1 of the previous row
	copy(last[:], pf[n-12:])

	// M, I and the M->D carry, with the first D->D pass (D += carry,
	// carry = D*DD) run in the same sweep: it starts with the M->D carry
	// leaving the previous lane.
	var xEv, carry vec
	mdCarry := float32(0)
	for z := 0; z < 4; z++ {
		var mp, dp, ip float32
		if z > 0 {
			mp, dp, ip = last[fM+z-1], last[fD+z-1], last[fI+z-1]
		}
		var xe, dc float32
		c := mdCarry
		for q, j := 0, z; j < n; q, j = q+1, j+12 {
			t := tf[28*q+z : 28*q+z+25]
			sv := fmul(xB, t[tr(oprofile.FBM)])
			sv = sv + fmul(mp, t[tr(oprofile.FMM)])
			sv = sv + fmul(ip, t[tr(oprofile.FIM)])
			sv = sv + fmul(dp, t[tr(oprofile.FDM)])
			sv = fmul(sv, rf[4*q+z])
			xe = xe + sv
			mp, dp, ip = pf[j+fM], pf[j+fD], pf[j+fI]
			cf[j+fM] = sv
			d := c + dc // first D->D pass
			cf[j+fD] = d
			c = fmul(d, dd[4*q+z])
			dc = fmul(sv, t[tr(oprofile.FMD)])
			cf[j+fI] = fmul(mp, t[tr(oprofile.FMI)]) + fmul(ip, t[tr(oprofile.FII)])
		}
		xEv[z], carry[z], mdCarry = xe, c, dc
	}

	// Up to three more passes that only carry a value along (all three
	// when all4, else while a D cell grows), each lane stopping once its
	// carry is zero (zeroCarry).
	for p := 1; p < 4; p++ {
		carry = rightshift(carry, 0)
		changed := false
		for z := 0; z < 4; z++ {
			c := carry[z]
			for q, j := 0, z+fD; j < n && c != 0; q, j = q+1, j+12 {
				sv := c + cf[j]
				if sv > cf[j] {
					changed = true
				}
				cf[j] = sv
				c = fmul(c, dd[4*q+z])
			}
			carry[z] = c
		}
		if carry == (vec{}) || !all4 && !changed {
			break
		}
	}
	for z := 0; z < 4; z++ {
		xe := xEv[z]
		for j := z + fD; j < n; j += 12 {
			xe = cf[j] + xe
		}
		xEv[z] = xe
	}
	return xEv
}

// backwardRowInGo is backwardRowIn's portable form.
func backwardRowInGo(dpp, dpc, tp, rp []vec, Q int) vec {
	n := 12 * Q
	pf, cf := flat(dpp)[:n], flat(dpc)[:n]
	tf, rf := flat(tp)[:32*Q], flat(rp)[:4*Q]
	// What enters vector Q-1 of lane z comes from vector 0 of lane z+1:
	// the transitions, and M(i+1) times its match odds.
	var first [12]float32
	copy(first[:], pf[:12])
	var xBv vec
	for z := 0; z < 4; z++ {
		var tmm, tim, tdm, mp float32
		if z < 3 {
			tmm, tim, tdm = tf[tr(oprofile.FMM)+z+1], tf[tr(oprofile.FIM)+z+1], tf[tr(oprofile.FDM)+z+1]
			mp = fmul(first[fM+z+1], rf[z+1])
		}
		var xb float32
		for q := Q - 1; q >= 0; q-- {
			j := 12*q + z
			t := tf[28*q+z : 28*q+z+25]
			ip := pf[j+fI]
			cf[j+fI] = fmul(ip, t[tr(oprofile.FII)]) + fmul(mp, tim)
			cf[j+fD] = fmul(mp, tdm)
			mc := fmul(ip, t[tr(oprofile.FMI)]) + fmul(mp, tmm)
			mp = fmul(pf[j+fM], rf[4*q+z])
			cf[j+fM] = mc
			tdm, tim, tmm = t[tr(oprofile.FDM)], t[tr(oprofile.FIM)], t[tr(oprofile.FMM)]
			xb = xb + fmul(mp, t[tr(oprofile.FBM)])
		}
		xBv[z] = xb
	}
	return xBv
}

// backwardRowOutGo is backwardRowOut's portable form.
func backwardRowOutGo(dpc, tp []vec, Q int, xE float32) {
	n := 12 * Q
	cf := flat(dpc)[:n]
	dd := flat(tp)[28*Q : 32*Q]
	// Phase 3: {MD}->E paths and one D->D step; lane z starts from
	// D(vector 0) + E of lane z+1, as it was before this phase.
	var start, carry vec
	for z := 0; z < 3; z++ {
		start[z] = cf[fD+z+1] + xE
	}
	for z := 0; z < 4; z++ {
		dp, dc := start[z], float32(0)
		for q := Q - 1; q >= 0; q-- {
			j := 12*q + z
			dc = fmul(dp, dd[4*q+z])
			cf[j+fD] = cf[j+fD] + (dc + xE)
			dp = cf[j+fD]
			cf[j+fM] = cf[j+fM] + xE
		}
		carry[z] = dc
	}
	// Phase 4: three passes that carry a value along, each lane stopping
	// once its carry is zero (zeroCarry).
	for p := 1; p < 4; p++ {
		carry = leftshift(carry)
		for z := 0; z < 4; z++ {
			c := carry[z]
			for q := Q - 1; q >= 0 && c != 0; q-- {
				c = fmul(c, dd[4*q+z])
				if c == 0 {
					break
				}
				j := 12*q + z + fD
				cf[j] = cf[j] + c
			}
			carry[z] = c
		}
		if carry == (vec{}) {
			break
		}
	}
	// Phase 5: M->D paths; lane z starts from D(vector 0) of lane z+1.
	for z := 0; z < 3; z++ {
		start[z] = cf[fD+z+1]
	}
	start[3] = 0
	tf := flat(tp)
	for z := 0; z < 4; z++ {
		dc := start[z]
		for q := Q - 1; q >= 0; q-- {
			j := 12*q + z
			cf[j+fM] = cf[j+fM] + fmul(dc, tf[28*q+tr(oprofile.FMD)+z])
			dc = cf[j+fD]
		}
	}
}
