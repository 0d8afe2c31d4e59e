package pairhmm

import (
	"fmt"
	"unsafe"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// maxLaneWidth is the most reads one pass runs side by side: the sixteen
// float lanes of an AVX-512 register.
const maxLaneWidth = 16

// rowVectors is how many lane vectors one read position takes in a lane
// batch: mm, gapm, mx, gcp, my, then the emission priors of haplotype
// codes 0..4 (the generator in internal/avogen/pairhmm uses this layout).
const rowVectors = 10

// laneBatch is up to width prepared reads to be run against the same
// haplotypes. The SIMD kernels also need the rows interleaved by lane.
type laneBatch struct {
	width  int
	reads  []preparedRead
	maxLen int
	// lanes holds, for each read position i, rowVectors vectors of width
	// floats (field f of lane l at (i*rowVectors+f)*width+l); lanes past a
	// read's end are zero, which makes their cells zero and keeps them
	// harmless.
	lanes []float32
	// endAt[i] is true when some read ends at row i.
	endAt       []bool
	interleaved bool
	s           scratch
	// dp are the two DP row buffers of the SIMD kernels, each M, X and Y
	// of (h+1) lane vectors: one holds the row above, the other receives
	// the next.
	dp [2][]float32
}

func (b *laneBatch) load(reads []preparedRead, width int) {
	b.width = width
	b.reads = reads
	b.interleaved = false
	b.maxLen = 0
	for i := range reads {
		b.maxLen = max(b.maxLen, len(reads[i].rows32))
	}
}

// interleave fills lanes and endAt; only the SIMD kernels call it.
func (b *laneBatch) interleave() {
	n, w := b.maxLen, b.width
	if cap(b.lanes) < n*rowVectors*w {
		b.lanes = alignedFloats(n * rowVectors * w)
	}
	if cap(b.endAt) < n {
		b.endAt = make([]bool, n)
	}
	b.lanes, b.endAt = b.lanes[:n*rowVectors*w], b.endAt[:n]
	clear(b.lanes)
	clear(b.endAt)
	for l := range b.reads {
		rows := b.reads[l].rows32
		for i := range rows {
			p, d := &rows[i], b.lanes[i*rowVectors*w+l:]
			d[0*w], d[1*w], d[2*w], d[3*w], d[4*w] = p.mm, p.gapm, p.mx, p.gcp, p.my
			for c := range 5 {
				d[(5+c)*w] = p.emis[c]
			}
		}
		b.endAt[len(rows)-1] = true
	}
	b.interleaved = true
}

// alignedFloats returns n floats starting on a 64-byte boundary, so that
// no vector of a lane batch or DP row straddles two cache lines.
func alignedFloats(n int) []float32 {
	s := make([]float32, n+15)
	skip := int(-uintptr(unsafe.Pointer(&s[0])) & 63 / 4)
	return s[skip : skip+n]
}

// laneKernel runs the float pass of up to width reads against one
// haplotype at once, each read in its own lane, writing out[0:width].
type laneKernel struct {
	name  string
	width int
	// strip is how many rows a SIMD kernel keeps in registers per sweep
	// along the haplotype; maxStrip the most its assembly handles.
	strip, maxStrip int
	fused           bool // computes the fused arithmetic (ArithFused)
	run             func(k *laneKernel, b *laneBatch, hap []uint8, out []float32)
}

// goLaneKernel is the portable float pass: one read at a time. Its width
// only sets how many reads a CPU job takes.
var goLaneKernel = laneKernel{name: "go", width: maxLaneWidth, run: func(_ *laneKernel, b *laneBatch, hap []uint8, out []float32) {
	b.s.grow(len(hap) + 1)
	for l := range b.reads {
		out[l] = forwardFloat(b.reads[l].rows32, hap, initial32, b.s.m32, b.s.x32, b.s.y32)
	}
}}

// simdLaneKernel is a vector kernel and the instruction set it needs.
type simdLaneKernel struct {
	level  simd.Level
	kernel laneKernel
}

// laneKernelSet is one arithmetic's float passes: the portable kernel
// and the generated ones, lowest level first.
type laneKernelSet struct {
	portable laneKernel
	simd     []simdLaneKernel
}

var (
	gklLaneKernels   = laneKernelSet{goLaneKernel, simdLaneKernels}
	fusedLaneKernels = laneKernelSet{goFusedLaneKernel, simdFusedLaneKernels}
)

// byName returns the kernel called name ("go", "avx2", "avx512"); ok is
// false for an unknown name, err non-nil when this CPU cannot run it.
func (set laneKernelSet) byName(name string) (k laneKernel, ok bool, err error) {
	if name == "go" {
		return set.portable, true, nil
	}
	for _, s := range set.simd {
		if s.kernel.name == name {
			if s.level > simd.Best {
				return k, true, fmt.Errorf("pairhmm: the %s kernel needs a CPU with %s", name, levelName[s.level])
			}
			return s.kernel, true, nil
		}
	}
	switch name {
	case "avx2", "avx512":
		return k, true, fmt.Errorf("pairhmm: the %s kernel needs an amd64 CPU", name)
	}
	return k, false, nil
}

var levelName = map[simd.Level]string{simd.AVX2: "AVX2", simd.AVX512: "AVX-512 (F, BW, DQ, VL)"}

// best is the fastest kernel at or below level.
func (set laneKernelSet) best(level simd.Level) laneKernel {
	k := set.portable
	for _, s := range set.simd {
		if s.level <= level && s.level <= simd.Best {
			k = s.kernel
		}
	}
	return k
}

// available lists the kernels this CPU can run, "go" first.
func (set laneKernelSet) available() []laneKernel {
	ks := []laneKernel{set.portable}
	for _, s := range set.simd {
		if s.level <= simd.Best {
			ks = append(ks, s.kernel)
		}
	}
	return ks
}
