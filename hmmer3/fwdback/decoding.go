package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Decoding fills pp with posterior probabilities of each M and I cell and
// of the N, C, J emissions (p7_Decoding), from full Forward and Backward
// matrices; pp may be bck. It returns ErrRange when the scale factors
// overflow, which HMMER treats as a domain too repetitive to score.
//
// The scale of every row depends only on the special states, so all of
// them are computed first; the cells are then one pass of the decoding
// kernel over the rows, (F*B)*scale per M and I cell as in HMMER.
func Decoding(om *oprofile.Profile, fwd, bck, pp *Matrix) error {
	totr, err := decodeSpecials(om, fwd, bck, pp)
	if L := len(totr); L > 0 {
		n := 3 * fwd.Q
		decodeRows(fwd.dp[n:], bck.dp[n:], pp.dp[n:], fwd.Q, totr)
	}
	return err
}

// decodeSpecials is Decoding but for the M and I cells of rows 1..L: it
// sizes pp (unless it is bck), zeroes row 0, fills the special posteriors
// and returns each row's cell scale, (F*B)*totr[i-1] for row i.
func decodeSpecials(om *oprofile.Profile, fwd, bck, pp *Matrix) ([]float32, error) {
	L := fwd.L
	if pp != bck {
		pp.grow(om.M, L, true)
	}
	scaleproduct := ftz64(1.0 / float64(bck.X[0][XN]))
	clear(pp.row(0))
	pp.X[0] = [NXCells]float32{}
	if cap(pp.totr) < L {
		pp.totr = make([]float32, L)
	}
	totr := pp.totr[:L]
	xf := &om.FB.XF
	for i := 1; i <= L; i++ {
		totr[i-1] = fmul(scaleproduct, fwd.X[i][XScale])
		bN, bJ, bC := bck.X[i][XN], bck.X[i][XJ], bck.X[i][XC]
		bScale := bck.X[i][XScale]
		pp.X[i] = [NXCells]float32{
			XN: prod4(fwd.X[i-1][XN], bN, xf[profile.XN][profile.Loop], scaleproduct),
			XJ: prod4(fwd.X[i-1][XJ], bJ, xf[profile.XJ][profile.Loop], scaleproduct),
			XC: prod4(fwd.X[i-1][XC], bC, xf[profile.XC][profile.Loop], scaleproduct),
		}
		if bck.HasOwnScales {
			scaleproduct = fmul(scaleproduct, fdiv(fwd.X[i][XScale], bScale))
		}
	}
	pp.L = L
	if math.IsInf(float64(scaleproduct), 0) {
		return totr, ErrRange
	}
	return totr, nil
}

// decodeRowsGo is the portable decoding kernel: len(totr) rows of Q
// vector triples from f and b into p (which may be b).
func decodeRowsGo(f, b, p []vec, Q int, totr []float32) {
	n := 12 * Q
	ff, bf, pf := flat(f), flat(b), flat(p)
	for r, t := range totr {
		fr, br, pr := ff[r*n:(r+1)*n], bf[r*n:(r+1)*n], pf[r*n:(r+1)*n]
		for j := 0; j+12 <= n; j += 12 {
			for z := j; z < j+4; z++ {
				pr[z] = fmul(fmul(fr[z], br[z]), t)
				pr[z+4] = 0
				pr[z+8] = fmul(fmul(fr[z+8], br[z+8]), t)
			}
		}
	}
}

// Domains holds the per-position posterior sums of domain definition:
// BTot[i] and ETot[i] are the expected numbers of B and E states up to i,
// MOcc[i] the probability that residue i is emitted by the core model.
type Domains struct {
	BTot, ETot, MOcc []float32
}

// DomainDecoding computes the B, E and core-occupancy posteriors of the
// whole target from the parser matrices (p7_DomainDecoding).
func DomainDecoding(om *oprofile.Profile, fwd, bck *Matrix, d *Domains) error {
	L := fwd.L
	if cap(d.BTot) < L+1 {
		d.BTot = make([]float32, L+1)
		d.ETot = make([]float32, L+1)
		d.MOcc = make([]float32, L+1)
	}
	d.BTot, d.ETot, d.MOcc = d.BTot[:L+1], d.ETot[:L+1], d.MOcc[:L+1]
	xf := &om.FB.XF
	scaleproduct := ftz64(1.0 / float64(bck.X[0][XN]))
	d.BTot[0], d.ETot[0], d.MOcc[0] = 0, 0, 0
	for i := 1; i <= L; i++ {
		f0, b0 := &fwd.X[i-1], &bck.X[i-1]
		d.BTot[i] = d.BTot[i-1] + prod4(f0[XB], b0[XB], f0[XScale], scaleproduct)
		if bck.HasOwnScales {
			scaleproduct = fmul(scaleproduct, fdiv(f0[XScale], b0[XScale]))
		}
		f, b := &fwd.X[i], &bck.X[i]
		d.ETot[i] = d.ETot[i-1] + prod4(f[XE], b[XE], f[XScale], scaleproduct)
		njcp := prod4(f0[XN], b[XN], xf[profile.XN][profile.Loop], scaleproduct)
		njcp += prod4(f0[XJ], b[XJ], xf[profile.XJ][profile.Loop], scaleproduct)
		njcp += prod4(f0[XC], b[XC], xf[profile.XC][profile.Loop], scaleproduct)
		d.MOcc[i] = float32(1.0 - float64(njcp))
	}
	if math.IsInf(float64(scaleproduct), 0) {
		return ErrRange
	}
	return nil
}

// prod4 is ((a*b)*c)*d in flush-to-zero float arithmetic.
func prod4(a, b, c, d float32) float32 { return fmul(fmul(fmul(a, b), c), d) }
