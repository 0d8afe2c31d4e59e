package vitfilter

import (
	"math"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// kernelJob is one target as vitPairAVX2 reads it; the generator has
// the field offsets (TestKernelJobLayout).
type kernelJob struct {
	dsq *byte
	n   int
	xw  [4][2]int16
	xC  int32 // out: C's final word score
	ovf int32 // out: 1 when a row overflowed
}

var kernelJobs = sync.Pool{New: func() any { return new([]kernelJob) }}

// pairScores runs the paired kernel over jobs; false when om has no
// 8-lane tables.
func pairScores(om *oprofile.VitProfile, jobs []Job, out []float32) bool {
	st := om.StripesFor(8)
	if st == nil {
		return false
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
		need := 3 * st.Q * 32
		if len(*bp) < need {
			*bp = oprofile.AlignedBytes(need, 32)
		}
		dp := (*int16)(unsafe.Pointer(unsafe.SliceData(*bp)))
		lazyAll := 0
		if st.LazyAlways {
			lazyAll = 1
		}
		vitPairAVX2((*byte)(unsafe.Pointer(&kj[0])), len(kj), &st.RWV[0], st.RStride*2, &st.T[0], st.Q, dp, int(om.Base), &st.SkipLanes[0], lazyAll)
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
