package pairhmm

import (
	"encoding/binary"
	"math"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// gpuSlot is one of a device's two pipelines: a stream, page-locked host
// memory into which a chunk is packed and its results come back, device
// memory with the same layout, and the bookkeeping of the chunk in flight.
type gpuSlot struct {
	s          gpuStream
	start, end gpuEvent
	host       hostMemory
	dev        gpuBuffer
	capacity   int
	// The double pass of the chunk: its task lists and results.
	redoHost hostMemory
	redoDev  gpuBuffer
	redoCap  int

	lay      chunkLayout
	binStart []int      // tasks of bin b are [binStart[b], binStart[b+1])
	dest     []pairDest // where each task's result goes
	stats    GPUStats
}

// pairDest is the position of a task's likelihood: out[g][i].
type pairDest struct {
	g int32
	i int
}

// The kernels' array parameters, in order.
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

// hapPad is the number of N codes before the first haplotype and after
// the last: kernel threads read the base of column k - lane without
// bounds checks, up to a group's width outside a haplotype.
const hapPad = 32

// chunkLayout places a chunk's arrays in one buffer (the same offsets in
// host and device memory): the inputs, then the float results.
type chunkLayout struct {
	nReads, nHaps, nTasks int
	off                   [nArrays]int
	out                   int // float results
	inputEnd, total       int
}

func align16(n int) int { return (n + 15) &^ 15 }

func layoutFor(nReads, readBytes, nHaps, hapBytes, nTasks int) chunkLayout {
	l := chunkLayout{nReads: nReads, nHaps: nHaps, nTasks: nTasks}
	size := [nArrays]int{
		aBase: readBytes, aQual: readBytes, aIns: readBytes, aDel: readBytes, aGCP: readBytes,
		aReadOff: 4 * nReads, aReadLen: 4 * nReads,
		aHap: hapBytes + 2*hapPad, aHapOff: 4 * nHaps, aHapLen: 4 * nHaps,
		aTaskRead: 4 * nTasks, aTaskHap: 4 * nTasks,
	}
	at := 0
	for i, n := range size {
		l.off[i] = at
		at = align16(at + n)
	}
	l.inputEnd = at
	l.out = at
	l.total = align16(at + 4*nTasks)
	return l
}

// ensure grows the slot's buffers to hold n bytes. The slot is idle.
func (s *gpuSlot) ensure(rt gpuRuntime, n int) error {
	if n <= s.capacity {
		return nil
	}
	n = max(n, s.capacity+s.capacity/2, 1<<20)
	if s.host != nil {
		s.host.Free()
		s.dev.Free()
		s.host, s.dev, s.capacity = nil, nil, 0
	}
	h, err := rt.AllocHost(n)
	if err != nil {
		return err
	}
	d, err := rt.Alloc(n)
	if err != nil {
		h.Free()
		return err
	}
	s.host, s.dev, s.capacity = h, d, n
	return nil
}

func (s *gpuSlot) ensureRedo(rt gpuRuntime, n int) error {
	if n <= s.redoCap {
		return nil
	}
	n = max(n, 2*s.redoCap, 64<<10)
	if s.redoHost != nil {
		s.redoHost.Free()
		s.redoDev.Free()
		s.redoHost, s.redoDev, s.redoCap = nil, nil, 0
	}
	h, err := rt.AllocHost(n)
	if err != nil {
		return err
	}
	d, err := rt.Alloc(n)
	if err != nil {
		h.Free()
		return err
	}
	s.redoHost, s.redoDev, s.redoCap = h, d, n
	return nil
}

// pack lays chunk c out in the slot's host memory: every read and
// haplotype of its units once, and the pairs as (read, haplotype) tasks
// grouped by length bin. Within a bin, tasks are haplotype-major, so that
// neighbouring groups of threads (which share a warp) usually work on the
// same haplotype and finish together.
func (d *gpuDevice) pack(g *GPU, s *gpuSlot, groups []Group, c chunk) error {
	t0 := time.Now()
	nReads, readBytes, nHaps, hapBytes := 0, 0, 0, 0
	for _, u := range c.units {
		for _, r := range u.reads {
			readBytes += len(groups[u.g].Reads[r].Bases)
		}
		nReads += len(u.reads)
		for _, h := range groups[u.g].Haplotypes[u.h0:u.h1] {
			hapBytes += len(h)
		}
		nHaps += u.h1 - u.h0
	}
	lay := layoutFor(nReads, readBytes, nHaps, hapBytes, c.pairs)
	ta := time.Now()
	if err := s.ensure(d.rt, lay.total); err != nil {
		return err
	}
	alloc := time.Since(ta)
	s.lay = lay
	buf := s.host.Bytes()
	arr := func(a int) []byte { return buf[lay.off[a]:] }
	roff, rlen := cuda.View[int32](arr(aReadOff))[:nReads], cuda.View[int32](arr(aReadLen))[:nReads]
	hoff, hlen := cuda.View[int32](arr(aHapOff))[:nHaps], cuda.View[int32](arr(aHapLen))[:nHaps]
	taskRead, taskHap := cuda.View[int32](arr(aTaskRead))[:c.pairs], cuda.View[int32](arr(aTaskHap))[:c.pairs]
	hap := arr(aHap)[:hapBytes+2*hapPad]

	// First, serially, where each unit's reads, haplotypes and tasks go;
	// then the units are written in parallel (on big batches packing is
	// as long as the GPU's work on the previous chunk).
	nb := len(g.configs)
	s.binStart = append(s.binStart[:0], make([]int, nb+1)...)
	count := s.binStart[1:]
	type plan struct {
		readAt, readID, hapAt, hapID int
		bins                         []int // per read
		cursor                       []int // per bin: the unit's first task
	}
	plans := make([]plan, len(c.units))
	readAt, hapAt, readID, hapID := 0, hapPad, 0, 0
	for ui, u := range c.units {
		p := &plans[ui]
		p.readAt, p.readID, p.hapAt, p.hapID = readAt, readID, hapAt, hapID
		p.bins = make([]int, len(u.reads))
		for i, r := range u.reads {
			n := len(groups[u.g].Reads[r].Bases)
			b := gpuBin(g.configs, n)
			p.bins[i] = b
			count[b] += u.h1 - u.h0
			readAt += n
		}
		readID += len(u.reads)
		for _, h := range groups[u.g].Haplotypes[u.h0:u.h1] {
			hapAt += len(h)
		}
		hapID += u.h1 - u.h0
	}
	for b := 1; b <= nb; b++ {
		s.binStart[b] += s.binStart[b-1]
	}
	running := append([]int(nil), s.binStart[:nb]...)
	for ui, u := range c.units {
		plans[ui].cursor = append([]int(nil), running...)
		for _, b := range plans[ui].bins {
			running[b] += u.h1 - u.h0
		}
	}
	if cap(s.dest) < c.pairs {
		s.dest = make([]pairDest, c.pairs)
	}
	s.dest = s.dest[:c.pairs]
	for i := 0; i < hapPad; i++ {
		hap[i] = codeN
		hap[hapPad+hapBytes+i] = codeN
	}
	parallelCollectMin(len(c.units), g.threads, 4, func(lo, hi int, _ []int) []int {
		for ui := lo; ui < hi; ui++ {
			u, p := c.units[ui], &plans[ui]
			grp := &groups[u.g]
			readAt, readID, hapAt, hapID := p.readAt, p.readID, p.hapAt, p.hapID
			for _, r := range u.reads {
				rd := &grp.Reads[r]
				n := len(rd.Bases)
				codes := arr(aBase)[readAt : readAt+n]
				for i, b := range rd.Bases {
					codes[i] = uint8(baseCode[b]) // validated: 0..4
				}
				copy(arr(aQual)[readAt:], rd.BaseQuals)
				copy(arr(aIns)[readAt:], rd.InsQuals)
				copy(arr(aDel)[readAt:], rd.DelQuals)
				copy(arr(aGCP)[readAt:], rd.GCPQuals)
				roff[readID], rlen[readID] = int32(readAt), int32(n)
				readAt += n
				readID++
			}
			for _, h := range grp.Haplotypes[u.h0:u.h1] {
				for i, b := range h {
					hap[hapAt+i] = uint8(baseCode[b])
				}
				hoff[hapID], hlen[hapID] = int32(hapAt), int32(len(h))
				hapAt += len(h)
				hapID++
			}
			H := len(grp.Haplotypes)
			cursor := p.cursor
			for h := u.h0; h < u.h1; h++ {
				for i, r := range u.reads {
					k := cursor[p.bins[i]]
					cursor[p.bins[i]]++
					taskRead[k] = int32(p.readID + i)
					taskHap[k] = int32(p.hapID + h - u.h0)
					s.dest[k] = pairDest{u.g, int(r)*H + h}
				}
			}
		}
		return nil
	})
	s.stats = GPUStats{Pairs: int64(c.pairs), Chunks: 1, BytesIn: int64(lay.inputEnd)}
	for _, u := range c.units {
		var rl, hl int64
		for _, r := range u.reads {
			rl += int64(len(groups[u.g].Reads[r].Bases))
		}
		for _, h := range groups[u.g].Haplotypes[u.h0:u.h1] {
			hl += int64(len(h))
		}
		s.stats.Cells += rl * hl
	}
	s.stats.AllocTime = alloc
	s.stats.PackTime = time.Since(t0)
	return nil
}

// launchFloat queues the chunk's upload, one float kernel per non-empty
// length bin between two timing events, and the download of the raw sums.
// The kernels wait for those of the previous chunk (after, on the other
// stream): the upload still overlaps them, and the event spans of
// successive chunks do not overlap, so their sum is the kernels' time.
func (d *gpuDevice) launchFloat(g *GPU, s, after *gpuSlot) error {
	lay := &s.lay
	buf := s.host.Bytes()
	if err := s.s.CopyHtoD(s.dev, 0, buf[:lay.inputEnd]); err != nil {
		return err
	}
	if after != nil {
		if err := s.s.WaitEvent(after.end); err != nil {
			return err
		}
	}
	if err := s.s.Record(s.start); err != nil {
		return err
	}
	at := func(a, task int) devPtr { return devPtr{s.dev, lay.off[a] + 4*task} }
	if err := d.launchBins(g, s, d.float, 4, func(lo int) []any {
		return []any{at(aTaskRead, lo), at(aTaskHap, lo)}
	}, func(lo int) []any {
		return []any{devPtr{d.tabs32[0], 0}, devPtr{d.tabs32[1], 0}, initial32, devPtr{s.dev, lay.out + 4*lo}}
	}, s.binStart); err != nil {
		return err
	}
	if err := s.s.Record(s.end); err != nil {
		return err
	}
	return s.s.CopyDtoH(buf[lay.out:lay.out+4*lay.nTasks], s.dev, lay.out)
}

// launchBins launches fns[b] for every non-empty bin b of binStart with
// the chunk's read and haplotype arrays, the bin's task arrays (tasks)
// and the precision's tables, constant and output (rest). The kernels
// index tasks from 0, so each bin gets pointers to its first task.
func (d *gpuDevice) launchBins(g *GPU, s *gpuSlot, fns []gpuFunction, elemBytes int,
	tasks, rest func(lo int) []any, binStart []int) error {
	for b, c := range g.configs {
		lo, hi := binStart[b], binStart[b+1]
		if lo == hi {
			continue
		}
		args := make([]any, 0, nArrays+5)
		for a := aBase; a < aTaskRead; a++ {
			args = append(args, devPtr{s.dev, s.lay.off[a]})
		}
		args = append(args, tasks(lo)...)
		args = append(args, int32(hi-lo))
		args = append(args, rest(lo)...)
		block := 32 * c.warps(elemBytes, g.variant)
		perBlock := block / c.group
		grid := (hi - lo + perBlock - 1) / perBlock
		if err := s.s.Launch(fns[b], grid, block, args...); err != nil {
			return err
		}
	}
	return nil
}

// finish waits for a chunk, writes the likelihoods of the pairs whose
// float sum GATK accepts, and recomputes the others in double precision
// on the device (below the double range: the rescaled pass, on the CPU).
func (d *gpuDevice) finish(g *GPU, s *gpuSlot, groups []Group, out [][]float64) error {
	t0 := time.Now()
	if err := s.s.Synchronize(); err != nil {
		return err
	}
	st := s.stats
	kt, err := d.rt.Elapsed(s.start, s.end)
	if err != nil {
		return err
	}
	st.KernelTime = kt
	lay := &s.lay
	raw := cuda.View[float32](s.host.Bytes()[lay.out:])[:lay.nTasks]
	redo := parallelCollect(lay.nTasks, g.threads, func(lo, hi int, redo []int) []int {
		for k := lo; k < hi; k++ {
			if raw[k] < minAccepted {
				redo = append(redo, k)
				continue
			}
			p := s.dest[k]
			out[p.g][p.i] = fromFloat(raw[k])
		}
		return redo
	})
	if len(redo) > 0 {
		td := time.Now()
		scaled, err := d.doublePass(g, s, redo, groups, out)
		if err != nil {
			return err
		}
		st.DoublePairs, st.ScaledPairs = int64(len(redo)), int64(scaled)
		st.DoubleTime = time.Since(td)
	}
	st.FinishTime = time.Since(t0)
	g.addStats(st)
	return nil
}

// doublePass runs the double kernels on the chunk's pairs listed in redo
// (task numbers, ascending), reusing the reads and haplotypes already on
// the device; it returns how many pairs needed the rescaled pass.
func (d *gpuDevice) doublePass(g *GPU, s *gpuSlot, redo []int, groups []Group, out [][]float64) (int, error) {
	n := len(redo)
	offRead, offHap, offOut := 0, align16(4*n), 2*align16(4*n)
	if err := s.ensureRedo(d.rt, offOut+8*n); err != nil {
		return 0, err
	}
	hb := s.redoHost.Bytes()
	taskRead := cuda.View[int32](s.host.Bytes()[s.lay.off[aTaskRead]:])
	taskHap := cuda.View[int32](s.host.Bytes()[s.lay.off[aTaskHap]:])
	rr, rh := cuda.View[int32](hb[offRead:])[:n], cuda.View[int32](hb[offHap:])[:n]
	binStart := make([]int, len(g.configs)+1)
	b := 0
	for i, k := range redo {
		rr[i], rh[i] = taskRead[k], taskHap[k]
		for k >= s.binStart[b+1] {
			b++
		}
		binStart[b+1]++
	}
	for b := 1; b < len(binStart); b++ {
		binStart[b] += binStart[b-1]
	}
	if err := s.s.CopyHtoD(s.redoDev, 0, hb[:offOut]); err != nil {
		return 0, err
	}
	if err := d.launchBins(g, s, d.double, 8, func(lo int) []any {
		return []any{devPtr{s.redoDev, offRead + 4*lo}, devPtr{s.redoDev, offHap + 4*lo}}
	}, func(lo int) []any {
		return []any{devPtr{d.tabs64[0], 0}, devPtr{d.tabs64[1], 0}, initial64, devPtr{s.redoDev, offOut + 8*lo}}
	}, binStart); err != nil {
		return 0, err
	}
	if err := s.s.CopyDtoH(hb[offOut:offOut+8*n], s.redoDev, offOut); err != nil {
		return 0, err
	}
	if err := s.s.Synchronize(); err != nil {
		return 0, err
	}
	raw := cuda.View[float64](hb[offOut:])[:n]
	scaled := 0
	sc := scratch{fused: g.variant.fused}
	for i, k := range redo {
		p := s.dest[k]
		if v := raw[i]; v >= 0x1p-1022 {
			out[p.g][p.i] = math.Log10(v) - log10Initial64
			continue
		}
		// Below the double range, as on the CPU.
		scaled++
		grp := &groups[p.g]
		nh := len(grp.Haplotypes)
		var pr preparedRead
		pr.prepare(&grp.Reads[p.i/nh])
		hap, _ := encodeBases(nil, grp.Haplotypes[p.i%nh])
		sc.grow(len(hap) + 1)
		out[p.g][p.i] = forwardScaled(pr.doubleRows(), hap, sc.fused, sc.m64, sc.x64, sc.y64)
	}
	return scaled, nil
}

// parallelCollect runs fn over [0, n) split among up to workers
// goroutines, each collecting indices; it returns them in ascending order.
func parallelCollect(n, workers int, fn func(lo, hi int, acc []int) []int) []int {
	return parallelCollectMin(n, workers, 1<<14, fn)
}

// parallelCollectMin is parallelCollect with at least minPerWorker items
// per goroutine.
func parallelCollectMin(n, workers, minPerWorker int, fn func(lo, hi int, acc []int) []int) []int {
	workers = max(1, min(workers, n/minPerWorker))
	if workers == 1 {
		return fn(0, n, nil)
	}
	parts := make([][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = fn(n*w/workers, n*(w+1)/workers, nil)
		}()
	}
	wg.Wait()
	var all []int
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
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
