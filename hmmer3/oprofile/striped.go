package oprofile

import "unsafe"

// The vector filter kernels read their costs in Farrar's striped order:
// with V lanes and Q = ceil(M/V) vectors per row, lane z of vector q holds
// node k = z*Q + q + 1. A row of the DP is then Q vectors, and a cell's
// diagonal predecessor (node k-1, previous row) is the same lane of vector
// q-1, or for q = 0 the previous lane of vector Q-1: one lane shift per
// row instead of one per vector. The filters' integer results do not
// depend on the layout; these tables only serve speed.

// SSVExtra is how many vectors of each SSV cost row are repeated past
// vector Q-1. The SSV kernel keeps a band of up to SSVExtra consecutive
// vectors in registers and reads them as one contiguous run even when the
// band wraps around the row's end.
const SSVExtra = 16

// MSVStripes is the byte score system in the striped order for vectors
// of Lanes bytes (16 for SSE, 32 for AVX2, 64 for AVX-512).
type MSVStripes struct {
	Lanes, Q int
	// RBV holds, per residue code, Q vectors of biased match costs (MSV),
	// cost 255 past node M; residue x starts at x*RStride.
	RBV     []byte
	RStride int
	// SBV holds, per residue code, Q+SSVExtra vectors of signed SSV costs
	// (SBV), 127 past node M; vector Q+j repeats vector j mod Q.
	SBV     []byte
	SStride int
}

// StripeLanes are the vector widths Stripe builds tables for.
var StripeLanes = [...]int{16, 32, 64}

// Stripe (re)builds the striped tables from RBV and SBV; Convert calls
// it, and so must anyone who fills an MSVProfile by hand.
func (p *MSVProfile) Stripe() {
	p.Stripes = make([]*MSVStripes, len(StripeLanes))
	for i, V := range StripeLanes {
		p.Stripes[i] = stripeBytes(p, V)
	}
}

// StripesFor returns the tables for vectors of V lanes, or nil.
func (p *MSVProfile) StripesFor(V int) *MSVStripes {
	for _, s := range p.Stripes {
		if s.Lanes == V {
			return s
		}
	}
	return nil
}

func stripeBytes(p *MSVProfile, V int) *MSVStripes {
	M := p.M
	Q := max(1, (M+V-1)/V)
	Kp := len(p.RBV)
	s := &MSVStripes{Lanes: V, Q: Q, RStride: Q * V, SStride: (Q + SSVExtra) * V}
	s.RBV = AlignedBytes(Kp*s.RStride, 64)
	s.SBV = AlignedBytes(Kp*s.SStride, 64)
	for x := 0; x < Kp; x++ {
		r := s.RBV[x*s.RStride:]
		sb := s.SBV[x*s.SStride:]
		for u := 0; u < Q+SSVExtra; u++ {
			q := u % Q
			for z := 0; z < V; z++ {
				k := z*Q + q + 1
				rc, sc := uint8(255), int8(127)
				if k <= M {
					rc, sc = p.RBV[x][k], p.SBV[x][k]
				}
				if u < Q {
					r[u*V+z] = rc
				}
				sb[u*V+z] = uint8(sc)
			}
		}
	}
	return s
}

// AlignedBytes returns n zeroed bytes starting at a multiple of align (a
// power of two), so that vector loads never split a cache line and SSE
// memory operands are legal.
func AlignedBytes(n, align int) []byte {
	b := make([]byte, n+align)
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) & uintptr(align-1))
	if off != 0 {
		off = align - off
	}
	return b[off : off+n : off+n]
}

// VitStripes is the Viterbi filter's word score system in the striped
// order for vectors of Lanes words (8 for SSE, 16 for AVX2, 32 for
// AVX-512).
type VitStripes struct {
	Lanes, Q int
	// RWV holds, per residue code, Q vectors of match scores; residue x
	// starts at x*RStride. Nodes past M score -32768.
	RWV     []int16
	RStride int
	// T holds, per vector q, the eight transition vectors of its nodes in
	// the V* order (VBM..VDD) at T[(8q+t)*Lanes:]; -32768 past node M.
	T []int16
	// SkipLanes[z] (z < Lanes) is the most that a D->D carry entering
	// lane z's first node j at the end of a row can still add, over the
	// B entry it competes with, to an M cell of the next row: the max
	// over nodes n > j of DD(j) + .. + DD(n-1) + DM(n+1) - BM(n+1),
	// -32768 when below that or when no node follows. The kernels skip a
	// row's lazy-F passes when every lane's carry c has c + SkipLanes[z]
	// below the next row's B (see hmmer3/vitfilter). LazyAlways is set
	// when that bound does not hold (a D->D or D->M score above 0, or a
	// bound above 32767): every row then runs the passes.
	SkipLanes  [32]int16
	LazyAlways bool
}

// VitStripeLanes are the vector widths VitProfile.Stripe builds.
var VitStripeLanes = [...]int{8, 16, 32}

// Stripe (re)builds the striped tables from RWV and T; Convert calls it,
// and so must anyone who fills a VitProfile by hand.
func (p *VitProfile) Stripe() {
	p.Stripes = make([]*VitStripes, len(VitStripeLanes))
	for i, V := range VitStripeLanes {
		p.Stripes[i] = stripeWords(p, V)
	}
}

// StripesFor returns the tables for vectors of V words, or nil.
func (p *VitProfile) StripesFor(V int) *VitStripes {
	for _, s := range p.Stripes {
		if s.Lanes == V {
			return s
		}
	}
	return nil
}

func stripeWords(p *VitProfile, V int) *VitStripes {
	M := p.M
	Q := max(1, (M+V-1)/V)
	Kp := len(p.RWV)
	s := &VitStripes{Lanes: V, Q: Q, RStride: Q * V}
	s.RWV = alignedInt16(Kp*s.RStride, 64)
	s.T = alignedInt16(Q*8*V, 64)
	s.LazyAlways = !lazySkip(p, V, Q, s.SkipLanes[:])
	for q := 0; q < Q; q++ {
		for z := 0; z < V; z++ {
			k := z*Q + q + 1
			for x := 0; x < Kp; x++ {
				v := int16(-32768)
				if k <= M {
					v = p.RWV[x][k]
				}
				s.RWV[x*s.RStride+q*V+z] = v
			}
			for t := 0; t < 8; t++ {
				v := int16(-32768)
				if k <= M {
					v = p.T[k][t]
				}
				s.T[(8*q+t)*V+z] = v
			}
		}
	}
	return s
}

func alignedInt16(n, align int) []int16 {
	b := AlignedBytes(2*n, align)
	return unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// lazySkip fills skip[0:lanes] as VitStripes.SkipLanes describes, for Q
// nodes a lane; false when the bound does not hold. (A lazily raised D(n)
// reaches the next row only through M(n+1), and it is a carry c into some
// lane's first node j plus D->D steps: with no positive D->D score the
// kernels' saturating sums never exceed the exact ones. The carry itself
// is merged into D(j) on every row.)
func lazySkip(p *VitProfile, lanes, Q int, skip []int16) bool {
	M := p.M
	for z := range skip[:lanes] {
		skip[z] = -32768
	}
	for k := 1; k <= M; k++ {
		if p.T[k][VDD] > 0 || p.T[k][VDM] > 0 {
			return false
		}
	}
	// h is the best, over n' >= n, of DM(n'+1) - BM(n'+1) plus the D->D
	// steps from n to n'.
	h := int64(-1 << 40)
	z := min(lanes-1, (M-3)/Q) // the last lane whose first node j has j+1 <= M-1
	for n := M - 1; n >= 2 && z >= 1; n-- {
		t := &p.T[n+1]
		h = max(int64(t[VDM])-int64(t[VBM]), int64(p.T[n][VDD])+h)
		if n == z*Q+2 { // n = j+1 for lane z's first node j
			b := int64(p.T[n-1][VDD]) + h
			if b > 32767 {
				return false
			}
			skip[z] = int16(max(b, -32768))
			z--
		}
	}
	return true
}
