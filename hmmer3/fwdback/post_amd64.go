package fwdback

import "github.com/hmmgo/hmmgo/internal/simd"

//go:generate go run -C ../../internal/avogen ./post -out ../../hmmer3/fwdback/post_amd64.s -stubs ../../hmmer3/fwdback/post_stubs_amd64.go -pkg fwdback

// The domain kernels by level: decoding has an AVX2 form (eight lanes of
// the same products), optimal accuracy (alone or fused with the row sums
// and the next row's decoding) a VEX form of its four-lane operations
// (three operands, unaligned memory operands); the row sums and null2's
// dot products are SSE at both vector levels.

func decodeRows(f, b, p []vec, Q int, totr []float32) {
	switch {
	case len(totr) == 0:
	case level >= simd.AVX2:
		decodeRowsAVX2(asVec4(f), asVec4(b), asVec4(p), Q, &totr[0], len(totr))
	case level >= simd.SSE:
		decodeRowsSSE(asVec4(f), asVec4(b), asVec4(p), Q, &totr[0], len(totr))
	default:
		decodeRowsGo(f, b, p, Q, totr)
	}
}

func oaRow(dpp, dpc, ppr []vec, msk []uint32, Q int, xB float32, ddAll *[4]uint32) vec {
	var xEv vec
	switch {
	case level >= simd.AVX2:
		oaRowAVX(asVec4(dpp), asVec4(dpc), asVec4(ppr), (*[4]uint32)(msk), Q, xB, ddAll, (*[4]float32)(&xEv))
	case level >= simd.SSE:
		oaRowSSE(asVec4(dpp), asVec4(dpc), asVec4(ppr), (*[4]uint32)(msk), Q, xB, ddAll, (*[4]float32)(&xEv))
	default:
		xEv = oaRowGo(dpp, dpc, ppr, msk, Q, xB, ddAll)
	}
	return xEv
}

// decodeOARow is DecodeAlign's row: oaRow, and unless nil, acc = ppr +
// acc (sumRows) and the decoding of row nf, nb into nb scaled by t
// (decodeRows). The SSE and VEX kernels do all three in the two sweeps of
// the optimal accuracy row, and skip the masks of the vectors that plain
// (setMasks) marks.
func decodeOARow(dpp, dpc, ppr []vec, msk []uint32, Q int, xB float32, ddAll *[4]uint32, plain []uint8, acc, nf, nb []vec, t float32) vec {
	if level < simd.SSE {
		return decodeOARowGo(dpp, dpc, ppr, msk, Q, xB, ddAll, acc, nf, nb, t)
	}
	var xEv vec
	var pa, pf, pb *[4]float32
	if acc != nil {
		pa = asVec4(acc)
	}
	if nf != nil {
		pf, pb = asVec4(nf), asVec4(nb)
	}
	if level >= simd.AVX2 {
		decodeOARowAVX(asVec4(dpp), asVec4(dpc), asVec4(ppr), (*[4]uint32)(msk), Q, xB, ddAll, (*[4]float32)(&xEv), &plain[0], pa, pf, pb, t)
	} else {
		decodeOARowSSE(asVec4(dpp), asVec4(dpc), asVec4(ppr), (*[4]uint32)(msk), Q, xB, ddAll, (*[4]float32)(&xEv), &plain[0], pa, pf, pb, t)
	}
	return xEv
}

func sumRows(acc, src []vec, Q, rows int) {
	switch {
	case rows == 0:
	case level >= simd.SSE:
		sumRowsSSE(asVec4(acc), asVec4(src), Q, rows)
	default:
		sumRowsGo(acc, src, Q, rows)
	}
}

func null2Dot(row, rf []vec, Q int) vec {
	if level < simd.SSE {
		return null2DotGo(row, rf, Q)
	}
	var s vec
	null2DotSSE(asVec4(row), asVec4(rf), Q, (*[4]float32)(&s))
	return s
}

// null2Group is how many residues one null2SumsAVX2 call sums.
const null2Group = 10

// null2Sums does null2Sum's vector work at the avx2 level: it scales
// row0's M and I vectors by norm, then sets s[x] to null2Dot(row0,
// rf[x]) for every x < len(s), ten residues per kernel call (the last
// call repeats the last residue to fill its ten). At other levels it
// does nothing and reports false.
func null2Sums(row0 []vec, rf [][]vec, Q int, norm float32, s []vec) bool {
	if level < simd.AVX2 || len(s) == 0 {
		return false
	}
	var ptrs [null2Group]*[4]float32
	var out [null2Group]vec
	for g := 0; g < len(s); g += null2Group {
		for j := range ptrs {
			ptrs[j] = asVec4(rf[min(g+j, len(s)-1)])
		}
		null2SumsAVX2(asVec4(row0), &ptrs[0], Q, norm, g == 0, asVec4(out[:]))
		copy(s[g:], out[:])
	}
	return true
}
