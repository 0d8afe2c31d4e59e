package fwdback

import "github.com/hmmgo/hmmgo/hmmer3/oprofile"

// DecodeAlign is what domain definition does with an envelope's full
// Forward and Backward matrices, in one pass over the rows: Decoding
// into bck (the posterior matrix pp from here on), OptimalAccuracy into
// fwd (the OA matrix), and, when null2 is not nil, Null2ByExpectation
// into null2. It returns the optimal accuracy score.
//
// Results, matrices included, are those of the three calls in sequence:
// every cell sees the same operations. One kernel call per row
// (decodeOARow) aligns row i and adds it to null2's sums while it is in
// cache, and decodes row i+1, which it has asked the memory for while
// aligning; the separate calls would read each matrix from memory again,
// which is most of their time on long envelopes. Forward row i is
// overwritten only after it has been decoded, and the specials Decoding
// needs are all computed first.
//
// On ErrRange (Decoding's scale overflow) bck holds the posteriors and
// fwd is unchanged, as when Decoding returns the error first.
func DecodeAlign(om *oprofile.Profile, fwd, bck *Matrix, null2 []float32) (float32, error) {
	totr, err := decodeSpecials(om, fwd, bck, bck)
	L, Q := len(totr), fwd.Q
	n := 3 * Q
	if err != nil {
		if L > 0 {
			decodeRows(fwd.dp[n:], bck.dp[n:], bck.dp[n:], Q, totr)
		}
		return 0, err
	}
	pp, ox := bck, fwd
	oa := newOA(om, pp, ox)
	if L > 0 {
		decodeRows(fwd.dp[n:2*n], bck.dp[n:2*n], pp.dp[n:2*n], Q, totr[:1])
	}
	var acc []vec
	if null2 != nil && L > 0 {
		copy(pp.row(0), pp.row(1))
		acc = pp.row(0)
	}
	for i := 1; i <= L; i++ {
		// Row i is aligned (and added to the sums from row 2 on) while
		// row i+1 is decoded.
		var sum, nf, nb []vec
		var t float32
		if i > 1 {
			sum = acc
		}
		if i < L {
			nf, nb, t = fwd.row(i+1), bck.row(i+1), totr[i]
		}
		xEv := decodeOARow(ox.row(i-1), ox.row(i), pp.row(i), ox.mask, Q, ox.X[i-1][XB], &ox.ddAll, ox.plain, sum, nf, nb, t)
		oa.specials(i, xEv)
	}
	if null2 != nil {
		null2FromSums(om, pp, null2)
	}
	return ox.X[L][XC], nil
}
