//go:build hmmgo_gpu_pending

// This file is the host side of the CUDA backend. It is kept out of the
// default build until the project's GPU runtime (gpu/cuda) lands; it only
// needs the small GPURuntime interface below, which an adapter over
// gpu/cuda provides (see docs/pairhmm.md).

package pairhmm

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"
)

// GPURuntime is what the CUDA backend needs from one device.
type GPURuntime interface {
	// Name describes the device, e.g. "NVIDIA H100 (sm_90)".
	Name() string
	// Compile builds CUDA C++ source with NVRTC options and returns a
	// module (cached by the runtime).
	Compile(src string, options []string) (GPUModule, error)
	// Alloc returns device memory.
	Alloc(bytes int) (GPUBuffer, error)
	// NewStream returns an asynchronous stream.
	NewStream() (GPUStream, error)
}

// GPUModule is a compiled module.
type GPUModule interface {
	Function(name string) (GPUFunction, error)
}

// GPUFunction is a kernel entry point.
type GPUFunction any

// GPUBuffer is device memory.
type GPUBuffer interface {
	Free()
}

// GPUStream queues copies and launches in order. Host slices passed to the
// copies must stay untouched until Synchronize returns.
type GPUStream interface {
	CopyToDevice(dst GPUBuffer, src []byte) error
	CopyFromDevice(dst []byte, src GPUBuffer) error
	// Launch runs f on grid x block threads; args are GPUBuffer (a device
	// pointer), int32, float32 or float64, in the kernel's order.
	Launch(f GPUFunction, grid, block int, args ...any) error
	Synchronize() error
}

// GPUOptions configures the CUDA backend.
type GPUOptions struct {
	// ChunkPairs bounds the pairs sent to a device at once, so that any
	// batch fits in device memory; chunks alternate between two streams
	// so that transfers overlap computation. 0 means 1<<20.
	ChunkPairs int
	// Threads for the CPU work (reads longer than the kernels take, and
	// the rescaled pass).
	Threads int
}

// GPU is the CUDA backend. It gives the same numbers as the CPU backend:
// the kernels perform the same operations in the same order, and the
// conversion to log10 (and the choice of the double pass) is shared code.
type GPU struct {
	devs []*gpuDevice
	opt  GPUOptions
	cpu  *CPU
}

type gpuDevice struct {
	rt      GPURuntime
	float   []GPUFunction // per gpuConfigs entry
	double  []GPUFunction
	blocks  []int
	tabs32  [2]GPUBuffer // ph2pr, matchToMatch
	tabs64  [2]GPUBuffer
	streams [2]GPUStream
}

// NewGPU prepares the kernels on every runtime (one per device to use).
func NewGPU(rts []GPURuntime, opt GPUOptions) (*GPU, error) {
	if len(rts) == 0 {
		return nil, fmt.Errorf("pairhmm: no GPU device")
	}
	if opt.ChunkPairs <= 0 {
		opt.ChunkPairs = 1 << 20
	}
	g := &GPU{opt: opt, cpu: NewCPU(CPUOptions{Threads: opt.Threads})}
	for _, rt := range rts {
		d, err := newGPUDevice(rt)
		if err != nil {
			return nil, err
		}
		g.devs = append(g.devs, d)
	}
	return g, nil
}

// blockThreads keeps the static shared memory of a block (the emission
// tables of its groups) under 48 KB in double precision.
func blockThreads(c gpuConfig) int {
	perGroup := 5 * c.group * c.rows * 8
	groups := max(1, min(128/c.group, 40*1024/perGroup))
	return max(32, groups*c.group)
}

func newGPUDevice(rt GPURuntime) (*gpuDevice, error) {
	d := &gpuDevice{rt: rt}
	for _, c := range gpuConfigs {
		block := blockThreads(c)
		opts := []string{"-DPH_GROUP=" + strconv.Itoa(c.group), "-DPH_ROWS=" + strconv.Itoa(c.rows), "-DPH_BLOCK=" + strconv.Itoa(block)}
		mod, err := rt.Compile(CUDASource, opts)
		if err != nil {
			return nil, fmt.Errorf("pairhmm: compiling the kernels for %s: %w", rt.Name(), err)
		}
		ff, err := mod.Function("pairhmm_float")
		if err != nil {
			return nil, err
		}
		fd, err := mod.Function("pairhmm_double")
		if err != nil {
			return nil, err
		}
		d.float, d.double, d.blocks = append(d.float, ff), append(d.double, fd), append(d.blocks, block)
	}
	t32, t64 := tables32(), tables64()
	for i := 0; i < 2; i++ {
		s, err := rt.NewStream()
		if err != nil {
			return nil, err
		}
		d.streams[i] = s
	}
	var err error
	if d.tabs32, err = d.upload(floatBytes(t32.ph2pr[:]), floatBytes(t32.fullMatchToMatch())); err != nil {
		return nil, err
	}
	if d.tabs64, err = d.upload(doubleBytes(t64.ph2pr[:]), doubleBytes(t64.fullMatchToMatch())); err != nil {
		return nil, err
	}
	return d, d.streams[0].Synchronize()
}

func (d *gpuDevice) upload(parts ...[]byte) ([2]GPUBuffer, error) {
	var out [2]GPUBuffer
	for i, p := range parts {
		b, err := d.rt.Alloc(len(p))
		if err != nil {
			return out, err
		}
		if err := d.streams[0].CopyToDevice(b, p); err != nil {
			return out, err
		}
		out[i] = b
	}
	return out, nil
}

// Name implements Backend.
func (g *GPU) Name() string {
	s := "cuda"
	for _, d := range g.devs {
		s += " [" + d.rt.Name() + "]"
	}
	return s
}

// gpuTask is one pair: group, read, haplotype.
type gpuTask struct{ g, r, h int32 }

// Compute implements Backend.
func (g *GPU) Compute(groups []Group, out [][]float64) error {
	// Reads longer than the largest kernel go to the CPU.
	var long []Group
	var longAt [][2]int // (group, read) of each long read
	var tasks []gpuTask
	for gi := range groups {
		for ri, r := range groups[gi].Reads {
			if len(r.Bases) > gpuMaxReadLen() {
				long = append(long, Group{Reads: groups[gi].Reads[ri : ri+1], Haplotypes: groups[gi].Haplotypes})
				longAt = append(longAt, [2]int{gi, ri})
				continue
			}
			for h := range groups[gi].Haplotypes {
				tasks = append(tasks, gpuTask{int32(gi), int32(ri), int32(h)})
			}
		}
	}
	var wg sync.WaitGroup
	var cpuErr error
	if len(long) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := make([][]float64, len(long))
			for i := range long {
				res[i] = make([]float64, long[i].Pairs())
			}
			if cpuErr = g.cpu.Compute(long, res); cpuErr != nil {
				return
			}
			for i, at := range longAt {
				nh := len(groups[at[0]].Haplotypes)
				copy(out[at[0]][at[1]*nh:(at[1]+1)*nh], res[i])
			}
		}()
	}
	// Chunks are dealt to the devices in turn; each device runs its own
	// chunks one after the other, two in flight.
	var chunks [][]gpuTask
	for i := 0; i < len(tasks); i += g.opt.ChunkPairs {
		chunks = append(chunks, tasks[i:min(i+g.opt.ChunkPairs, len(tasks))])
	}
	errs := make([]error, len(g.devs))
	for di, d := range g.devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine [][]gpuTask
			for ci := di; ci < len(chunks); ci += len(g.devs) {
				mine = append(mine, chunks[ci])
			}
			errs[di] = d.run(groups, mine, out)
		}()
	}
	wg.Wait()
	if cpuErr != nil {
		return cpuErr
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// packed is one chunk laid out for the kernels: reads and haplotypes
// deduplicated and concatenated, tasks sorted into length bins.
type packed struct {
	tasks    []gpuTask
	binStart []int // tasks of bin b are taskOrder[binStart[b]:binStart[b+1]]
	order    []int // position in tasks of each kernel task
	arrays   [][]byte
	rawFloat []byte
}

// The order of the kernels' array parameters.
const (
	aBase = iota
	aQual
	aIns
	aDel
	aGCP
	aReadOff
	aReadLen
	aHap
	aHapOff
	aHapLen
	aTaskRead
	aTaskHap
	nArrays
)

func pack(groups []Group, tasks []gpuTask) *packed {
	p := &packed{tasks: tasks, arrays: make([][]byte, nArrays)}
	readID := map[[2]int32]int32{}
	hapID := map[[2]int32]int32{}
	var roff, rlen, hoff, hlen []int32
	taskRead := make([]int32, 0, len(tasks))
	taskHap := make([]int32, 0, len(tasks))
	bins := make([][]int, len(gpuConfigs))
	for i, t := range tasks {
		r := &groups[t.g].Reads[t.r]
		bins[gpuBin(len(r.Bases))] = append(bins[gpuBin(len(r.Bases))], i)
	}
	p.binStart = append(p.binStart, 0)
	for _, b := range bins {
		for _, i := range b {
			t := tasks[i]
			rk, hk := [2]int32{t.g, t.r}, [2]int32{t.g, t.h}
			rid, ok := readID[rk]
			if !ok {
				r := &groups[t.g].Reads[t.r]
				rid = int32(len(roff))
				readID[rk] = rid
				roff = append(roff, int32(len(p.arrays[aBase])))
				rlen = append(rlen, int32(len(r.Bases)))
				codes, _ := encodeBases(nil, r.Bases)
				p.arrays[aBase] = append(p.arrays[aBase], codes...)
				p.arrays[aQual] = append(p.arrays[aQual], r.BaseQuals...)
				p.arrays[aIns] = append(p.arrays[aIns], r.InsQuals...)
				p.arrays[aDel] = append(p.arrays[aDel], r.DelQuals...)
				p.arrays[aGCP] = append(p.arrays[aGCP], r.GCPQuals...)
			}
			hid, ok := hapID[hk]
			if !ok {
				h := groups[t.g].Haplotypes[t.h]
				hid = int32(len(hoff))
				hapID[hk] = hid
				hoff = append(hoff, int32(len(p.arrays[aHap])))
				hlen = append(hlen, int32(len(h)))
				codes, _ := encodeBases(nil, h)
				p.arrays[aHap] = append(p.arrays[aHap], codes...)
			}
			taskRead = append(taskRead, rid)
			taskHap = append(taskHap, hid)
			p.order = append(p.order, i)
		}
		p.binStart = append(p.binStart, len(p.order))
	}
	p.arrays[aReadOff], p.arrays[aReadLen] = intBytes(roff), intBytes(rlen)
	p.arrays[aHapOff], p.arrays[aHapLen] = intBytes(hoff), intBytes(hlen)
	p.arrays[aTaskRead], p.arrays[aTaskHap] = intBytes(taskRead), intBytes(taskHap)
	return p
}

// inflight is a chunk queued on a stream.
type inflight struct {
	p       *packed
	s       GPUStream
	buffers []GPUBuffer
}

func (d *gpuDevice) run(groups []Group, chunks [][]gpuTask, out [][]float64) error {
	var prev *inflight
	for i, c := range chunks {
		cur, err := d.launchFloat(pack(groups, c), d.streams[i%2])
		if err != nil {
			return err
		}
		if prev != nil {
			if err := d.finish(groups, prev, out); err != nil {
				return err
			}
		}
		prev = cur
	}
	if prev != nil {
		return d.finish(groups, prev, out)
	}
	return nil
}

// launchFloat queues the uploads, the float kernels of every bin and the
// download of the raw sums.
func (d *gpuDevice) launchFloat(p *packed, s GPUStream) (*inflight, error) {
	f := &inflight{p: p, s: s}
	args := make([]any, 0, nArrays+1)
	for _, a := range p.arrays {
		b, err := d.rt.Alloc(max(len(a), 4))
		if err != nil {
			f.free()
			return nil, err
		}
		f.buffers = append(f.buffers, b)
		if len(a) > 0 {
			if err := s.CopyToDevice(b, a); err != nil {
				f.free()
				return nil, err
			}
		}
		args = append(args, b)
	}
	outBuf, err := d.rt.Alloc(4 * max(len(p.order), 1))
	if err != nil {
		f.free()
		return nil, err
	}
	f.buffers = append(f.buffers, outBuf)
	if err := d.launchBins(p, s, args, d.float, outBuf, float32(initial32), d.tabs32, 4); err != nil {
		f.free()
		return nil, err
	}
	p.rawFloat = make([]byte, 4*len(p.order))
	if err := s.CopyFromDevice(p.rawFloat, outBuf); err != nil {
		f.free()
		return nil, err
	}
	return f, nil
}

// launchBins launches one kernel per non-empty length bin. The kernels
// index tasks from 0, so each bin gets views of the task arrays and of the
// output starting at its first task: the runtime adapter must support
// offset buffers, which SubBuffer asks for.
func (d *gpuDevice) launchBins(p *packed, s GPUStream, args []any, fns []GPUFunction, outBuf GPUBuffer, initial any, tabs [2]GPUBuffer, size int) error {
	for b := range gpuConfigs {
		lo, hi := p.binStart[b], p.binStart[b+1]
		if lo == hi {
			continue
		}
		a := append([]any(nil), args[:aTaskRead]...)
		a = append(a, subBuffer(args[aTaskRead].(GPUBuffer), 4*lo), subBuffer(args[aTaskHap].(GPUBuffer), 4*lo), int32(hi-lo))
		a = append(a, tabs[0], tabs[1], initial, subBuffer(outBuf, size*lo))
		groupsPerBlock := d.blocks[b] / gpuConfigs[b].group
		grid := (hi - lo + groupsPerBlock - 1) / groupsPerBlock
		if err := s.Launch(fns[b], grid, d.blocks[b], a...); err != nil {
			return fmt.Errorf("pairhmm: kernel launch (%d x %d rows): %w", gpuConfigs[b].group, gpuConfigs[b].rows, err)
		}
	}
	return nil
}

// SubBuffer is implemented by runtimes whose buffers can be viewed from a
// byte offset (a device pointer plus offset).
type SubBuffer interface {
	Sub(offset int) GPUBuffer
}

func subBuffer(b GPUBuffer, off int) GPUBuffer {
	if off == 0 {
		return b
	}
	return b.(SubBuffer).Sub(off)
}

// finish waits for a chunk, runs the double kernels for the pairs GATK
// recomputes in double, and writes the log10 likelihoods.
func (d *gpuDevice) finish(groups []Group, f *inflight, out [][]float64) error {
	defer f.free()
	if err := f.s.Synchronize(); err != nil {
		return err
	}
	p := f.p
	var redo []int // kernel task positions that need the double pass
	for k, ti := range p.order {
		raw := math.Float32frombits(binary.LittleEndian.Uint32(p.rawFloat[4*k:]))
		if raw < minAccepted {
			redo = append(redo, k)
			continue
		}
		t := p.tasks[ti]
		out[t.g][int(t.r)*len(groups[t.g].Haplotypes)+int(t.h)] = fromFloat(raw)
	}
	if len(redo) == 0 {
		return nil
	}
	// The double pass reuses the chunk's read and haplotype arrays with a
	// task list of its own, binned like the float tasks.
	sub := make([]gpuTask, len(redo))
	for i, k := range redo {
		sub[i] = p.tasks[p.order[k]]
	}
	q := pack(groups, sub)
	g2 := &inflight{p: q, s: f.s}
	defer g2.free()
	args := make([]any, 0, nArrays)
	for _, a := range q.arrays {
		b, err := d.rt.Alloc(max(len(a), 4))
		if err != nil {
			return err
		}
		g2.buffers = append(g2.buffers, b)
		if len(a) > 0 {
			if err := f.s.CopyToDevice(b, a); err != nil {
				return err
			}
		}
		args = append(args, b)
	}
	outBuf, err := d.rt.Alloc(8 * len(q.order))
	if err != nil {
		return err
	}
	g2.buffers = append(g2.buffers, outBuf)
	if err := d.launchBins(q, f.s, args, d.double, outBuf, initial64, d.tabs64, 8); err != nil {
		return err
	}
	raw := make([]byte, 8*len(q.order))
	if err := f.s.CopyFromDevice(raw, outBuf); err != nil {
		return err
	}
	if err := f.s.Synchronize(); err != nil {
		return err
	}
	var s scratch
	for k, ti := range q.order {
		t := q.tasks[ti]
		r := &groups[t.g].Reads[t.r]
		hap, _ := encodeBases(nil, groups[t.g].Haplotypes[t.h])
		v := math.Float64frombits(binary.LittleEndian.Uint64(raw[8*k:]))
		var lk float64
		if v >= 0x1p-1022 {
			lk = math.Log10(v) - log10Initial64
		} else {
			var pr preparedRead
			pr.prepare(r)
			s.grow(len(hap) + 1)
			lk = forwardScaled(pr.doubleRows(), hap, s.m64, s.x64, s.y64)
		}
		out[t.g][int(t.r)*len(groups[t.g].Haplotypes)+int(t.h)] = lk
	}
	return nil
}

func (f *inflight) free() {
	for _, b := range f.buffers {
		b.Free()
	}
	f.buffers = nil
}

func intBytes(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func doubleBytes(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}
