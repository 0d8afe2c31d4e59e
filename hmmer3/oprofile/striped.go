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
// of Lanes bytes (16 for SSE, 32 for AVX2).
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
var StripeLanes = [...]int{16, 32}

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
	s.RBV = AlignedBytes(Kp*s.RStride, 32)
	s.SBV = AlignedBytes(Kp*s.SStride, 32)
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
// order for vectors of Lanes words (8 for SSE, 16 for AVX2).
type VitStripes struct {
	Lanes, Q int
	// RWV holds, per residue code, Q vectors of match scores; residue x
	// starts at x*RStride. Nodes past M score -32768.
	RWV     []int16
	RStride int
	// T holds, per vector q, the eight transition vectors of its nodes in
	// the V* order (VBM..VDD) at T[(8q+t)*Lanes:]; -32768 past node M.
	T []int16
	// SkipDD is max_k (DD(k-2) + DM(k) - BM(k)) when no D->D or D->M
	// score is positive, else 1<<20: the kernels skip a row's lane-crossing
	// D->D passes when the row's largest D value plus SkipDD is at most
	// the next row's B (see the vit generator).
	SkipDD int
}

// VitStripeLanes are the vector widths VitProfile.Stripe builds.
var VitStripeLanes = [...]int{8, 16}

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
	s.RWV = alignedInt16(Kp*s.RStride, 32)
	s.T = alignedInt16(Q*8*V, 32)
	s.SkipDD = -1 << 20
	for k := 3; k <= M; k++ {
		s.SkipDD = max(s.SkipDD, int(p.T[k-2][VDD])+int(p.T[k][VDM])-int(p.T[k][VBM]))
	}
	for k := 1; k <= M; k++ {
		if p.T[k][VDD] > 0 || p.T[k][VDM] > 0 {
			s.SkipDD = 1 << 20 // the bound needs D->D and D->M <= 0
			break
		}
	}
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
