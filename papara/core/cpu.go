package core

import (
	"sort"
	"unsafe"
)

// CPUScorer scores blocks of branches on one CPU core, with the AVX2
// kernels when the CPU has them and the portable kernel otherwise. Reads
// short enough for 8-bit lanes are scored 32 branches per vector.
type CPUScorer struct {
	prof8      []int8
	prof16     []int16
	prof32     []int32
	state8     []int8
	state16    []int16
	state32    []int32
	best8      [32]int8
	best16     [16]int16
	best32     [8]int32
	stateGo    []int
	bestGo     [16]int32
	paperState []int32
}

// Name implements Scorer.
func (c *CPUScorer) Name() string { return "cpu-" + kernelName() }

// Take implements Scorer: a CPU worker takes one block at a time.
func (c *CPUScorer) Take() int { return 1 }

// planFor returns the job's scoring plan, made by the first scorer that
// needs it and shared by all.
func planFor(job *Job) *scoringPlan {
	job.planMu.Lock()
	defer job.planMu.Unlock()
	if job.plan == nil {
		job.plan = newScoringPlan(job, useAVX2())
	}
	return job.plan
}

// forgetPlan drops the job's plan (tests switch kernels between runs).
func forgetPlan(job *Job) {
	job.planMu.Lock()
	job.plan = nil
	job.planMu.Unlock()
}

// haveAVX2Override lets tests force the portable kernel (1).
var haveAVX2Override int

func useAVX2() bool { return haveAVX2 && haveAVX2Override == 0 }

// Score implements Scorer.
func (c *CPUScorer) Score(job *Job, blocks []Block, res *Results) error {
	if job.Scoring == ScoringPaper {
		for _, b := range blocks {
			c.scorePaper(job, b, res)
		}
		return nil
	}
	p := planFor(job)
	avx := useAVX2() && p.fastCosts
	pr := job.Params
	L := job.Branches.Len
	for _, b := range blocks {
		q0, q1 := b.Reads(job)
		// the block's reads of each lane class (the class lists ascend)
		var class [3][]int
		for i, qs := range p.class {
			class[i] = qs[sort.SearchInts(qs, q0):sort.SearchInts(qs, q1)]
		}
		if qs := class[lanes8]; len(qs) > 0 {
			n := b.End - b.Start
			s := p.stride(32)
			c.prof8 = growAligned(c.prof8, L*s)
			buildProfile(p, job, b.Start, n, 32, c.prof8)
			for _, qi := range qs {
				rows := p.qRows[qi]
				c.state8 = growAligned(c.state8, len(rows)*64)
				scoreAVX2x32(c.prof8, s, L, rows, pr.GapOpen, pr.GapExtend, p.bias8, c.state8, &c.best8)
				for l := 0; l < n; l++ {
					res.Offer(qi, b.Start+l, int32(int(c.best8[l])-p.bias8))
				}
			}
		}
		if qs := class[lanes16]; len(qs) > 0 {
			s := p.stride(16)
			for first := b.Start; first < b.End; first += 16 {
				n := min(16, b.End-first)
				c.prof16 = growAligned(c.prof16, L*s)
				buildProfile(p, job, first, n, 16, c.prof16)
				for _, qi := range qs {
					rows := p.qRows[qi]
					if avx {
						c.state16 = growAligned(c.state16, len(rows)*32)
						scoreAVX2x16(c.prof16, s, L, rows, pr.GapOpen, pr.GapExtend, c.state16, &c.best16)
					} else {
						c.stateGo = grow(c.stateGo, 4*len(rows))
						scoreBlockGo(c.prof16, s, L, 16, rows, pr.GapOpen, pr.GapExtend, int16Small, c.stateGo, c.bestGo[:16])
						for l := range c.best16 {
							c.best16[l] = int16(c.bestGo[l])
						}
					}
					for l := 0; l < n; l++ {
						res.Offer(qi, first+l, int32(c.best16[l]))
					}
				}
			}
		}
		if qs := class[lanes32]; len(qs) > 0 {
			s := p.stride(8)
			for first := b.Start; first < b.End; first += 8 {
				n := min(8, b.End-first)
				c.prof32 = growAligned(c.prof32, L*s)
				buildProfile(p, job, first, n, 8, c.prof32)
				for _, qi := range qs {
					rows := p.qRows[qi]
					if avx {
						c.state32 = growAligned(c.state32, len(rows)*16)
						scoreAVX2x8(c.prof32, s, L, rows, pr.GapOpen, pr.GapExtend, c.state32, &c.best32)
					} else {
						c.stateGo = grow(c.stateGo, 4*len(rows))
						scoreBlockGo(c.prof32, s, L, 8, rows, pr.GapOpen, pr.GapExtend, int32Small, c.stateGo, c.best32[:])
					}
					for l := 0; l < n; l++ {
						res.Offer(qi, first+l, c.best32[l])
					}
				}
			}
		}
	}
	return nil
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// growAligned is grow for kernel buffers: the slice starts on a 64-byte
// boundary, so no 256-bit access straddles two cache lines.
func growAligned[T int8 | int16 | int32](b []T, n int) []T {
	if cap(b) >= n && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 == 0 {
		return b[:n]
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	buf := make([]T, n+64/size)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}
