package pairhmm

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// GPUOptions configures the CUDA backend.
type GPUOptions struct {
	// ChunkPairs and ChunkBytes bound one chunk: the pairs, and the read
	// and haplotype bytes, sent to a device at once. Any batch is streamed
	// through two such chunks per device (one computing while the next is
	// copied in and the previous finished on the host), so batches larger
	// than device memory work. 0 means 1<<21 pairs and 64 MiB.
	ChunkPairs int
	ChunkBytes int
	// Threads for the host work (finishing results, reads longer than the
	// kernels take); 0 means all cores.
	Threads int
	// Kernel is the CPU kernel for reads longer than the GPU kernels take
	// (see CPUOptions.Kernel).
	Kernel string

	// Variant names the kernel variant (gpuVariants: rows, vec, vec2, tuned,
	// tuned2, tuned4, tuned4g); "" means $HMMGO_PAIRHMM_KERNEL, else the
	// default (defaultVariant, defaultFusedVariant). Every variant
	// gives the same results; they exist to be benchmarked.
	Variant string
	// Arith is the arithmetic of the kernels and of the CPU work beside
	// them (CPUOptions.Arith): ArithFused compiles pairhmm.cu with
	// PH_FUSED=1.
	Arith Arith

	configs []gpuConfig // length bins; nil means the variant's binTable (tests and benchmarks vary them)
}

// GPUStats counts what the backend did since it was created.
type GPUStats struct {
	Pairs, Cells int64 // scored on the GPUs (float pass)
	DoublePairs  int64 // recomputed in double precision on the GPUs
	ScaledPairs  int64 // below the double range: rescaled pass on the CPU
	CPUPairs     int64 // reads longer than the kernels take, on the CPU
	Chunks       int64
	BytesIn      int64         // host-to-device copies
	KernelTime   time.Duration // float kernels, per chunk from event to event, summed
	// ModuleTime is what setting up the kernels took in NewGPU (NVRTC
	// compilation or the kernel cache, and loading the modules), summed
	// over devices: start-up cost, measured so that it can be reduced.
	ModuleTime time.Duration
	// Host time spent in Compute, summed over devices: packing chunks
	// (AllocTime of it growing the pinned and device buffers), finishing
	// them (waiting for the device, writing results, the double pass:
	// DoubleTime of it), and scoring reads too long for the kernels on
	// the CPU (CPUTime, beside the GPU work).
	PackTime, AllocTime, FinishTime, DoubleTime, CPUTime time.Duration
}

// GPU is the CUDA backend. It gives the same numbers as the CPU backend:
// the kernels perform the same operations in the same order on the same
// quality tables, and the choice of the double pass and the conversion to
// log10 are the CPU's own code.
type GPU struct {
	devs    []*gpuDevice
	opt     GPUOptions
	configs []gpuConfig
	variant gpuVariant
	maxLen  int
	cpu     *CPU
	threads int

	mu    sync.Mutex
	stats GPUStats
	setup []SetupStep
}

type gpuDevice struct {
	rt             gpuRuntime
	float, double  []gpuFunction // per configuration
	tabs32, tabs64 [2]gpuBuffer  // ph2pr, matchToMatch
	slots          [2]*gpuSlot
	moduleTime     time.Duration
	setup          []SetupStep
}

func newGPU(rts []gpuRuntime, opt GPUOptions) (*GPU, error) {
	if len(rts) == 0 {
		return nil, errors.New("pairhmm: no GPU device")
	}
	prepareGPUTables()
	if opt.ChunkPairs <= 0 {
		opt.ChunkPairs = 1 << 21
	}
	if opt.ChunkBytes <= 0 {
		opt.ChunkBytes = 64 << 20
	}
	g := &GPU{opt: opt, configs: opt.configs, threads: defaultThreads(opt.Threads)}
	name := opt.Variant
	if name == "" {
		name = os.Getenv("HMMGO_PAIRHMM_KERNEL")
	}
	var err error
	if g.variant, err = lookupVariant(name, opt.Arith); err != nil {
		return nil, err
	}
	g.variant.fused = opt.Arith == ArithFused
	if g.configs == nil {
		g.configs = g.variant.binTable()
	}
	g.maxLen = g.configs[len(g.configs)-1].maxLen()
	g.cpu = NewCPU(CPUOptions{Threads: opt.Threads, Kernel: opt.Kernel, Arith: opt.Arith})
	if g.cpu.err != nil {
		return nil, g.cpu.err
	}
	for _, rt := range rts {
		d, err := newGPUDevice(rt, g.configs, g.variant)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.devs = append(g.devs, d)
		g.stats.ModuleTime += d.moduleTime
		for _, st := range d.setup {
			g.addSetup(st.Name, st.Time)
		}
	}
	return g, nil
}

func newGPUDevice(rt gpuRuntime, configs []gpuConfig, v gpuVariant) (*gpuDevice, error) {
	d := &gpuDevice{rt: rt, float: make([]gpuFunction, len(configs)), double: make([]gpuFunction, len(configs))}
	// One NVRTC compilation per length bin; they are independent, so they
	// run side by side (only the first run on a machine compiles: the
	// images are cached).
	errs := make([]error, len(configs))
	t0 := time.Now()
	var wg sync.WaitGroup
	for i, c := range configs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := kernelOptions(c, v)
			if bad := unsafeKernelOption(opts); bad != "" {
				errs[i] = fmt.Errorf("pairhmm: refusing NVRTC option %s", bad)
				return
			}
			mod, err := rt.Build("pairhmm_"+c.String()+".cu", CUDASource, opts)
			if err != nil {
				errs[i] = fmt.Errorf("pairhmm: compiling the %s kernels for %s: %w", c, rt.Name(), err)
				return
			}
			if d.float[i], err = mod.Function("pairhmm_float"); err != nil {
				errs[i] = err
				return
			}
			d.double[i], errs[i] = mod.Function("pairhmm_double")
		}()
	}
	wg.Wait()
	d.moduleTime = time.Since(t0)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	step := func(name string) {
		now := time.Now()
		d.setup = append(d.setup, SetupStep{name, now.Sub(t0)})
		t0 = now
	}
	step(fmt.Sprintf("kernel modules (%d, cache or NVRTC, load)", len(configs)))
	for i := range d.slots {
		s := &gpuSlot{}
		d.slots[i] = s
		var err error
		if s.s, err = rt.NewStream(); err != nil {
			d.close()
			return nil, err
		}
		if s.start, err = rt.NewEvent(); err != nil {
			d.close()
			return nil, err
		}
		if s.end, err = rt.NewEvent(); err != nil {
			d.close()
			return nil, err
		}
	}
	step("streams and events")
	tabs := waitGPUTables()
	step("quality tables (host, waited for)")
	var err error
	if d.tabs32, err = d.upload(tabs.ph32, tabs.mm32); err == nil {
		d.tabs64, err = d.upload(tabs.ph64, tabs.mm64)
	}
	if err == nil {
		err = d.slots[0].s.Synchronize()
	}
	if err != nil {
		d.close()
		return nil, err
	}
	step("quality tables upload")
	return d, nil
}

// upload copies the tables to the device (from Go memory: the driver
// stages it before the copy call returns).
func (d *gpuDevice) upload(parts ...[]byte) ([2]gpuBuffer, error) {
	var out [2]gpuBuffer
	for i, p := range parts {
		b, err := d.rt.Alloc(len(p))
		if err != nil {
			return out, err
		}
		out[i] = b
		if err := d.slots[0].s.CopyHtoD(b, 0, p); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Close releases the devices' memory, streams and events.
func (g *GPU) Close() error {
	var errs []error
	for _, d := range g.devs {
		errs = append(errs, d.close())
	}
	g.devs = nil
	return errors.Join(errs...)
}

func (d *gpuDevice) close() error {
	var errs []error
	free := func(b gpuBuffer) {
		if b != nil {
			errs = append(errs, b.Free())
		}
	}
	for _, s := range d.slots {
		if s == nil {
			continue
		}
		if s.s != nil {
			errs = append(errs, s.s.Synchronize(), s.s.Destroy())
		}
		for _, e := range []gpuEvent{s.start, s.end} {
			if e != nil {
				errs = append(errs, e.Destroy())
			}
		}
		for _, h := range []hostMemory{s.host, s.redoHost} {
			if h != nil {
				errs = append(errs, h.Free())
			}
		}
		free(s.dev)
		free(s.redoDev)
	}
	for _, b := range append(d.tabs32[:], d.tabs64[:]...) {
		free(b)
	}
	return errors.Join(errs...)
}

// Name implements Backend.
func (g *GPU) Name() string {
	names := make([]string, len(g.devs))
	for i, d := range g.devs {
		names[i] = d.rt.Name()
	}
	return "cuda [" + strings.Join(names, "; ") + "], kernels " + g.variant.label()
}

// Stats returns the counters accumulated since the backend was created.
func (g *GPU) Stats() GPUStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

func (g *GPU) addStats(s GPUStats) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stats.Pairs += s.Pairs
	g.stats.Cells += s.Cells
	g.stats.DoublePairs += s.DoublePairs
	g.stats.ScaledPairs += s.ScaledPairs
	g.stats.CPUPairs += s.CPUPairs
	g.stats.Chunks += s.Chunks
	g.stats.BytesIn += s.BytesIn
	g.stats.KernelTime += s.KernelTime
	g.stats.PackTime += s.PackTime
	g.stats.AllocTime += s.AllocTime
	g.stats.FinishTime += s.FinishTime
	g.stats.DoubleTime += s.DoubleTime
	g.stats.CPUTime += s.CPUTime
}

// unit is a piece of a group for one chunk: some of its reads (all short
// enough for the kernels) against a range of its haplotypes.
type unit struct {
	g      int32
	reads  []int32
	h0, h1 int
}

type chunk struct {
	units        []unit
	pairs, bytes int
}

// Compute implements Backend.
func (g *GPU) Compute(groups []Group, out [][]float64) error {
	if len(g.devs) == 0 {
		return errors.New("pairhmm: the GPU backend is closed")
	}
	// Reads longer than the largest kernel go to the CPU, concurrently,
	// each group's together (so that the CPU kernels fill their lanes).
	gpuReads := make([][]int32, len(groups))
	var long []Group
	var longOf []int     // the group each of long's came from
	var longAt [][]int32 // and the reads' numbers there
	for gi := range groups {
		var ids []int32
		for ri, r := range groups[gi].Reads {
			if len(r.Bases) > g.maxLen {
				ids = append(ids, int32(ri))
				continue
			}
			gpuReads[gi] = append(gpuReads[gi], int32(ri))
		}
		if len(ids) == 0 {
			continue
		}
		reads := make([]Read, len(ids))
		for i, ri := range ids {
			reads[i] = groups[gi].Reads[ri]
		}
		long = append(long, Group{Reads: reads, Haplotypes: groups[gi].Haplotypes})
		longOf = append(longOf, gi)
		longAt = append(longAt, ids)
	}
	var wg sync.WaitGroup
	var cpuErr error
	if len(long) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			res := make([][]float64, len(long))
			var pairs int64
			for i := range long {
				res[i] = make([]float64, long[i].Pairs())
				pairs += int64(len(res[i]))
			}
			if cpuErr = g.cpu.Compute(long, res); cpuErr != nil {
				return
			}
			for i, gi := range longOf {
				nh := len(groups[gi].Haplotypes)
				for j, ri := range longAt[i] {
					copy(out[gi][int(ri)*nh:(int(ri)+1)*nh], res[i][j*nh:(j+1)*nh])
				}
			}
			g.addStats(GPUStats{CPUPairs: pairs, CPUTime: time.Since(t0)})
		}()
	}
	// Chunks go to whichever device asks first; each device keeps two in
	// flight.
	chunks := make(chan chunk, len(g.devs))
	var failed atomic.Bool
	go func() {
		defer close(chunks)
		g.makeChunks(groups, gpuReads, func(c chunk) bool {
			chunks <- c
			return !failed.Load()
		})
	}()
	errs := make([]error, len(g.devs))
	for di, d := range g.devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[di] = d.run(g, groups, chunks, out); errs[di] != nil {
				failed.Store(true)
				for range chunks { // let the producer finish
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(append(errs, cpuErr)...)
}

// makeChunks cuts the work into chunks of at most ChunkPairs pairs and
// about ChunkBytes bytes, in input order; emit returns false to stop.
func (g *GPU) makeChunks(groups []Group, gpuReads [][]int32, emit func(chunk) bool) {
	maxPairs, maxBytes := g.opt.ChunkPairs, g.opt.ChunkBytes
	var cur chunk
	add := func(u unit, bytes int) bool {
		pairs := len(u.reads) * (u.h1 - u.h0)
		if len(cur.units) > 0 && (cur.pairs+pairs > maxPairs || cur.bytes+bytes > maxBytes) {
			if !emit(cur) {
				return false
			}
			cur = chunk{}
		}
		cur.units = append(cur.units, u)
		cur.pairs += pairs
		cur.bytes += bytes
		return true
	}
	for gi := range groups {
		rs, haps := gpuReads[gi], groups[gi].Haplotypes
		H := len(haps)
		if len(rs) == 0 || H == 0 {
			continue
		}
		hapBytes := 0
		for _, h := range haps {
			hapBytes += len(h) + 8
		}
		readBytes := func(ids []int32) int {
			n := 0
			for _, r := range ids {
				n += 5*len(groups[gi].Reads[r].Bases) + 8
			}
			return n
		}
		if H > maxPairs {
			// More haplotypes than a chunk takes: one read at a time
			// against ranges of them.
			for i := range rs {
				for h0 := 0; h0 < H; h0 += maxPairs {
					h1 := min(h0+maxPairs, H)
					u := unit{g: int32(gi), reads: rs[i : i+1], h0: h0, h1: h1}
					if !add(u, readBytes(u.reads)+hapBytes*(h1-h0)/H) {
						return
					}
				}
			}
			continue
		}
		per := maxPairs / H
		for r0 := 0; r0 < len(rs); r0 += per {
			u := unit{g: int32(gi), reads: rs[r0:min(r0+per, len(rs))], h0: 0, h1: H}
			if !add(u, readBytes(u.reads)+hapBytes) {
				return
			}
		}
	}
	if len(cur.units) > 0 {
		emit(cur)
	}
}

// run processes chunks until the channel closes: chunk i is packed and
// queued on one stream while chunk i-1 computes on the other; then the
// host finishes chunk i-1.
func (d *gpuDevice) run(g *GPU, groups []Group, chunks <-chan chunk, out [][]float64) error {
	var prev *gpuSlot
	i := 0
	for c := range chunks {
		s := d.slots[i%2]
		i++
		if err := d.pack(g, s, groups, c); err != nil {
			d.abandon(prev)
			return err
		}
		if err := d.launchFloat(g, s, prev); err != nil {
			d.abandon(prev, s)
			return err
		}
		if prev != nil {
			if err := d.finish(g, prev, groups, out); err != nil {
				d.abandon(s)
				return err
			}
		}
		prev = s
	}
	if prev != nil {
		return d.finish(g, prev, groups, out)
	}
	return nil
}

// abandon waits for slots whose work is no longer wanted (after an error)
// so that their buffers are idle when the backend is used again.
func (d *gpuDevice) abandon(slots ...*gpuSlot) {
	for _, s := range slots {
		if s != nil {
			s.s.Synchronize()
		}
	}
}
