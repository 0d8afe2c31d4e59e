package pairhmm

import "github.com/hmmgo/hmmgo/internal/simd"

//go:generate go run -C ../internal/avogen ./pairhmm -out ../../pairhmm/lanes_amd64.s -stubs ../../pairhmm/lanes_stubs_amd64.go -pkg pairhmm

// simdLaneKernels are the generated kernels, lowest level first. maxStrip
// is the most rows the assembly handles (3k+7 vector registers for k rows:
// 3 of AVX2's 16, 8 of AVX-512's 32); strip is the fastest height measured
// (BenchmarkLaneKernelsFTZ on the Xeon host, docs/BENCHMARKS.md: 4 for
// AVX-512, within noise of 7 and 8).
var simdLaneKernels = []simdLaneKernel{
	{simd.AVX2, laneKernel{name: "avx2", width: 8, strip: 3, maxStrip: 3, run: stripRunner(stripPassAVX2, sumRowAVX2)}},
	{simd.AVX512, laneKernel{name: "avx512", width: 16, strip: 4, maxStrip: 8, run: stripRunner(stripPassAVX512, sumRowAVX512)}},
}

// simdFusedLaneKernels compute the fused arithmetic (ArithFused). The
// AVX-512 one takes the GKL kernel's strip height (not measured fused).
var simdFusedLaneKernels = []simdLaneKernel{
	{simd.AVX2, laneKernel{name: "avx2", width: 8, strip: 3, maxStrip: 3, fused: true, run: stripRunner(stripPassFusedAVX2, sumRowAVX2)}},
	{simd.AVX512, laneKernel{name: "avx512", width: 16, strip: 4, maxStrip: 8, fused: true, run: stripRunner(stripPassFusedAVX512, sumRowAVX512)}},
}

type (
	stripFunc func(lanes *float32, rows int, hap *uint8, h int, src, dst *float32)
	sumFunc   func(m, x *float32, h int, out *float32)
)

// stripRunner returns the float pass of a generated kernel: the batch's
// rows in strips of up to k.strip rows, a strip ending early at a row
// where some read ends, so that the row is in memory to be summed.
func stripRunner(pass stripFunc, sum sumFunc) func(k *laneKernel, b *laneBatch, hap []uint8, out []float32) {
	return func(k *laneKernel, b *laneBatch, hap []uint8, out []float32) {
		h, w := len(hap), b.width
		if h == 0 { // the assembly loop needs a column; validation rejects empty haplotypes
			clear(out)
			return
		}
		if !b.interleaved {
			b.interleave()
		}
		n := 3 * (h + 1) * w
		for i := range b.dp {
			if cap(b.dp[i]) < n {
				b.dp[i] = alignedFloats(n)
			}
			b.dp[i] = b.dp[i][:n]
		}
		src, dst := b.dp[0], b.dp[1]
		// The row above the first: M and X zero, Y initial/h.
		initY := initial32 / float32(h)
		clear(src[:2*(h+1)*w])
		for j := 2 * (h + 1) * w; j < n; j++ {
			src[j] = initY
		}
		var sums [maxLaneWidth]float32
		for i := 0; i < b.maxLen; {
			rows := min(k.strip, b.maxLen-i)
			for r := range rows {
				if b.endAt[i+r] {
					rows = r + 1
					break
				}
			}
			pass(&b.lanes[i*rowVectors*w], rows, &hap[0], h, &src[0], &dst[0])
			i += rows
			src, dst = dst, src
			if !b.endAt[i-1] {
				continue
			}
			sum(&src[w], &src[(h+2)*w], h, &sums[0])
			for l := range b.reads {
				if len(b.reads[l].rows32) == i {
					out[l] = sums[l]
				}
			}
		}
	}
}
