package pairhmm

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// CPUOptions configures the CPU backend.
type CPUOptions struct {
	Threads int // 0: all cores
	// Kernel selects the float pass: "" or "auto" (AVX2 when the CPU has
	// it), "go" (portable Go), "avx2" (fails on CPUs without AVX2). All
	// give identical results.
	Kernel string
}

// CPU is the multi-threaded CPU backend.
type CPU struct {
	threads int
	lanes   laneKernel
	err     error
}

// laneKernel runs the float pass of up to laneWidth reads against one
// haplotype at once, each read in its own lane; run2 (optional) runs two
// such batches together.
type laneKernel struct {
	name string
	run  func(b *laneBatch, hap []uint8, out *[laneWidth]float32)
	run2 func(a, b *laneBatch, hap []uint8, outA, outB *[laneWidth]float32)
}

// NewCPU returns the CPU backend.
func NewCPU(opt CPUOptions) *CPU {
	c := &CPU{threads: defaultThreads(opt.Threads)}
	switch opt.Kernel {
	case "", "auto":
		c.lanes = bestLaneKernel()
	case "go":
		c.lanes = goLaneKernel
	case "avx2":
		if !haveAVX2 {
			c.err = fmt.Errorf("pairhmm: the avx2 kernel needs a CPU with AVX2")
		}
		c.lanes = avx2LaneKernel
	default:
		c.err = fmt.Errorf("pairhmm: unknown CPU kernel %q (want auto, go or avx2)", opt.Kernel)
	}
	return c
}

// Name implements Backend.
func (c *CPU) Name() string { return fmt.Sprintf("cpu/%s (%d threads)", c.lanes.name, c.threads) }

// job is up to two lane batches of reads of one group (similar lengths,
// so that lanes waste little) to be scored against all haplotypes of the
// group.
type job struct {
	group int
	reads []int
}

// Compute implements Backend.
func (c *CPU) Compute(groups []Group, out [][]float64) error {
	if c.err != nil {
		return c.err
	}
	hapCodes := make([][][]uint8, len(groups))
	var jobs []job
	for g := range groups {
		hapCodes[g] = make([][]uint8, len(groups[g].Haplotypes))
		for h, hap := range groups[g].Haplotypes {
			hapCodes[g][h], _ = encodeBases(nil, hap)
		}
		// Batch reads of similar length into lanes.
		order := make([]int, len(groups[g].Reads))
		for i := range order {
			order[i] = i
		}
		rs := groups[g].Reads
		sort.SliceStable(order, func(a, b int) bool { return len(rs[order[a]].Bases) > len(rs[order[b]].Bases) })
		for i := 0; i < len(order); i += 2 * laneWidth {
			jobs = append(jobs, job{g, order[i:min(i+2*laneWidth, len(order))]})
		}
	}
	// Longest batches first, so the tail of the run is short batches.
	sort.SliceStable(jobs, func(a, b int) bool {
		return jobCells(groups, jobs[a]) > jobCells(groups, jobs[b])
	})
	var next atomic.Int64
	var wg sync.WaitGroup
	for t := 0; t < min(c.threads, len(jobs)); t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				w.run(c.lanes, &groups[j.group], j.reads, hapCodes[j.group], out[j.group])
			}
		}()
	}
	wg.Wait()
	return nil
}

func jobCells(groups []Group, j job) int64 {
	var maxLen int64
	for _, r := range j.reads {
		maxLen = max(maxLen, int64(len(groups[j.group].Reads[r].Bases)))
	}
	return maxLen * int64(len(groups[j.group].Haplotypes))
}

// worker holds one goroutine's scratch memory.
type worker struct {
	prepared [2 * laneWidth]preparedRead
	batch    [2]laneBatch
	s        scratch
}

func newWorker() *worker { return &worker{} }

func (w *worker) run(k laneKernel, g *Group, reads []int, haps [][]uint8, out []float64) {
	n := len(reads)
	for l, r := range reads {
		w.prepared[l].prepare(&g.Reads[r])
	}
	na := min(n, laneWidth)
	w.batch[0].load(w.prepared[:na])
	w.batch[1].load(w.prepared[na:n])
	nh := len(haps)
	var raw [2 * laneWidth]float32
	for h, hap := range haps {
		a, b := (*[laneWidth]float32)(raw[:laneWidth]), (*[laneWidth]float32)(raw[laneWidth:])
		switch {
		case n > laneWidth && k.run2 != nil:
			k.run2(&w.batch[0], &w.batch[1], hap, a, b)
		case n > laneWidth:
			k.run(&w.batch[0], hap, a)
			k.run(&w.batch[1], hap, b)
		default:
			k.run(&w.batch[0], hap, a)
		}
		for l, r := range reads {
			out[r*nh+h] = w.s.finish(raw[l], &w.prepared[l], hap)
		}
	}
}
