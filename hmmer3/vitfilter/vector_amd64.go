package vitfilter

import (
	"math"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

//go:generate go run -C ../../internal/avogen ./vit -out ../../hmmer3/vitfilter/kernels_amd64.s -stubs ../../hmmer3/vitfilter/kernels_stubs_amd64.go -pkg vitfilter

var scratch = sync.Pool{New: func() any { return new([]byte) }}

// stripesFor returns om's tables for level l's vector width, or nil.
func stripesFor(l simd.Level, om *oprofile.VitProfile) *oprofile.VitStripes {
	switch {
	case l >= simd.AVX512:
		return om.StripesFor(32)
	case l == simd.AVX2:
		return om.StripesFor(16)
	case l == simd.SSE:
		return om.StripesFor(8)
	}
	return nil
}

// vectorScore is the filter on SSE2, AVX2 or AVX-512 in the striped layout
// (oprofile.VitStripes); ok is false when om has no striped tables.
func vectorScore(l simd.Level, dsq []byte, om *oprofile.VitProfile, xw *[4][2]int16) (float32, bool) {
	st := stripesFor(l, om)
	if st == nil {
		return 0, false
	}
	if len(dsq) == 0 {
		return finalScore(negInf, om, xw), true
	}
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	need := 3 * st.Q * st.Lanes * 2
	if len(*bp) < need {
		*bp = oprofile.AlignedBytes(need, 64)
	}
	dp := (*int16)(unsafe.Pointer(unsafe.SliceData(*bp)))
	lazyAll := 0
	if st.LazyAlways {
		lazyAll = 1
	}
	var xC int
	var overflow bool
	switch {
	case l >= simd.AVX512:
		xC, overflow = vitAVX512(&dsq[0], len(dsq), &st.RWV[0], st.RStride*2, &st.T[0], st.Q, dp, xw, int(om.Base), &st.SkipLanes[0], lazyAll)
	case l == simd.AVX2:
		xC, overflow = vitAVX2(&dsq[0], len(dsq), &st.RWV[0], st.RStride*2, &st.T[0], st.Q, dp, xw, int(om.Base), &st.SkipLanes[0], lazyAll)
	default:
		xC, overflow = vitSSE(&dsq[0], len(dsq), &st.RWV[0], st.RStride*2, &st.T[0], st.Q, dp, xw, int(om.Base), &st.SkipLanes[0], lazyAll)
	}
	if overflow {
		return float32(math.Inf(1)), true
	}
	return finalScore(int16(xC), om, xw), true
}
