package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/papara/core"
)

// Scorer scores blocks of the shared queue on one GPU (core.Scorer). It
// gives exactly the CPU scorers' results: the same scores for every (read,
// branch) pair, best branch per read with ties to the lowest index.
type Scorer struct {
	dev device

	mu      sync.Mutex
	kernels map[config]kernel
	data    *jobData
	bufs    jobBuffers
	work    buffer // per call: units, then read order
	cpu     core.CPUScorer
	stats   Stats
	// pacing: the device's speed and the size of a block, from the calls
	// so far
	rate, unitCells float64
}

// jobBuffers are the device copies of a job's jobData.
type jobBuffers struct {
	seqs, off, lens, kinds, best buffer
	cols                         [4]buffer
}

// Stats counts what a scorer did since it was created.
type Stats struct {
	Calls, Blocks, Launches int
	Cells                   int64         // DP cells scored by the kernels
	CPUCells                int64         // cells of reads too long for the kernels, scored on the CPU
	KernelTime              time.Duration // device time of the launches (events)
	BusyTime                time.Duration // wall time inside Score, after the job's setup
	SetupTime               time.Duration // packing and uploading jobs, compiling kernels
}

// ptr is a kernel pointer argument: a byte offset into a buffer.
type ptr struct {
	buf buffer
	off int
}

// callTarget is how long one Score call should keep the device busy: long
// enough that launching and the host's share are a few percent, short
// enough that the last call of a hybrid run ends soon after the CPUs'.
const callTarget = 250 * time.Millisecond

// firstTake is the number of blocks of the first call, before the device's
// speed is known.
const firstTake = 8

func newScorer(dev device) *Scorer {
	return &Scorer{dev: dev, kernels: map[config]kernel{}}
}

// Name implements core.Scorer.
func (s *Scorer) Name() string { return "gpu [" + s.dev.Name() + "]" }

// Take implements core.Scorer: about callTarget of work at the speed
// measured so far.
func (s *Scorer) Take() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rate <= 0 || s.unitCells <= 0 {
		return firstTake
	}
	return max(1, min(1<<16, int(s.rate*callTarget.Seconds()/s.unitCells)))
}

// Stats returns the counters accumulated so far.
func (s *Scorer) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Report summarises the counters for a log: calls, launches, the kernels'
// device time and speed, setup, and the cells of reads left to the CPU.
func (s *Scorer) Report() string {
	st := s.Stats()
	g := 0.0
	if st.KernelTime > 0 {
		g = float64(st.Cells) / st.KernelTime.Seconds() / 1e9
	}
	return fmt.Sprintf("GPU: %d calls, %d blocks, %d launches; kernels %.3f s for %d cells (%.1f GCUPS on the device); setup %.3f s; %d cells of long reads on the CPU",
		st.Calls, st.Blocks, st.Launches, st.KernelTime.Seconds(), st.Cells, g, st.SetupTime.Seconds(), st.CPUCells)
}

// Close releases the device memory and the device.
func (s *Scorer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.freeJob()
	if s.work != nil {
		err = errors.Join(err, s.work.Free())
		s.work = nil
	}
	return errors.Join(err, s.dev.Close())
}

func (s *Scorer) freeJob() error {
	var errs []error
	for _, b := range append([]buffer{s.bufs.seqs, s.bufs.off, s.bufs.lens, s.bufs.kinds, s.bufs.best}, s.bufs.cols[:]...) {
		if b != nil {
			errs = append(errs, b.Free())
		}
	}
	s.bufs = jobBuffers{}
	s.data = nil
	return errors.Join(errs...)
}

// setup packs and uploads a job the first time the scorer sees it, and
// compiles the kernels its reads need.
func (s *Scorer) setup(job *core.Job) error {
	if s.data != nil && s.data.job == job {
		return nil
	}
	t0 := time.Now()
	defer func() { s.stats.SetupTime += time.Since(t0) }()
	if err := s.freeJob(); err != nil {
		return err
	}
	d := newJobData(job)
	if err := s.compile(d.used); err != nil {
		return err
	}
	up := func(b []byte) (buffer, error) {
		buf, err := s.dev.Alloc(max(len(b), 16))
		if err != nil {
			return nil, err
		}
		if len(b) > 0 {
			err = s.dev.CopyIn(buf, b)
		}
		return buf, err
	}
	var kinds []byte
	for m := range d.kinds {
		for _, v := range d.kinds[m] {
			kinds = binary.LittleEndian.AppendUint32(kinds, v)
		}
	}
	var err error
	b := &s.bufs
	if b.seqs, err = up(d.seqs); err == nil {
		if b.off, err = up(int32Bytes(d.off)); err == nil {
			if b.lens, err = up(int32Bytes(d.lens)); err == nil {
				if b.kinds, err = up(kinds); err == nil {
					b.best, err = s.dev.Alloc(max(8*len(job.Queries), 16))
				}
			}
		}
	}
	for m := range d.cols {
		if err == nil && d.cols[m] != nil {
			if m == int(modePaper) && d.cols[modeWide] != nil {
				continue // the same state array
			}
			b.cols[m], err = up(d.cols[m])
		}
	}
	if err == nil {
		_, err = s.dev.Wait()
	}
	if err != nil {
		s.freeJob()
		return fmt.Errorf("uploading the job: %w", err)
	}
	s.data = d
	return nil
}

// compile builds the kernels of the configurations not built yet, side by
// side (NVRTC runs once per machine and configuration; later runs load the
// cached images).
func (s *Scorer) compile(used map[config]bool) error {
	var todo []config
	for c := range used {
		if s.kernels[c] == nil {
			todo = append(todo, c)
		}
	}
	ks := make([]kernel, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, c := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ks[i], errs[i] = s.dev.Kernel(c); errs[i] != nil {
				errs[i] = fmt.Errorf("kernel %s: %w", c, errs[i])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, c := range todo {
		s.kernels[c] = ks[i]
	}
	return nil
}

func (s *Scorer) colsBuf(m mode) buffer {
	if m == modePaper && s.bufs.cols[modeWide] != nil {
		return s.bufs.cols[modeWide]
	}
	return s.bufs.cols[m]
}

// launchPlan is one configuration's launch in a call: its units as int4
// {first branch, branches, offset of its reads in the call's order, reads}.
type launchPlan struct {
	cfg      config
	units    []int32
	maxReads int
}

// Score implements core.Scorer.
func (s *Scorer) Score(job *core.Job, blocks []core.Block, res *core.Results) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setup(job); err != nil {
		return err
	}
	t0 := time.Now()
	d := s.data
	L := job.Branches.Len

	// Plan: each distinct read range of the call puts its reads in the
	// order array once, grouped by configuration; each block adds a unit
	// to the launch of every configuration its range has reads in.
	plans := map[config]*launchPlan{}
	var order []int32
	placed := map[[2]int][]int{} // range -> offset of each of its groups
	var ranges [][2]int
	var gpuCells, cpuCells int64
	for _, b := range blocks {
		q0, q1 := b.Reads(job)
		rr := d.splitRange(q0, q1)
		offs, ok := placed[[2]int{q0, q1}]
		if !ok {
			for _, rs := range rr.reads {
				offs = append(offs, len(order))
				order = append(order, rs...)
			}
			placed[[2]int{q0, q1}] = offs
			ranges = append(ranges, [2]int{q0, q1})
		}
		for i, c := range rr.configs {
			p := plans[c]
			if p == nil {
				p = &launchPlan{cfg: c}
				plans[c] = p
			}
			n := len(rr.reads[i])
			for _, u := range unitsOf(b, c.mode.pairs()) {
				p.units = append(p.units, int32(u[0]), int32(u[1]-u[0]), int32(offs[i]), int32(n))
			}
			p.maxReads = max(p.maxReads, n)
		}
		w := int64(b.End-b.Start) * int64(L)
		gpuCells += rr.gpuRes * w
		cpuCells += rr.cpuRes * w
	}
	var list []*launchPlan
	for _, p := range plans {
		list = append(list, p)
	}
	slices.SortFunc(list, func(a, b *launchPlan) int { return compareConfigs(a.cfg, b.cfg) })

	// Work buffer: every launch's units (16-byte aligned), then the order.
	var work []byte
	unitOff := make([]int, len(list))
	for i, p := range list {
		unitOff[i] = len(work)
		work = append(work, int32Bytes(p.units)...)
	}
	orderOff := len(work)
	work = append(work, int32Bytes(order)...)

	err := s.ensureWork(len(work))
	if err == nil && len(work) > 0 {
		err = s.dev.CopyIn(s.work, work)
	}
	if err == nil {
		err = s.dev.Zero(s.bufs.best, 8*len(job.Queries))
	}
	launches := 0
	for i, p := range list {
		if err != nil {
			break
		}
		nu := len(p.units) / 4
		for u0 := 0; u0 < nu && err == nil; u0 += 65535 { // grid y limit
			u1 := min(nu, u0+65535)
			err = s.dev.Launch(s.kernels[p.cfg], p.cfg.gridX(p.maxReads), u1-u0,
				ptr{s.colsBuf(p.cfg.mode), 0}, ptr{s.bufs.seqs, 0}, ptr{s.bufs.off, 0}, ptr{s.bufs.lens, 0},
				ptr{s.work, orderOff}, ptr{s.work, unitOff[i] + 16*u0}, ptr{s.bufs.kinds, 4 * 256 * int(p.cfg.mode)},
				int32(L), int32(d.width(p.cfg.mode)), int32(d.numKinds()),
				int32(job.Params.GapOpen), int32(job.Params.GapExtend), int32(job.Params.Match), int32(job.Params.MatchCGap),
				ptr{s.bufs.best, 0})
			launches++
		}
	}

	// Reads too long for the kernels: the CPU kernel, meanwhile.
	var cpuRes *core.Results
	var cpuErr error
	var wg sync.WaitGroup
	if d.cpuJob != nil && err == nil {
		var sub []core.Block
		for _, b := range blocks {
			q0, q1 := b.Reads(job)
			if s0, s1 := d.cpuRange(q0, q1); s0 < s1 {
				sub = append(sub, core.Block{Start: b.Start, End: b.End, Q0: s0, Q1: s1})
			}
		}
		if len(sub) > 0 {
			cpuRes = core.NewResults(len(d.cpuJob.Queries))
			wg.Add(1)
			go func() {
				defer wg.Done()
				cpuErr = s.cpu.Score(d.cpuJob, sub, cpuRes)
			}()
		}
	}

	var ktime time.Duration
	if err == nil {
		ktime, err = s.dev.Wait()
	}
	keys := make([]byte, 8*len(job.Queries))
	if err == nil {
		err = s.dev.CopyOut(keys, s.bufs.best)
	}
	wg.Wait()
	if err = errors.Join(err, cpuErr); err != nil {
		return err
	}
	for _, r := range ranges {
		for q := r[0]; q < r[1]; q++ {
			if sc, br, ok := fromKey(binary.LittleEndian.Uint64(keys[8*q:])); ok {
				res.Offer(q, br, sc)
			}
		}
	}
	if cpuRes != nil {
		for i, q := range d.cpuGlobal {
			if cpuRes.Branch[i] >= 0 {
				res.Offer(q, int(cpuRes.Branch[i]), cpuRes.Score[i])
			}
		}
	}

	busy := time.Since(t0)
	s.stats.Calls++
	s.stats.Blocks += len(blocks)
	s.stats.Launches += launches
	s.stats.Cells += gpuCells
	s.stats.CPUCells += cpuCells
	s.stats.KernelTime += ktime
	s.stats.BusyTime += busy
	if cells := float64(gpuCells + cpuCells); cells > 0 && busy > 0 {
		s.rate = cells / busy.Seconds()
		s.unitCells = cells / float64(len(blocks))
	}
	return nil
}

// unitsOf cuts a block into kernel units of at most 32 branches; in the
// 16-bit modes a unit's span starts at an even branch (a pair of lanes), so
// a full block that starts at an odd branch (not one from core's queue,
// whose blocks start at multiples of 32) becomes two units.
func unitsOf(b core.Block, pairs bool) [][2]int {
	if pairs && b.Start%2 != 0 && b.End-(b.Start-1) > unitBranches {
		return [][2]int{{b.Start, b.Start + unitBranches - 1}, {b.Start + unitBranches - 1, b.End}}
	}
	return [][2]int{{b.Start, b.End}}
}

// ensureWork makes the per-call buffer at least n bytes (grown by half
// again, so that growing calls are rare).
func (s *Scorer) ensureWork(n int) error {
	if s.work != nil && s.work.Size() >= n {
		return nil
	}
	if s.work != nil {
		if err := s.work.Free(); err != nil {
			return err
		}
		s.work = nil
	}
	b, err := s.dev.Alloc(max(n+n/2, 1<<16))
	if err != nil {
		return err
	}
	s.work = b
	return nil
}

func compareConfigs(a, b config) int {
	if a.mode != b.mode {
		return int(a.mode) - int(b.mode)
	}
	if a.g != b.g {
		return a.g - b.g
	}
	return a.r - b.r
}

func int32Bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}
