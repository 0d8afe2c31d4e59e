package core

// lane is the element type of a block profile read by the portable kernel.
type lane interface{ ~int16 | ~int32 }

// scoreBlockGo is the portable scoring kernel: PaPaRa 2.5's DP for one
// read against the `lanes` branches of a block profile. It follows
// PaPaRa's rule for CGAP lanes exactly — a lane's gap penalties along the
// reference are waived where its match increment is negative — so it is
// correct for any scores that pass Params.Check. It computes in machine
// integers: the plan sends a read to 16-bit lanes only when no value can
// leave their range, so PaPaRa's 16-bit wrap-around never happens.
//
// rows holds the profile row of each read residue; state is scratch of
// 4*len(rows); best receives the score per lane: the maximum over the last
// row and the last column (free end gaps on both sequences).
//
// Two branches are computed side by side, column by column with the read
// in the inner loop (as the AVX2 kernels do), so their dependency chains
// interleave; every cell sees the same neighbours as in PaPaRa's row order.
func scoreBlockGo[T lane](prof []T, stride, L, lanes int, rows []uint16, open, ext, small int, state []int, best []int32) {
	n := len(rows)
	st := state[:4*n]
	for l0 := 0; l0 < lanes; l0 += 2 {
		for j := 0; j < n; j++ {
			s := st[4*j : 4*j+4 : 4*j+4]
			s[0], s[1], s[2], s[3] = 0, 0, small, small
		}
		b0, b1 := small, small
		for c := 0; c < L; c++ {
			col := prof[c*stride : (c+1)*stride]
			var up0, up1, d0, d1 int
			su0, su1 := small, small
			for j, rk := range rows {
				in := col[int(rk)*lanes+l0 : int(rk)*lanes+l0+2 : int(rk)*lanes+l0+2]
				s := st[4*j : 4*j+4 : 4*j+4]
				up0, d0, su0, s[0], s[2] = cell(int(in[0]), s[0], s[2], d0, up0, su0, open, ext)
				up1, d1, su1, s[1], s[3] = cell(int(in[1]), s[1], s[3], d1, up1, su1, open, ext)
			}
			b0, b1 = max(b0, up0), max(b1, up1) // last row
		}
		for j := 0; j < n; j++ { // last column
			b0, b1 = max(b0, st[4*j]), max(b1, st[4*j+1])
		}
		best[l0], best[l0+1] = int32(b0), int32(b1)
	}
}

// cell computes one DP cell from its match increment m, the left cell's
// score and gap-from-left score, the diagonal, the cell above and its
// gap-from-above score. It returns the cell score (the next row's "up"),
// the next row's diagonal (this row's left score), the gap-from-above
// score, and the cell and gap-from-left scores to store.
func cell(m, left, slLeft, diag, up, su, open, ext int) (v, nextDiag, suOut, sc, sl int) {
	o, e := open, ext
	if m < 0 { // CGAP lane: gaps along the reference are free
		o, e = 0, 0
	}
	slv := max(left+o, slLeft+e)
	su = max(up+open, su+ext)
	v = max(diag+m, slv, su)
	return v, left, su, v, slv
}
