package vitfilter

import (
	"math"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// kernelJob is one target as the multi-target kernels read it; the generator has
// the field offsets (TestKernelJobLayout).
type kernelJob struct {
	dsq *byte
	n   int
	xw  [4][2]int16
	xC  int32 // out: C's final word score
	ovf int32 // out: 1 when a row overflowed
}

var kernelJobs = sync.Pool{New: func() any { return new([]kernelJob) }}

// pairScores runs a multi-target kernel over jobs (see multiKernel).
// False when om has no tables of the kernel's lane count or a job's
// special-state scores need HMMER's int arithmetic (wordSpecials).
func pairScores(om *oprofile.VitProfile, jobs []Job, out []float32, mk multiKernel) bool {
	lanes := 8
	if mk == duoAVX512 {
		lanes = 16
	}
	st := om.StripesFor(lanes)
	if st == nil {
		return false
	}
	for i := range jobs {
		if !wordSpecials(om, &jobs[i].XW) {
			return false
		}
	}
	kp := kernelJobs.Get().(*[]kernelJob)
	defer kernelJobs.Put(kp)
	kj := (*kp)[:0]
	for i := range jobs {
		if len(jobs[i].Dsq) > 0 {
			kj = append(kj, kernelJob{dsq: &jobs[i].Dsq[0], n: len(jobs[i].Dsq), xw: jobs[i].XW})
		}
	}
	*kp = kj
	if len(kj) > 0 {
		bp := scratch.Get().(*[]byte)
		width := 64 // bytes of a DP vector: the targets' lanes side by side
		if mk == pairAVX2 {
			width = 32
		}
		need := 3 * st.Q * width
		if len(*bp) < need {
			*bp = oprofile.AlignedBytes(need, 64)
		}
		dp := (*int16)(unsafe.Pointer(unsafe.SliceData(*bp)))
		lazyAll := 0
		if st.LazyAlways {
			lazyAll = 1
		}
		kernel := vitPairAVX2
		switch mk {
		case quadAVX512:
			kernel = vitQuadAVX512
		case duoAVX512:
			kernel = vitDuoAVX512
		}
		kernel((*byte)(unsafe.Pointer(&kj[0])), len(kj), &st.RWV[0], st.RStride*2, &st.T[0], st.Q, dp, int(om.Base), &st.SkipLanes[0], lazyAll)
		scratch.Put(bp)
	}
	n := 0
	for i := range jobs {
		if len(jobs[i].Dsq) == 0 {
			out[i] = finalScore(negInf, om, &jobs[i].XW)
			continue
		}
		k := &kj[n]
		n++
		if k.ovf != 0 {
			out[i] = float32(math.Inf(1))
		} else {
			out[i] = finalScore(int16(k.xC), om, &jobs[i].XW)
		}
	}
	return true
}

// wordSpecials reports whether the special states of a target with
// scores xw can be updated in saturating words, as the paired kernel
// does, with the results of HMMER's int arithmetic and int16 stores: the
// N, C and J loops are 0 (xN stays at base, xC and xJ never drop), E's
// loop and move and J's move are not positive (a sum that leaves the
// word range can only be the smaller term of its max, which saturation
// does not change), and base + N's move is a word. Every profile that
// oprofile.Convert makes qualifies, whatever the target length.
func wordSpecials(om *oprofile.VitProfile, xw *[4][2]int16) bool {
	const e, n, j, c = profile.XE, profile.XN, profile.XJ, profile.XC
	const lp, mv = profile.Loop, profile.Move
	nn := int(om.Base) + int(xw[n][mv])
	return xw[n][lp] == 0 && xw[c][lp] == 0 && xw[j][lp] == 0 &&
		xw[e][lp] <= 0 && xw[e][mv] <= 0 && xw[j][mv] <= 0 &&
		nn >= -32768 && nn <= 32767
}
