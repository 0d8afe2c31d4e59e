package fwdback

import "github.com/hmmgo/hmmgo/hmmer3/oprofile"

// DecodeAlign is what domain definition does with an envelope's full
// Forward and Backward matrices, in one pass over the rows: Decoding
// into bck (the posterior matrix pp from here on), OptimalAccuracy into
// fwd (the OA matrix), and, when null2 is not nil, Null2ByExpectation
// into null2. It returns the optimal accuracy score.
//
// Results, matrices included, are those of the three calls in sequence:
// every cell sees the same operations. Row i is decoded, then aligned and
// added to null2's sums while it is still in cache; the separate calls
// would read each matrix from memory again, which is most of their time
// on long envelopes. Forward row i is overwritten only after it has been
// decoded, and the specials Decoding needs are all computed first.
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
	for i := 1; i <= L; i++ {
		r := i * n
		decodeRows(fwd.dp[r:r+n], bck.dp[r:r+n], pp.dp[r:r+n], Q, totr[i-1:i])
		oa.row(i)
		if null2 != nil {
			if i == 1 {
				copy(pp.row(0), pp.row(1))
			} else {
				sumRows(pp.row(0), pp.row(i), Q, 1)
			}
		}
	}
	if null2 != nil {
		null2FromSums(om, pp, null2)
	}
	return ox.X[L][XC], nil
}
