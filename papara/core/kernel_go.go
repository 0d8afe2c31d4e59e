package core

// lane is the element type of the portable kernel: 16-bit lanes wrap on
// overflow exactly as PaPaRa's SSE additions do.
type lane interface{ ~int16 | ~int32 }

// scoreBlockGo is the portable scoring kernel: PaPaRa 2.5's DP for one
// read against `lanes` branches, evaluated row (read residue) by row as
// PaPaRa does. It follows PaPaRa's rule for CGAP lanes exactly — a lane's
// gap penalties are waived where its match increment is negative — so it
// is correct for any scores that pass Params.Check.
//
// rows holds the profile row of each read residue. s and si hold one row of cell scores and of gap-from-above scores
// (L*lanes each); best receives the score per lane: the maximum over the
// last row and the last column (free end gaps on both sequences).
func scoreBlockGo[T lane](prof []T, stride, L, lanes int, rows []uint16, open, ext, small T, s, si, best []T) {
	for i := range s[:L*lanes] {
		s[i] = 0
		si[i] = small
	}
	var diag, sl, left [16]T
	for l := 0; l < lanes; l++ {
		best[l] = small
	}
	for _, rk := range rows {
		for l := 0; l < lanes; l++ {
			diag[l], sl[l], left[l] = 0, small, 0
		}
		for c := 0; c < L; c++ {
			inc := prof[c*stride+int(rk)*lanes : c*stride+int(rk)*lanes+lanes]
			sc := s[c*lanes : (c+1)*lanes]
			su := si[c*lanes : (c+1)*lanes]
			for l := 0; l < lanes; l++ {
				m := inc[l]
				sm := diag[l] + m
				o, e := open, ext
				if m < 0 { // CGAP lane: gaps along the reference are free
					o, e = 0, 0
				}
				slv := max(left[l]+o, sl[l]+e)
				sl[l] = slv
				above := sc[l]
				diag[l] = above
				suv := max(above+open, su[l]+ext)
				su[l] = suv
				v := max(sm, max(suv, slv))
				sc[l] = v
				left[l] = v
			}
		}
		for l := 0; l < lanes; l++ { // last column
			best[l] = max(best[l], left[l])
		}
	}
	if len(rows) > 0 {
		for c := 0; c < L; c++ { // last row
			for l := 0; l < lanes; l++ {
				best[l] = max(best[l], s[c*lanes+l])
			}
		}
	}
}
