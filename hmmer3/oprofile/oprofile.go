// Package oprofile holds HMMER3's reduced-precision score systems
// (P7_OPROFILE): 8-bit costs for the SSV/MSV filter, 16-bit scores for the
// Viterbi filter and float odds, in HMMER's four-lane striped order, for
// Forward/Backward and everything after. The conversions round exactly
// as HMMER's do, because the filters' decisions and the printed scores
// depend on every rounding.
package oprofile

import (
	"math"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Profile is one query's optimized profile.
type Profile struct {
	M   int
	Abc *alphabet.Alphabet
	MSV MSVProfile
	Vit VitProfile
	FB  FBProfile

	NJ      float32 // 1 multihit, 0 unihit
	L       int     // current length configuration
	EvParam [hmm.NEvParam]float32
	Cutoff  [hmm.NCutoffs]float32
	Compo   []float32
}

// Convert builds the optimized profile from a configured profile
// (p7_oprofile_Convert).
func Convert(gm *profile.Profile, h *hmm.HMM) *Profile {
	om := &Profile{M: gm.M, Abc: gm.Abc, NJ: gm.NJ, L: gm.L, EvParam: h.EvParam, Cutoff: h.Cutoff, Compo: h.Compo}
	om.MSV.convert(gm)
	om.Vit.convert(gm)
	om.FB.convert(gm)
	return om
}

// ReconfigLength sets every score system's length model for a target of
// length L (p7_oprofile_ReconfigLength).
func (om *Profile) ReconfigLength(L int) {
	om.MSV.TJB = om.MSV.TJBFor(L)
	om.ReconfigRestLength(L)
}

// ReconfigRestLength sets the Viterbi filter's and Forward/Backward's
// length model (p7_oprofile_ReconfigRestLength).
func (om *Profile) ReconfigRestLength(L int) {
	pmove := (2.0 + om.NJ) / (float32(L) + 2.0 + om.NJ)
	ploop := 1.0 - pmove
	move := om.Vit.MoveFor(L, om.NJ)
	for _, s := range []int{profile.XN, profile.XC, profile.XJ} {
		om.FB.XF[s][profile.Loop] = ploop
		om.FB.XF[s][profile.Move] = pmove
		om.Vit.XW[s][profile.Move] = move
	}
	om.L = L
}

// ReconfigMultihit switches to multihit mode with length L.
func (om *Profile) ReconfigMultihit(L int) {
	om.FB.XF[profile.XE][profile.Move] = 0.5
	om.FB.XF[profile.XE][profile.Loop] = 0.5
	om.NJ = 1.0
	w := wordify(om.Vit.Scale, float32(-math.Ln2))
	om.Vit.XW[profile.XE][profile.Move] = w
	om.Vit.XW[profile.XE][profile.Loop] = w
	om.ReconfigLength(L)
}

// ReconfigUnihit switches to unihit mode (one domain per path) with length L.
func (om *Profile) ReconfigUnihit(L int) {
	om.FB.XF[profile.XE][profile.Move] = 1.0
	om.FB.XF[profile.XE][profile.Loop] = 0.0
	om.NJ = 0.0
	om.Vit.XW[profile.XE][profile.Move] = 0
	om.Vit.XW[profile.XE][profile.Loop] = -32768
	om.ReconfigLength(L)
}

// IsMultihit reports whether om is in multihit mode.
func (om *Profile) IsMultihit() bool { return om.NJ != 0 }

// roundf rounds half away from zero, as C's roundf.
func roundf(x float32) float32 { return float32(math.Round(float64(x))) }
