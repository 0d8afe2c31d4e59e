//go:build amd64

package pairhmm

import "unsafe"

func cpuid(leaf, sub uint32) (a, b, c, d uint32)
func xgetbv0() uint32

//go:noescape
func rowPassAVX2(lr *laneRow, hap *uint8, h int, m, x, y *float32)

//go:noescape
func rowPass2AVX2(la, lb *laneRow, hap *uint8, h int, ma, xa, ya, mb, xb, yb *float32)

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

var avx2LaneKernel = laneKernel{name: "avx2", run: runAVX2, run2: runAVX2Pair}

func bestLaneKernel() laneKernel {
	if haveAVX2 {
		return avx2LaneKernel
	}
	return goLaneKernel
}

// startAVX2 interleaves the batch (once) and sets up row 0 of its lanes.
func startAVX2(b *laneBatch, hap []uint8) {
	if !b.interleaved {
		b.interleave()
	}
	n := (len(hap) + 1) * laneWidth
	if cap(b.vm) < n {
		b.vm, b.vx, b.vy = make([]float32, n), make([]float32, n), make([]float32, n)
	}
	b.vm, b.vx, b.vy = b.vm[:n], b.vx[:n], b.vy[:n]
	initY := initial32 / float32(len(hap))
	clear(b.vm)
	clear(b.vx)
	for j := range b.vy {
		b.vy[j] = initY
	}
}

// collectAVX2 stores the results of the reads that end at row i.
func collectAVX2(b *laneBatch, i, h int, out *[laneWidth]float32) {
	if !b.endAt[i] {
		return
	}
	var sums [laneWidth]float32
	sumRowAVX2(&b.vm[laneWidth], &b.vx[laneWidth], h, &sums)
	for l := range b.reads {
		if len(b.reads[l].rows32) == i+1 {
			out[l] = sums[l]
		}
	}
}

// runAVX2 is the float pass of up to eight reads, one per lane.
func runAVX2(b *laneBatch, hap []uint8, out *[laneWidth]float32) {
	h := len(hap)
	if h == 0 { // the assembly loop needs a column; validation rejects empty haplotypes
		*out = [laneWidth]float32{}
		return
	}
	startAVX2(b, hap)
	for i := 0; i < b.maxLen; i++ {
		rowPassAVX2(&b.lanes[i], &hap[0], h, &b.vm[0], &b.vx[0], &b.vy[0])
		collectAVX2(b, i, h, out)
	}
}

// runAVX2Pair runs two batches against the same haplotype, interleaving
// their rows while both have rows left.
func runAVX2Pair(a, b *laneBatch, hap []uint8, outA, outB *[laneWidth]float32) {
	h := len(hap)
	if h == 0 {
		*outA, *outB = [laneWidth]float32{}, [laneWidth]float32{}
		return
	}
	startAVX2(a, hap)
	startAVX2(b, hap)
	for i := 0; i < max(a.maxLen, b.maxLen); i++ {
		switch {
		case i < a.maxLen && i < b.maxLen:
			rowPass2AVX2(&a.lanes[i], &b.lanes[i], &hap[0], h, &a.vm[0], &a.vx[0], &a.vy[0], &b.vm[0], &b.vx[0], &b.vy[0])
		case i < a.maxLen:
			rowPassAVX2(&a.lanes[i], &hap[0], h, &a.vm[0], &a.vx[0], &a.vy[0])
		default:
			rowPassAVX2(&b.lanes[i], &hap[0], h, &b.vm[0], &b.vx[0], &b.vy[0])
		}
		if i < a.maxLen {
			collectAVX2(a, i, h, outA)
		}
		if i < b.maxLen {
			collectAVX2(b, i, h, outB)
		}
	}
}
