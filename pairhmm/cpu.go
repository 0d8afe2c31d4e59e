package pairhmm

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// CPUOptions configures the CPU backend.
type CPUOptions struct {
	Threads int // 0: all cores
	// Kernel selects the float pass: "" or "auto" (the widest the CPU
	// has, AVX-512 then AVX2, capped by HMMGO_KERNEL: internal/simd),
	// "go" (portable Go), "avx2" or "avx512" (an error on CPUs without
	// them; not capped by HMMGO_KERNEL). All give identical results.
	Kernel string
	// Arith is the arithmetic (ArithGKL, the default, or ArithFused), with
	// the same kernels in both.
	Arith Arith
}

// CPU is the multi-threaded CPU backend.
type CPU struct {
	threads int
	arith   Arith
	lanes   laneKernel
	err     error
}

// NewCPU returns the CPU backend.
func NewCPU(opt CPUOptions) *CPU {
	c := &CPU{threads: defaultThreads(opt.Threads), arith: opt.Arith}
	set := gklLaneKernels
	switch opt.Arith {
	case ArithGKL:
	case ArithFused:
		set = fusedLaneKernels
	default:
		c.err = fmt.Errorf("pairhmm: unknown arithmetic %v", opt.Arith)
		return c
	}
	switch opt.Kernel {
	case "", "auto":
		c.lanes = set.best(simd.Selected)
	default:
		k, ok, err := set.byName(opt.Kernel)
		switch {
		case !ok:
			c.err = fmt.Errorf("pairhmm: unknown CPU kernel %q (want auto, go, avx2 or avx512)", opt.Kernel)
		case err != nil:
			c.err = err
			k.name = opt.Kernel // for Name
		}
		c.lanes = k
	}
	return c
}

// Name implements Backend.
func (c *CPU) Name() string {
	if c.arith != ArithGKL {
		return fmt.Sprintf("cpu/%s, %s arithmetic (%d threads)", c.lanes.name, c.arith, c.threads)
	}
	return fmt.Sprintf("cpu/%s (%d threads)", c.lanes.name, c.threads)
}

// job is one lane batch of reads of one group (similar lengths, so that
// lanes waste little) to be scored against haplotypes [hapLo, hapHi) of
// the group; cells is its cost in lane cells.
type job struct {
	group        int
	reads        []int
	hapLo, hapHi int
	cells        int64
}

// jobsPerThread is how many jobs of about equal size each thread should
// get at least: a batch whose haplotypes are more work than 1/(threads x
// jobsPerThread) of the whole is split by haplotype, so that no single
// job sets the run time (16-read AVX-512 batches made the largest 1m job
// 8% of the work, more than a sixteenth).
const jobsPerThread = 4

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
		for i := 0; i < len(order); i += c.lanes.width {
			reads := order[i:min(i+c.lanes.width, len(order))]
			jobs = append(jobs, job{g, reads, 0, len(hapCodes[g]), jobCells(groups, g, reads, 0, len(hapCodes[g]))})
		}
	}
	jobs = splitJobs(groups, jobs, c.threads)
	// Longest jobs first, so the tail of the run is short jobs.
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].cells > jobs[b].cells })
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
				w.run(c.lanes, &groups[j.group], j.reads, hapCodes[j.group], j.hapLo, j.hapHi, out[j.group])
			}
		}()
	}
	wg.Wait()
	return nil
}

// jobCells is the lane cells of reads against haplotypes [lo, hi) of
// group g: the longest read sets the rows of the whole batch.
func jobCells(groups []Group, g int, reads []int, lo, hi int) int64 {
	var maxLen, hapLen int64
	for _, r := range reads {
		maxLen = max(maxLen, int64(len(groups[g].Reads[r].Bases)))
	}
	for _, h := range groups[g].Haplotypes[lo:hi] {
		hapLen += int64(len(h))
	}
	return maxLen * hapLen
}

// splitJobs splits every job above the size limit into runs of
// haplotypes of about that size (a job keeps at least one haplotype).
func splitJobs(groups []Group, jobs []job, threads int) []job {
	if threads <= 1 {
		return jobs
	}
	var total int64
	for _, j := range jobs {
		total += j.cells
	}
	limit := max(1, total/int64(threads*jobsPerThread))
	var out []job
	for _, j := range jobs {
		if j.cells <= limit || j.hapHi-j.hapLo < 2 {
			out = append(out, j)
			continue
		}
		lo := j.hapLo
		for h := j.hapLo; h < j.hapHi; h++ {
			if h+1 == j.hapHi || jobCells(groups, j.group, j.reads, lo, h+2) > limit {
				out = append(out, job{j.group, j.reads, lo, h + 1, jobCells(groups, j.group, j.reads, lo, h+1)})
				lo = h + 1
			}
		}
	}
	return out
}

// worker holds one goroutine's scratch memory.
type worker struct {
	prepared [maxLaneWidth]preparedRead
	batch    laneBatch
	s        scratch
}

func newWorker() *worker { return &worker{} }

func (w *worker) run(k laneKernel, g *Group, reads []int, haps [][]uint8, hapLo, hapHi int, out []float64) {
	for l, r := range reads {
		w.prepared[l].prepare(&g.Reads[r])
	}
	w.batch.load(w.prepared[:len(reads)], k.width)
	w.s.fused = k.fused
	nh := len(haps)
	var raw [maxLaneWidth]float32
	for h := hapLo; h < hapHi; h++ {
		hap := haps[h]
		k.run(&k, &w.batch, hap, raw[:k.width])
		for l, r := range reads {
			out[r*nh+h] = w.s.finish(raw[l], &w.prepared[l], hap)
		}
	}
}
