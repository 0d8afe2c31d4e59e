package msvfilter

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// RefScore is the scalar reference filter, one cell at a time: the
// oracle every faster kernel is tested against.
func RefScore(dsq []byte, om *oprofile.MSVProfile) float32 {
	if sc, ok := ssv(dsq, om); ok {
		return sc
	}
	return msvDP(dsq, om)
}

func satU8(v int) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

func satI8(v int) int8 {
	if v < -128 {
		return -128
	}
	if v > 127 {
		return 127
	}
	return int8(v)
}

// finalScore converts the J state's byte score into nats, adding back
// HMMER's -3 nat approximation of the N, C and J loops.
func finalScore(xJ int, om *oprofile.MSVProfile) float32 {
	sc := float32(xJ-int(om.TJB)) - float32(om.Base)
	sc /= om.Scale
	return float32(float64(sc) - 3.0)
}

// ssv is the SSV shortcut (p7_SSVFilter): ungapped diagonals with no J
// state, shifted so the begin level is -128 and a signed saturating
// subtraction replaces the max with the begin score. ok is false when HMMER
// falls back to the full MSV program.
func ssv(dsq []byte, om *oprofile.MSVProfile) (float32, bool) {
	if !ssvApplies(om) {
		return 0, false
	}
	return ssvDecide(ssvMaxCell(dsq, om), om)
}

// ssvApplies is HMMER's condition for trying SSV at all: the shifted
// baseline must leave room for the J state test.
func ssvApplies(om *oprofile.MSVProfile) bool {
	return int(om.TJB)+int(om.TBM)+int(om.TEC)+int(om.Bias) < 127
}

// ssvDecide turns SSV's largest cell (as HMMER's unsigned view of the
// signed byte) into a score, overflow (+Inf), or ok=false when HMMER
// falls back to the MSV program.
func ssvDecide(maxCell uint8, om *oprofile.MSVProfile) (float32, bool) {
	tjb, tbm, tec, bias, base := int(om.TJB), int(om.TBM), int(om.TEC), int(om.Bias), int(om.Base)
	xE := uint16(maxCell)
	if int(xE) >= 255-bias {
		if base-tjb-tbm < 128 {
			return 0, false
		}
		return float32(math.Inf(1)), true
	}
	xE = uint16(int(xE) + base - tjb - tbm)
	xE -= 128
	if int(xE) >= 255-bias {
		return float32(math.Inf(1)), true
	}
	xJ := xE - uint16(tec)
	if int(xJ) > base {
		return 0, false
	}
	return finalScore(int(xJ), om), true
}

// ssvMaxCell is the largest cell of the SSV matrix viewed as an unsigned
// byte, starting from 128 (the begin level): every diagonal starts at -128
// at row 1 or node 1 and steps by v = sat(v - SBV[x][k]).
func ssvMaxCell(dsq []byte, om *oprofile.MSVProfile) uint8 {
	M := om.M
	prev := make([]int8, M+1)
	cur := make([]int8, M+1)
	for k := range prev {
		prev[k] = -128
	}
	xE := uint8(128)
	cur[0] = -128
	for _, x := range dsq {
		sbv := om.SBV[x]
		for k := 1; k <= M; k++ {
			v := satI8(int(prev[k-1]) - int(sbv[k]))
			cur[k] = v
			if uint8(v) > xE {
				xE = uint8(v)
			}
		}
		prev, cur = cur, prev
	}
	return xE
}

// DPScore is the full MSV program alone, without the SSV shortcut. It
// differs from Score where HMMER's SSV result is used and SSV and MSV
// disagree (SSV floors cells at the begin level); GPU.ForceMSV computes it.
func DPScore(dsq []byte, om *oprofile.MSVProfile) float32 { return msvDP(dsq, om) }

// msvDP is the full MSV filter (multihit local, ungapped, with the J state).
func msvDP(dsq []byte, om *oprofile.MSVProfile) float32 {
	M := om.M
	bias := int(om.Bias)
	base := int(om.Base)
	tjbm := int(uint8(om.TJB + om.TBM)) // HMMER adds them as bytes
	tec := int(om.TEC)
	prev := make([]uint8, M+1)
	cur := make([]uint8, M+1)
	xJ := 0
	xB := int(satU8(base - tjbm))
	for _, x := range dsq {
		rbv := om.RBV[x]
		xE := 0
		for k := 1; k <= M; k++ {
			sv := int(prev[k-1])
			if xB > sv {
				sv = xB
			}
			v := satU8(int(satU8(sv+bias)) - int(rbv[k]))
			cur[k] = v
			if int(v) > xE {
				xE = int(v)
			}
		}
		if xE+bias >= 255 {
			return float32(math.Inf(1))
		}
		xE = int(satU8(xE - tec))
		if xE > xJ {
			xJ = xE
		}
		b := base
		if xJ > b {
			b = xJ
		}
		xB = int(satU8(b - tjbm))
		prev, cur = cur, prev
	}
	return finalScore(xJ, om)
}
