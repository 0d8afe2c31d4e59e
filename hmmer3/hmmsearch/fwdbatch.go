package hmmsearch

import (
	"fmt"
	"io"
	"math"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The Forward filter of the queries in flight goes to the GPU together.
// One query sends ~1,000 Viterbi survivors, about a warp per SM: the
// device is latency-bound and every launch costs the time of its longest
// block. The batcher is a group commit: the first request launches at
// once, and the requests that arrive while a launch runs go together in
// the next one (one fwd_multi_kernel launch; fwdback.GPU.ForwardBatch).
// No timer is needed: the more queries are waiting on the device, the
// larger the batches. Within a batch, forwardCost splits the targets: the
// longest, whose latency alone on the GPU would exceed what they cost the
// cores, stay on the CPU workers, and the whole batch stays there when the
// device would not pay off at all.

// fwdRequest is one query's Forward filter request.
type fwdRequest struct {
	om   *oprofile.Profile
	want []bool
	// Filled by the batcher: scores of the targets with onGPU[i] (nil
	// scores: none; the pipeline computes the others on its workers).
	scores []float32
	onGPU  []bool
	err    error
	done   chan struct{}
}

// fwdLauncher computes a batch on the device: for request r, the scores
// of targets sel[r] (database numbers, ascending), indexed like sel[r].
// It is gpuSearch.launchForward, or a fake in tests. Lists, not arrays the
// size of the database: a request has ~500 targets of ~485,000, and the
// launch's host time is on the critical path of every query in the batch.
type fwdLauncher func(reqs []*fwdRequest, sel [][]int) ([][]float32, error)

// forwardBatcher collects requests and launches them in batches.
type forwardBatcher struct {
	launch  fwdLauncher
	cost    forwardCost
	lengths []int32 // target lengths, database order
	// force: "gpu", every target on the device; "bound", every target
	// the bound kernel can bound (fwdback.BoundMargin finite); "cpu" is
	// handled by the caller.
	force string
	trace io.Writer
	// runnable counts the goroutines waiting for a core (runnableGoroutines);
	// nil: the latency rule alone (tests).
	runnable func() int

	// launches is how many batches may be in flight at once (0: one); a
	// second one plans while the first's kernel runs, on the device's
	// other lane ($HMMGO_FWD_LAUNCHES, for benchmarks).
	launches int

	mu      sync.Mutex
	pending []*fwdRequest
	running int // loops launching
}

// forward submits a request and waits for its batch.
func (b *forwardBatcher) forward(om *oprofile.Profile, want []bool) ([]float32, []bool, error) {
	r := &fwdRequest{om: om, want: want, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, r)
	if b.running < max(1, b.launches) {
		b.running++
		go b.loop()
	}
	b.mu.Unlock()
	<-r.done
	return r.scores, r.onGPU, r.err
}

// loop launches what is pending until nothing is.
func (b *forwardBatcher) loop() {
	for {
		b.mu.Lock()
		batch := b.pending
		b.pending = nil
		if len(batch) == 0 {
			b.running--
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.run(batch)
	}
}

// run splits one batch between the device and the CPU and launches it.
func (b *forwardBatcher) run(batch []*fwdRequest) {
	defer func() {
		for _, r := range batch {
			close(r.done)
		}
	}()
	start := time.Now()
	var items []fwdItem
	for k, r := range batch {
		q := oprofile.NumVecF(r.om.M)
		for i, w := range r.want {
			if w && b.lengths[i] > 0 {
				items = append(items, fwdItem{req: k, target: i, L: int(b.lengths[i]), M: r.om.M, Q: q})
			}
		}
	}
	var sp fwdSplit
	runnable := -1
	switch {
	case b.force == "gpu":
		sp = b.cost.all(items)
	case b.force == "bound":
		sp = b.cost.all(items[:boundable(items)])
	case b.runnable != nil && b.cost.Busy > 0:
		if runnable = b.runnable(); runnable > 0 && float64(runnable) >= b.cost.Busy*float64(b.cost.Cores) {
			sp = b.cost.splitBusy(items)
			break
		}
		fallthrough
	default:
		sp = b.cost.split(items)
	}
	var wall time.Duration
	if sp.onGPU > 0 {
		sel := make([][]int, len(batch))
		for _, it := range items[:sp.onGPU] {
			sel[it.req] = append(sel[it.req], it.target)
		}
		for _, s := range sel {
			sort.Ints(s)
		}
		scores, err := b.launch(batch, sel)
		for k, r := range batch {
			if err != nil {
				r.err = err
				continue
			}
			r.scores, r.onGPU = make([]float32, len(r.want)), make([]bool, len(r.want))
			for j, i := range sel[k] {
				// NaN: not computed (no bound, or a device out of the
				// run), so the workers score it.
				if sc := scores[k][j]; !math.IsNaN(float64(sc)) {
					r.scores[i], r.onGPU[i] = sc, true
				}
			}
		}
		wall = time.Since(start)
	}
	if b.trace != nil {
		fmt.Fprintf(b.trace, "fwdbatch queries=%d targets=%d gpu=%d cpu=%d gpu_cells=%d cpu_cells=%d max_rowq=%d est_gpu_ms=%.2f est_cpu_ms=%.2f est_allcpu_ms=%.2f wall_ms=%.2f runnable=%d busy=%v\n",
			len(batch), len(items), sp.onGPU, len(items)-sp.onGPU, sp.gpuCells, sp.cpuCells, sp.maxRowQ,
			ms(sp.gpuTime), ms(sp.cpuTime), ms(sp.allCPU), ms(wall), runnable, sp.busy)
	}
}

// runnableGoroutines is the runtime's count of goroutines ready to run
// but waiting for a core: above zero for long, the cores are the
// bottleneck. Reading it takes the scheduler lock briefly, once a batch.
func runnableGoroutines() int {
	s := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -1
	}
	return int(s[0].Value.Uint64())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fwdItem is one target of one request in a batch.
type fwdItem struct {
	req, target int
	L, M, Q     int
}

func (it fwdItem) cells() int64 { return int64(it.L) * int64(it.M) }
func (it fwdItem) rowQ() int64  { return int64(it.L) * int64(it.Q) }

// forwardCost is the cost rule of a batch, with constants measured on the
// device host (bench/gpu/fwd_batch.sh prints the trace lines they come
// from; $HMMGO_GPU_FORWARD_COST overrides them without a rebuild):
//
//   - RowNs: device ns per row and Q vector of a target (Q = M/4 rounded
//     up) when the launch is latency-bound: a target of length L takes
//     L x Q x RowNs whatever else runs. Read it from trace lines with few
//     targets: kernel wall_ms x 1e6 / max_rowq.
//   - DeviceGCUPS: the device's Forward throughput when full (M x L cells
//     per ns). Read it from trace lines with many targets: gpu_cells /
//     wall_ms / 1e6.
//   - LaunchMs: the fixed cost of a launch (packing, copies, launch).
//     Read it from the wall_ms of the smallest launches.
//   - CoreGCUPS and Cores: the Forward rate of one CPU core (1e9 cells
//     per s) and the cores the workers have for it.
//
// A batch launched with the targets whose latency is at most C costs
// LaunchMs + max(C, their cells / DeviceGCUPS) on the device, then the
// others cost the cores max(their cells / (CoreGCUPS x Cores), the largest
// one's cells / CoreGCUPS). split picks the C that minimises the sum, and
// keeps everything on the CPU when that is cheaper still.
//
// The busy rule (off unless Busy > 0): when the cores are the bottleneck
// (Busy x Cores goroutines or more wait for a core as the batch is
// decided: the queries in flight have more CPU work than there are
// cores), the batch's latency matters less than the CPU time it takes
// from the other queries, and splitBusy minimises that instead: the
// cores' cells at CoreGCUPS, plus HostMs a launch and HostUs a target the
// device's share costs the host, among the cuts whose device latency is
// at most BusyMs.
type forwardCost struct {
	RowNs, DeviceGCUPS, LaunchMs, CoreGCUPS float64
	Cores                                   int
	Busy, BusyMs, HostMs, HostUs            float64
}

// defaultForwardCost is fitted to measurements on an H100 host
// (2026-11-27, docs/BENCHMARKS.md "A GPU Forward filter for ~1,000
// targets a query"), with the chunked walk (16 steps a chunk):
//   - RowNs 140: 85-186 ns per row and vector of the longest target in the
//     batches of hmmsearch runs with the filter forced onto the GPU
//     (kernel time / max_rowq; median 141 for the 24 CUDAMPF models, 109
//     for 200 small families), 87-137 ns in TestGPUBatchLatency (one query
//     of 1,500 targets, M = 150-2405);
//   - DeviceGCUPS 35: batches of 8 such queries (28-56 GCUPS);
//   - LaunchMs 40: plan, copies and assembly of a launch in those runs
//     (median 43 ms, 24-84 ms p10-p90, with 16 busy cores);
//   - CoreGCUPS 1.2: the quad AVX-512 Forward filter, 9.96e9 cells in ~8.5
//     CPU s of the 24-model run.
//
// With them the GPU is slower than 16 cores for every batch of the
// 24-model and 200-family runs (the estimate for the whole batch on the
// device exceeds the cores' for all 48 batches of the forced runs), as the
// measured kernel times say it is (e.g. 406 ms on the device for a batch
// the cores do in ~190 ms). These exact constants have not run end to end;
// the runs with RowNs 200, DeviceGCUPS 20, LaunchMs 10 kept every batch on
// the CPU.
//
// The busy rule is off (Busy 0): on one H100 with 16 cores it took 19-21
// CPU s off the 1,000-model run's 129-131 but made it 1.6-2.4 s slower
// (docs/fwdbatch.md): there the device, which the filters already keep
// busy, is the scarcer resource. Busy 0.5 (half as many goroutines
// waiting as there are cores) is what was measured. Its other constants: BusyMs 250, the
// longest kernels of ~20-query batches in the 1,000-model run with the
// filter forced onto the GPU (30-175 ms, docs/BENCHMARKS.md); HostMs 5 and
// HostUs 2, the plan and assembly of a launch once they no longer walk the
// whole database per job (a target on the CPU costs ~70 us of a core at
// L = 400, M = 200, so these only matter for tiny batches).
func defaultForwardCost(cores int) forwardCost {
	cores = max(1, cores)
	return forwardCost{RowNs: 140, DeviceGCUPS: 35, LaunchMs: 40, CoreGCUPS: 1.2, Cores: cores,
		Busy: 0, BusyMs: 250, HostMs: 5, HostUs: 2}
}

// parseForwardCost reads "rowns=1000,gcups=40,launchms=2,coregcups=0.5,cores=16"
// (any subset) over c.
func parseForwardCost(s string, c forwardCost) (forwardCost, error) {
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(x > 0) {
			return c, fmt.Errorf("HMMGO_GPU_FORWARD_COST: %q is not name=positive number", f)
		}
		switch k {
		case "rowns":
			c.RowNs = x
		case "gcups":
			c.DeviceGCUPS = x
		case "launchms":
			c.LaunchMs = x
		case "coregcups":
			c.CoreGCUPS = x
		case "cores":
			c.Cores = int(x)
		case "busy":
			c.Busy = x
		case "busyms":
			c.BusyMs = x
		case "hostms":
			c.HostMs = x
		case "hostus":
			c.HostUs = x
		default:
			return c, fmt.Errorf("HMMGO_GPU_FORWARD_COST: unknown name %q (rowns, gcups, launchms, coregcups, cores, busy, busyms, hostms, hostus)", k)
		}
	}
	return c, nil
}

// fwdSplit is a decision: items[:onGPU] (split sorts them) go to the
// device, with the estimates behind it.
type fwdSplit struct {
	onGPU                    int
	busy                     bool // decided by splitBusy
	gpuCells, cpuCells       int64
	maxRowQ                  int64
	gpuTime, cpuTime, allCPU time.Duration
}

func (c forwardCost) cpu(cells, largest int64) time.Duration {
	rate := c.CoreGCUPS // cells per ns
	ns := max(float64(cells)/(rate*float64(c.Cores)), float64(largest)/rate)
	return time.Duration(ns)
}

func (c forwardCost) gpu(cells, maxRowQ int64) time.Duration {
	ns := c.LaunchMs*1e6 + max(float64(maxRowQ)*c.RowNs, float64(cells)/c.DeviceGCUPS)
	return time.Duration(ns)
}

// fwdCuts are the items sorted by device latency (shortest first) with
// the suffix sums of the CPU's share: cells and the largest target's cells
// of items[k:].
type fwdCuts struct {
	items            []fwdItem
	sufCells, sufMax []int64
}

func newFwdCuts(items []fwdItem) fwdCuts {
	sort.SliceStable(items, func(a, b int) bool { return items[a].rowQ() < items[b].rowQ() })
	n := len(items)
	cs := fwdCuts{items, make([]int64, n+1), make([]int64, n+1)}
	for k := n - 1; k >= 0; k-- {
		cs.sufCells[k] = cs.sufCells[k+1] + items[k].cells()
		cs.sufMax[k] = max(cs.sufMax[k+1], items[k].cells())
	}
	return cs
}

// each calls visit for every cut k >= 1 (items[:k] on the device, cells
// their cells) in order, skipping cuts between equal latencies (they go to
// the same side), until visit returns false.
func (cs fwdCuts) each(visit func(k int, cells int64) bool) {
	var cells int64
	for k := 1; k <= len(cs.items); k++ {
		cells += cs.items[k-1].cells()
		if k < len(cs.items) && cs.items[k].rowQ() == cs.items[k-1].rowQ() {
			continue
		}
		if !visit(k, cells) {
			return
		}
	}
}

// split sorts items by device latency (shortest first) and returns the
// cheapest split.
func (c forwardCost) split(items []fwdItem) fwdSplit {
	cs := newFwdCuts(items)
	allCPU := c.cpu(cs.sufCells[0], cs.sufMax[0])
	best := fwdSplit{cpuCells: cs.sufCells[0], cpuTime: allCPU, allCPU: allCPU}
	bestCost := allCPU
	cs.each(func(k int, cells int64) bool {
		g := c.gpu(cells, items[k-1].rowQ())
		cp := c.cpu(cs.sufCells[k], cs.sufMax[k])
		if g+cp < bestCost {
			bestCost = g + cp
			best = fwdSplit{onGPU: k, gpuCells: cells, cpuCells: cs.sufCells[k], maxRowQ: items[k-1].rowQ(), gpuTime: g, cpuTime: cp, allCPU: allCPU}
		}
		return true
	})
	return best
}

// splitBusy sorts items as split does and returns the cut that costs the
// host the least CPU time (the cores' share at CoreGCUPS a core, the
// device's share HostMs + HostUs a target) among those whose device
// latency is at most BusyMs; all on the CPU when no cut is cheaper.
func (c forwardCost) splitBusy(items []fwdItem) fwdSplit {
	cs := newFwdCuts(items)
	total := cs.sufCells[0]
	cpuNs := func(cells int64) float64 { return float64(cells) / c.CoreGCUPS }
	allCPU := c.cpu(total, cs.sufMax[0])
	best := fwdSplit{cpuCells: total, cpuTime: allCPU, allCPU: allCPU, busy: true}
	bestCost := cpuNs(total)
	limit := time.Duration(c.BusyMs * 1e6)
	cs.each(func(k int, cells int64) bool {
		g := c.gpu(cells, items[k-1].rowQ())
		if g > limit {
			return false // later cuts are longer still
		}
		if cost := c.HostMs*1e6 + c.HostUs*1e3*float64(k) + cpuNs(cs.sufCells[k]); cost < bestCost {
			bestCost = cost
			best = fwdSplit{onGPU: k, gpuCells: cells, cpuCells: cs.sufCells[k], maxRowQ: items[k-1].rowQ(), gpuTime: g,
				cpuTime: c.cpu(cs.sufCells[k], cs.sufMax[k]), allCPU: allCPU, busy: true}
		}
		return true
	})
	return best
}

// boundable moves the items whose score the bound kernel can bound to
// the front and returns how many there are. The others (huge
// L x M, where no bound is usable) stay with the workers.
func boundable(items []fwdItem) int {
	k := 0
	for i, it := range items {
		if !math.IsInf(float64(fwdback.BoundMargin(it.L, it.M, 0)), 1) {
			items[k], items[i] = items[i], items[k]
			k++
		}
	}
	return k
}

// all puts every item on the device ($HMMGO_GPU_FORWARD=gpu or filter).
func (c forwardCost) all(items []fwdItem) fwdSplit {
	s := fwdSplit{onGPU: len(items)}
	var largest int64
	for _, it := range items {
		s.gpuCells += it.cells()
		s.maxRowQ = max(s.maxRowQ, it.rowQ())
		largest = max(largest, it.cells())
	}
	s.gpuTime = c.gpu(s.gpuCells, s.maxRowQ)
	s.allCPU = c.cpu(s.gpuCells, largest)
	return s
}
