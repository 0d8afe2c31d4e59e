package core

import "sync"

// CPUScorer scores blocks of branches on one CPU core. It uses the AVX2
// kernels when the CPU has them and the portable kernel otherwise.
type CPUScorer struct {
	prof16     []int16
	prof32     []int32
	buf16      [2][]int16
	buf32      [2][]int32
	best16     [16]int16
	best32     [8]int32
	paperState []int32
}

// Name implements Scorer.
func (c *CPUScorer) Name() string { return "cpu-" + kernelName() }

// Take implements Scorer: a CPU worker takes one block at a time.
func (c *CPUScorer) Take() int { return 1 }

// plans caches one scoring plan per job (shared by its scorers).
var plans sync.Map // *Job -> *scoringPlan

func planFor(job *Job) *scoringPlan {
	if p, ok := plans.Load(job); ok {
		return p.(*scoringPlan)
	}
	p, _ := plans.LoadOrStore(job, newScoringPlan(job))
	return p.(*scoringPlan)
}

// forgetPlan drops the cached plan of a finished job.
func forgetPlan(job *Job) { plans.Delete(job) }

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// Score implements Scorer.
func (c *CPUScorer) Score(job *Job, blocks []Block, res *Results) error {
	if job.Scoring == ScoringPaper {
		for _, b := range blocks {
			c.scorePaper(job, b, res)
		}
		return nil
	}
	p := planFor(job)
	L := job.Branches.Len
	stride := p.stride()
	for _, b := range blocks {
		for first := b.Start; first < b.End; first += p.lanes {
			n := min(p.lanes, b.End-first)
			if p.wide {
				c.prof32 = grow(c.prof32, L*stride)
				p.buildProfile32(job, first, n, c.prof32)
			} else {
				c.prof16 = grow(c.prof16, L*stride)
				p.buildProfile16(job, first, n, c.prof16)
			}
			for qi := range job.Queries {
				rows := p.qRows[qi]
				if p.wide {
					c.run32(job, p, rows)
					for l := 0; l < n; l++ {
						res.Offer(qi, first+l, c.best32[l])
					}
				} else {
					c.run16(job, p, rows)
					for l := 0; l < n; l++ {
						res.Offer(qi, first+l, int32(c.best16[l]))
					}
				}
			}
		}
	}
	return nil
}

func (c *CPUScorer) run16(job *Job, p *scoringPlan, rows []uint16) {
	L := job.Branches.Len
	pr := job.Params
	if p.fastCosts && haveAVX2 {
		c.buf16[0] = grow(c.buf16[0], len(rows)*16)
		c.buf16[1] = grow(c.buf16[1], len(rows)*16)
		scoreBlockAVX2x16(c.prof16, p.stride(), L, rows, int16(pr.GapOpen), int16(pr.GapExtend), c.buf16[0], c.buf16[1], &c.best16)
		return
	}
	c.buf16[0] = grow(c.buf16[0], L*16)
	c.buf16[1] = grow(c.buf16[1], L*16)
	scoreBlockGo(c.prof16, p.stride(), L, 16, rows, int16(pr.GapOpen), int16(pr.GapExtend), int16Small, c.buf16[0], c.buf16[1], c.best16[:])
}

func (c *CPUScorer) run32(job *Job, p *scoringPlan, rows []uint16) {
	L := job.Branches.Len
	pr := job.Params
	if p.fastCosts && haveAVX2 {
		c.buf32[0] = grow(c.buf32[0], len(rows)*8)
		c.buf32[1] = grow(c.buf32[1], len(rows)*8)
		scoreBlockAVX2x8(c.prof32, p.stride(), L, rows, int32(pr.GapOpen), int32(pr.GapExtend), c.buf32[0], c.buf32[1], &c.best32)
		return
	}
	c.buf32[0] = grow(c.buf32[0], L*8)
	c.buf32[1] = grow(c.buf32[1], L*8)
	scoreBlockGo(c.prof32, p.stride(), L, 8, rows, int32(pr.GapOpen), int32(pr.GapExtend), int32Small, c.buf32[0], c.buf32[1], c.best32[:])
}
