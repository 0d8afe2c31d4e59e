package fwdback

import "github.com/hmmgo/hmmgo/internal/simd"

//go:generate go run -C ../../internal/avogen ./post -out ../../hmmer3/fwdback/post_amd64.s -stubs ../../hmmer3/fwdback/post_stubs_amd64.go -pkg fwdback

// The domain kernels by level: decoding has an AVX2 form (eight lanes of
// the same products), optimal accuracy a VEX form of its four-lane
// operations (three operands, unaligned memory operands); the row sums
// and null2's dot products are SSE at both vector levels.

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
