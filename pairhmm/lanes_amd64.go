//go:build amd64

package pairhmm

import "unsafe"

func cpuid(leaf, sub uint32) (a, b, c, d uint32)
func xgetbv0() uint32

//go:noescape
func rowPassAVX2(lr *laneRow, hap *uint8, h int, m, x, y *float32)

//go:noescape
func sumRowAVX2(m, x *float32, h int, out *[laneWidth]float32)

// haveAVX2 reports whether the CPU and the OS support AVX2 (the YMM state
// must be enabled by the OS, checked through XGETBV).
var haveAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xgetbv0()&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}()

func init() {
	// The assembly addresses the rows by these offsets.
	var r laneRow
	if unsafe.Offsetof(r.emis) != 160 || unsafe.Sizeof(r.emis[0]) != 32 || unsafe.Offsetof(r.my) != 128 {
		panic("pairhmm: laneRow layout does not match lanes_amd64.s")
	}
}

var avx2LaneKernel = laneKernel{name: "avx2", run: runAVX2}

func bestLaneKernel() laneKernel {
	if haveAVX2 {
		return avx2LaneKernel
	}
	return goLaneKernel
}

// runAVX2 is the float pass of up to eight reads, one per lane.
func runAVX2(b *laneBatch, hap []uint8, out *[laneWidth]float32) {
	if !b.interleaved {
		b.interleave()
	}
	h := len(hap)
	if h == 0 { // the assembly loop needs a column; validation rejects empty haplotypes
		*out = [laneWidth]float32{}
		return
	}
	n := (h + 1) * laneWidth
	if cap(b.vm) < n {
		b.vm, b.vx, b.vy = make([]float32, n), make([]float32, n), make([]float32, n)
	}
	m, x, y := b.vm[:n], b.vx[:n], b.vy[:n]
	initY := initial32 / float32(h)
	clear(m)
	clear(x)
	for j := range y {
		y[j] = initY
	}
	var sums [laneWidth]float32
	for i := 0; i < b.maxLen; i++ {
		rowPassAVX2(&b.lanes[i], &hap[0], h, &m[0], &x[0], &y[0])
		if b.endAt[i] {
			sumRowAVX2(&m[laneWidth], &x[laneWidth], h, &sums)
			for l := range b.reads {
				if len(b.reads[l].rows32) == i+1 {
					out[l] = sums[l]
				}
			}
		}
	}
}
