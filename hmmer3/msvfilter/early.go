package msvfilter

import (
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The MSV pass started early (issue 4, small M). At M = 10 and 16 few
// residues are undecided, and the pass, launched after the whole SSV
// kernel, lasts as long as its longest undecided target takes row by
// row. Here the long targets' share runs beside the SSV kernel instead,
// with no host in between:
//
//   - head: the SSV kernel over the long targets alone (in windows,
//     spread over the whole device), then ssv_decide, which marks in the
//     pass's per-target words the long targets SSV decided;
//   - then, on reserved blocks, msv_kernel with MSV_MASK over all long
//     targets (it skips the marked ones), beside the SSV kernel over the
//     whole database (long targets again: their SSV is cheap, and the
//     cached layout holds them), whose grid is short of those blocks;
//   - then, as before, the MSV pass over the undecided targets that are
//     not long.
//
// Exact by construction: the same kernels; the SSV maxima of the head
// are the database pass's (the max over windows, gpudb/window.go), and
// ssv_decide's sets are ssvDecide's at each target's length, the host's
// decision.

// earlyRowsFor is the least length of a long target (0: the pass is not
// started early).
func (g *GPU) earlyRowsFor(M int) int {
	if g.EarlyRows != 0 {
		return max(0, g.EarlyRows)
	}
	return 0
}

// earlyReserve caps the CUDA blocks kept from the SSV kernel for the
// long targets' pass.
const earlyReserve = 64

// earlyDebug prints the early pass's shapes and grids
// ($HMMGO_EARLY_DEBUG, benchmarks).
var earlyDebug = os.Getenv("HMMGO_EARLY_DEBUG") != ""

// residentBlocks is f's registers a thread and how many of its CUDA
// blocks of block threads and shared bytes the device holds at once
// (compute capability 9.0: 64 K registers, 2,048 threads, 32 blocks and
// 228 KiB of shared memory an SM, 1 KiB of it reserved a block;
// registers allocated 256 at a time a warp).
func (g *GPU) residentBlocks(f *cuda.Function, block, shared int) (regs, blocks int) {
	regs, err := f.Attribute(cuda.FuncNumRegs)
	if err != nil || regs <= 0 {
		return 0, gpudb.PersistentGrid(g.ctx, block, shared)
	}
	warps := block / 32
	perWarp := (regs*32 + 255) &^ 255
	per := min(32, 2048/block, (65536/perWarp)/warps, (228<<10)/(shared+1024))
	return regs, max(1, per) * g.ctx.Device().Multiprocessors
}

// undecidedSet is the 256-bit set of SSV cells that leave a target with
// length term tjb undecided (ssvScores' test).
func undecidedSet(om *oprofile.MSVProfile, tjb uint8) [8]uint32 {
	p := *om
	p.TJB = tjb
	var set [8]uint32
	for c := range 256 {
		undecided := !ssvApplies(&p)
		if !undecided {
			_, ok := ssvDecide(uint8(c), &p)
			undecided = !ok
		}
		if undecided {
			set[c/32] |= 1 << (c % 32)
		}
	}
	return set
}

// decideInput is ssv_decide's input for targets idx: their numbers, then
// each one's undecidedSet.
func decideInput(om *oprofile.MSVProfile, dsqs [][]byte, idx []int) []byte {
	table := tjbTable(om)
	sets := map[uint8][8]uint32{}
	in := make([]byte, 4*len(idx)+32*len(idx))
	for k, i := range idx {
		binary.LittleEndian.PutUint32(in[4*k:], uint32(i))
		tjb := tjbOf(table, om, len(dsqs[i]))
		set, ok := sets[tjb]
		if !ok {
			set = undecidedSet(om, tjb)
			sets[tjb] = set
		}
		for j, w := range set {
			binary.LittleEndian.PutUint32(in[4*len(idx)+32*k+4*j:], w)
		}
	}
	return in
}

// headWindows is the step and overlap of the head's windows: as
// ssvWindows for a database of the long targets' residues.
func (g *GPU) headWindows(s gpuShape, M, residues, longest int) (step, overlap int) {
	overlap = windowOverlap(s.T, M, g.nodes(M))
	warps := gpudb.PersistentGrid(g.ctx, s.Block, s.ssvSharedBytes()) * s.Block / 32
	step = max(residues/(warps*(32/s.T)), minStepOverlaps*overlap, 64)
	step = (step + 31) &^ 31
	if longest <= step+overlap {
		return 0, 0
	}
	return step, overlap
}

// scoresEarly is Scores with the long targets' MSV pass started early
// (SSV shape s, kernels k; the pass's shape ms, kernels kms). It returns
// false, having done nothing, when no target is longer than rows.
func (g *GPU) scoresEarly(k, kms *nvrtc.Kernels, s, ms gpuShape, om *oprofile.MSVProfile, Kp int, db *gpudb.DB, rows int, cost func(x, node int) int16, out []float32) (bool, error) {
	dsqs := db.Dsqs
	n := len(dsqs)
	var long []int
	residues, longest := 0, 0
	for i, d := range dsqs {
		if len(d) > rows {
			long = append(long, i)
			residues += len(d)
			longest = max(longest, len(d))
		}
	}
	if len(long) == 0 {
		return false, nil
	}
	mk := ms
	mk.Mask = 1
	km, err := g.kernel(mk)
	if err != nil {
		return true, err
	}
	var head *gpudb.Subset
	if step, overlap := g.headWindows(s, om.M, residues, longest); step > 0 {
		head, err = db.SubsetWindows(long, s.T, step, overlap)
	} else {
		head, err = db.Subset(long, s.T)
	}
	if err != nil {
		return true, err
	}
	longSub, err := db.Subset(long, ms.T)
	if err != nil {
		return true, err
	}
	table := tjbTable(om)
	tjbm := hostArrays.Get(4 * n)
	defer hostArrays.Put(tjbm)
	for _, i := range long {
		binary.LittleEndian.PutUint32(tjbm[4*i:], uint32(uint8(tjbOf(table, om, len(dsqs[i]))+om.TBM)))
	}
	scalars := []int32{int32(om.Bias), int32(om.Base), int32(om.TEC)}

	// Lanes in one order everywhere (head, long, then a lane, then a side
	// lane in msvPass), so that queries in flight cannot hold each
	// other's.
	hl, err := g.headLanes.Take()
	if err != nil {
		return true, err
	}
	headHeld := true
	defer func() {
		if headHeld {
			g.headLanes.Give(hl)
		}
	}()
	ll, err := g.longLanes.Take()
	if err != nil {
		return true, err
	}
	defer g.longLanes.Give(ll)
	ln, err := g.lanes.Take()
	if err != nil {
		return true, err
	}
	lnHeld := true
	defer func() {
		if lnHeld {
			g.lanes.Give(ln)
		}
	}()
	events := make([]*cuda.Event, 6)
	for j := range events {
		if events[j], err = g.ctx.NewEvent(j < 3); err != nil {
			return true, err
		}
		defer events[j].Destroy()
	}
	fork, ssvEnd, longEnd, headEnd, prepared, decided := events[0], events[1], events[2], events[3], events[4], events[5]

	// The long targets' pass, prepared on its lane: it waits for decided.
	ql, err := g.prepare(ll, km, mk, "msv_kernel", msvProfileWords(mk, Kp, om.Bias, cost), nil, longSub, n, tjbm, scalars...)
	if err != nil {
		return true, err
	}
	warpsPer := mk.Block / 32
	S := 32 / ms.T
	reserve := min(earlyReserve, ((len(long)+S-1)/S+warpsPer-1)/warpsPer)
	ql.cfg.Grid.X = min(ql.cfg.Grid.X, reserve)
	tjbmBuf, err := ll.Bufs.Get("tjbm", 4*n)
	if err != nil {
		return true, err
	}
	din, err := ll.Upload("decide.in", decideInput(om, dsqs, long))
	if err != nil {
		return true, err
	}
	if err := prepared.Record(ll.Stream); err != nil {
		return true, err
	}

	// The SSV pass over the whole database, short of the reserved blocks;
	// with Repeat, that many untimed launches first (clocks up).
	step, overlap := g.ssvWindows(s, om.M, db)
	layout, err := db.WindowLayout(s.T, step, overlap)
	if err != nil {
		return true, err
	}
	prof := ssvProfileWords(s, Kp, om)
	qm, err := g.prepare(ln, k, s, "ssv_kernel", prof, layout, nil, n, nil)
	if err != nil {
		return true, err
	}
	// The SSV kernel's grid is its resident blocks less those the long
	// pass needs (its blocks may take more registers than the SSV's).
	ssvRegs, ssvBlocks := g.residentBlocks(qm.f, s.Block, s.ssvSharedBytes())
	msvRegs, _ := g.residentBlocks(ql.f, mk.Block, mk.msvSharedBytes())
	keep := reserve * ((msvRegs*mk.Block + ssvRegs*s.Block - 1) / max(1, ssvRegs*s.Block))
	qm.cfg.Grid.X = max(1, min(qm.cfg.Grid.X, ssvBlocks)-keep)
	if earlyDebug {
		fmt.Fprintf(os.Stderr, "earlyshape M=%d rows=%d: %d long (%d residues, longest %d), ssv regs %d resident %d grid %d, msv regs %d grid %d\n",
			om.M, rows, len(long), residues, longest, ssvRegs, ssvBlocks, qm.cfg.Grid.X, msvRegs, ql.cfg.Grid.X)
	}
	if g.Repeat > 1 {
		if err := qm.launches(ln.Stream, g.Repeat); err != nil {
			return true, err
		}
		if err := ln.Stream.Memset32(qm.next.Ptr(), 0, 1); err != nil {
			return true, err
		}
	}
	if err := fork.Record(ln.Stream); err != nil {
		return true, err
	}

	// The head, from the fork: its layout, then the SSV kernel over it,
	// then ssv_decide into the long pass's words.
	if err := hl.Stream.WaitEvent(fork); err != nil {
		return true, err
	}
	qh, err := g.prepare(hl, k, s, "ssv_kernel", prof, nil, head, n, nil)
	if err != nil {
		return true, err
	}
	if err := qh.launches(hl.Stream, 1); err != nil {
		return true, err
	}
	if err := headEnd.Record(hl.Stream); err != nil {
		return true, err
	}
	if err := hl.Stream.WaitEvent(prepared); err != nil {
		return true, err
	}
	fd, err := k.Function("ssv_decide")
	if err != nil {
		return true, err
	}
	var da cuda.Args
	da.Buffer(qh.out).Buffer(din).Int32(int32(len(long))).Int32(int32(om.Bias)).Buffer(tjbmBuf)
	dcfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: (len(long) + 255) / 256}, Block: cuda.Dim3{X: 256}, Stream: hl.Stream}
	if err := fd.Launch(dcfg, &da); err != nil {
		return true, err
	}
	if err := decided.Record(hl.Stream); err != nil {
		return true, err
	}
	if err := ll.Stream.WaitEvent(decided); err != nil {
		return true, err
	}
	if err := ql.launches(ll.Stream, 1); err != nil {
		return true, err
	}
	if err := longEnd.Record(ll.Stream); err != nil {
		return true, err
	}
	// The database's SSV pass after the head's (on all but the reserve).
	if err := ln.Stream.WaitEvent(headEnd); err != nil {
		return true, err
	}
	if err := qm.launches(ln.Stream, 1); err != nil {
		return true, err
	}
	if err := ssvEnd.Record(ln.Stream); err != nil {
		return true, err
	}

	maxw := hostArrays.Get(4 * n)
	defer hostArrays.Put(maxw)
	if err := ln.CopyBack(maxw[:4*n], qm.out); err != nil {
		return true, fmt.Errorf("msv filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	ssvTime, err := cuda.Elapsed(fork, ssvEnd)
	if err != nil {
		return true, err
	}
	// The head's lane's work is queued before the long pass's, which is
	// waited for below; the lanes go back for the pass over the others.
	g.lanes.Give(ln)
	lnHeld = false
	rest := ssvScores(om, dsqs, maxw, out)
	var longRest, shortRest []int
	for _, i := range rest {
		if len(dsqs[i]) > rows {
			longRest = append(longRest, i)
		} else {
			shortRest = append(shortRest, i)
		}
	}
	g.addTime(ssvTime, true)
	var pass time.Duration
	if len(shortRest) > 0 {
		tj := hostArrays.Get(4 * n)
		defer hostArrays.Put(tj)
		gpudb.ForEachOf(shortRest, func(i int) {
			binary.LittleEndian.PutUint32(tj[4*i:], uint32(uint8(tjbOf(table, om, len(dsqs[i]))+om.TBM)))
		})
		if pass, err = g.msvPass(kms, ms, om, Kp, db, shortRest, tj, cost, out); err != nil {
			return true, err
		}
	}
	raw := hostArrays.Get(2 * n)
	defer hostArrays.Put(raw)
	if err := ll.CopyBack(raw[:2*n], ql.out); err != nil {
		return true, fmt.Errorf("msv filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	if err := hl.Stream.Synchronize(); err != nil {
		return true, err
	}
	g.headLanes.Give(hl)
	headHeld = false
	msvScores(om, dsqs, longRest, raw, out)
	longTime, err := cuda.Elapsed(fork, longEnd)
	if err != nil {
		return true, err
	}
	// KernelTime: the device's span had the pass over the others followed
	// the SSV kernel at once (the host's selection between them is not
	// device time, as in Scores' own accounting).
	if extra := longTime - (ssvTime + pass); extra > 0 {
		g.addTime(extra, false)
	}
	if earlyDebug {
		fmt.Fprintf(os.Stderr, "earlytime M=%d rows=%d: ssv %v, pass %v (%d short undecided), long %v (%d long undecided)\n", om.M, rows, ssvTime, pass, len(shortRest), longTime, len(longRest))
	}
	g.mu.Lock()
	g.EarlyLong += longTime
	g.mu.Unlock()
	return true, nil
}
