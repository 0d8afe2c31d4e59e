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
	tp := pairTable(st)
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
		vitPairAVX2((*byte)(unsafe.Pointer(&kj[0])), len(kj), &st.RWV[0], st.RStride*2, &tp[0], st.Q, dp, int(om.Base), st.SkipDD)
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

var pairTables sync.Map // *oprofile.VitStripes -> []int16 (prototype)

// pairTable is st's transition table with every 8-lane vector twice.
func pairTable(st *oprofile.VitStripes) []int16 {
	if t, ok := pairTables.Load(st); ok {
		return t.([]int16)
	}
	n := len(st.T) / 8
	b := oprofile.AlignedBytes(4*len(st.T), 32)
	t := unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(b))), 2*len(st.T))
	for v := 0; v < n; v++ {
		copy(t[16*v:16*v+8], st.T[8*v:8*v+8])
		copy(t[16*v+8:16*v+16], st.T[8*v:8*v+8])
	}
	pairTables.Store(st, t)
	return t
}
