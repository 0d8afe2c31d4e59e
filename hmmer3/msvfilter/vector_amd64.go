package msvfilter

import (
	"math"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

//go:generate go run -C ../../internal/avogen ./msv -out ../../hmmer3/msvfilter/kernels_amd64.s -stubs ../../hmmer3/msvfilter/kernels_stubs_amd64.go -pkg msvfilter

// maxBand is how many striped columns one SSV pass keeps in registers
// (the generator's limit: 11 with 16 vector registers, 16 with
// AVX-512's 32).
func maxBand(l simd.Level) int {
	if l >= simd.AVX512 {
		return 16
	}
	return 11
}

var scratch = sync.Pool{New: func() any { return new([]byte) }}

// vectorScore is the filter on SSE2, AVX2 or AVX-512, in Farrar's striped layout
// (oprofile.MSVStripes). ok is false when l has no vector kernel or om
// has no striped tables.
func vectorScore(l simd.Level, dsq []byte, om *oprofile.MSVProfile) (sc float32, ok bool) {
	st := stripesFor(l, om)
	if st == nil {
		return 0, false
	}
	if ssvApplies(om) {
		if sc, ok := ssvDecide(ssvMaxCellVector(l, dsq, st), om); ok {
			return sc, true
		}
	}
	return msvVector(l, dsq, om, st), true
}

// stripesFor returns om's tables for level l's vector width, or nil.
func stripesFor(l simd.Level, om *oprofile.MSVProfile) *oprofile.MSVStripes {
	switch {
	case l >= simd.AVX512:
		return om.StripesFor(64)
	case l == simd.AVX2:
		return om.StripesFor(32)
	case l == simd.SSE:
		return om.StripesFor(16)
	}
	return nil
}

// ssvMaxCellVector splits the Q striped columns into bands of at most
// maxBand, as even as possible, and runs each band over the whole
// sequence with its cells in registers. Diagonals never cross from one
// column to another within a row, so the bands are independent and the
// largest cell is the largest of the bands'.
func ssvMaxCellVector(l simd.Level, dsq []byte, st *oprofile.MSVStripes) uint8 {
	if len(dsq) == 0 {
		return 128
	}
	Q := st.Q
	maxBand := maxBand(l)
	bands := (Q + maxBand - 1) / maxBand
	best := uint8(128)
	from := 0
	for b := 1; b <= bands; b++ {
		to := Q * b / bands
		var m uint8
		switch {
		case l >= simd.AVX512:
			m = ssvBandAVX512(&dsq[0], len(dsq), &st.SBV[0], st.SStride, Q, from, to-from)
		case l == simd.AVX2:
			m = ssvBandAVX2(&dsq[0], len(dsq), &st.SBV[0], st.SStride, Q, from, to-from)
		default:
			m = ssvBandSSE(&dsq[0], len(dsq), &st.SBV[0], st.SStride, Q, from, to-from)
		}
		best = max(best, m)
		from = to
	}
	return best
}

func msvVector(l simd.Level, dsq []byte, om *oprofile.MSVProfile, st *oprofile.MSVStripes) float32 {
	if len(dsq) == 0 {
		return finalScore(0, om)
	}
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	need := st.Q * st.Lanes
	if len(*bp) < need {
		*bp = oprofile.AlignedBytes(need, 64)
	}
	dp := unsafe.SliceData(*bp)
	bias, base, tjbm, tec := int(om.Bias), int(om.Base), int(uint8(om.TJB+om.TBM)), int(om.TEC)
	var xJ int
	var overflow bool
	switch {
	case l >= simd.AVX512:
		xJ, overflow = msvAVX512(&dsq[0], len(dsq), &st.RBV[0], st.RStride, st.Q, dp, bias, base, tjbm, tec)
	case l == simd.AVX2:
		xJ, overflow = msvAVX2(&dsq[0], len(dsq), &st.RBV[0], st.RStride, st.Q, dp, bias, base, tjbm, tec)
	default:
		xJ, overflow = msvSSE(&dsq[0], len(dsq), &st.RBV[0], st.RStride, st.Q, dp, bias, base, tjbm, tec)
	}
	if overflow {
		return float32(math.Inf(1))
	}
	return finalScore(xJ, om)
}
