package msvfilter

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The MSV pass on one thread a target (M < 48 but 25..32) is bound twice: by
// throughput over all undecided residues, and by the longest undecided
// target, whose rows one warp walks one after another (each row needs
// the previous row's xB). The long targets therefore run on a shape of
// several threads a target, whose rows are shorter, in a launch of their
// own on a side stream, at the same time as the others on one thread a
// target. Each launch is msv_kernel on a shape TestMSVOnCPU checks; the
// split only decides which targets go where.

// longRowsFor is the length past which an undecided target goes to the
// long shape: about the rows a lane walks while the whole device works
// through the undecided residues (the residues over the resident lanes,
// times how much faster a lone warp's row is than a row under full load,
// taken as 10; fixed lengths of 500 and 1500 measured about the same at
// M = 32..47), at least 256.
func longRowsFor(residues, sms int) int {
	return max(256, 10*residues/(sms*2048))
}

// splitFromM is the least model length whose MSV pass splits by
// default. Measured on an H100 (docs/BENCHMARKS.md, "The MSV pass's
// cell and its long targets"): the split pass took 0.39-0.41 ms against
// 0.48-0.54 on one launch at M = 32, 40 and 47 (other models, an
// earlier call: 0.37-0.43 against 0.49-0.65); at M = 25 no less (0.38
// against 0.37), at 10 and 16 more (0.18 and 0.38 against 0.11 and
// 0.26): eight threads a target walk a row no faster than one there.
// (The pass at M = 25..32 now runs on T = 4, msvNodesFor, and does not
// split.)
const splitFromM = 32

// longNodesFor is the long shape's fewest nodes a thread: eight threads
// a target from M = 16 up, fewer below.
func longNodesFor(M int) int { return max(1, M/8) }

// splitLong divides the undecided targets rest into those longer than
// the split length and the others, both in rest's order; long is empty
// when the pass stays one launch (LongRows < 0, or by default a pass
// with more than one thread a target or a model below splitFromM nodes).
func (g *GPU) splitLong(ms gpuShape, M int, dsqs [][]byte, rest []int) (long, short []int) {
	rows := g.LongRows
	if rows < 0 || (rows == 0 && (ms.T > 1 || M < splitFromM)) {
		return nil, rest
	}
	if rows == 0 {
		residues := 0
		for _, i := range rest {
			residues += len(dsqs[i])
		}
		rows = longRowsFor(residues, g.ctx.Device().Multiprocessors)
	}
	long, short = partitionByLength(dsqs, rest, rows)
	return long, short
}

// partitionByLength divides the targets rest into those longer than rows
// residues and the others, both in rest's order.
func partitionByLength(dsqs [][]byte, rest []int, rows int) (long, short []int) {
	for _, i := range rest {
		if len(dsqs[i]) > rows {
			long = append(long, i)
		} else {
			short = append(short, i)
		}
	}
	return long, short
}

// longShape is the long targets' shape for a model of M nodes.
func (g *GPU) longShape(M, Kp int) gpuShape {
	n := g.LongNodes
	if n <= 0 {
		n = longNodesFor(M)
	}
	s := shapeForNodes(M, Kp, n)
	s.PF = g.Prefetch
	return g.msvOptions(s)
}

// msvPass runs msv_kernel over the undecided targets rest on shape ms
// (kernels k), the long ones on their own shape beside the others, and
// sets their scores in out.
func (g *GPU) msvPass(k *nvrtc.Kernels, ms gpuShape, om *oprofile.MSVProfile, Kp int, db *gpudb.DB, rest []int, out []float32) error {
	n := len(db.Dsqs)
	cost := func(x, node int) int16 {
		if node > om.M {
			return 255
		}
		return int16(om.RBV[x][node])
	}
	// tjbm is indexed by database number, but the kernel reads only the
	// entries of its layout's targets (rest), so it comes uncleared from
	// the pool and only rest is written.
	table := tjbTable(om)
	tjbm := hostArrays.Get(4 * n)
	defer hostArrays.Put(tjbm)
	gpudb.ForEachOf(rest, func(i int) {
		binary.LittleEndian.PutUint32(tjbm[4*i:], uint32(uint8(tjbOf(table, om, len(db.Dsqs[i]))+om.TBM)))
	})
	scalars := []int32{int32(om.Bias), int32(om.Base), int32(om.TEC)}
	if seg, others := g.segmentLong(om.M, db.Dsqs, rest); len(seg) > 0 {
		return g.msvPassSegmented(k, ms, om, Kp, db, seg, others, tjbm, cost, scalars, out)
	}
	long, short := g.splitLong(ms, om.M, db.Dsqs, rest)
	ls := g.longShape(om.M, Kp)
	if ls.T == ms.T {
		long, short = nil, rest
	}
	subset := func(idx []int, T int) (*gpudb.Subset, error) {
		packed := time.Now()
		defer g.Stats.Subset(packed)
		return db.Subset(idx, T)
	}
	if len(long) == 0 || len(short) == 0 {
		if len(short) == 0 {
			var err error
			if k, err = g.kernel(ls); err != nil {
				return err
			}
			ms, short = ls, long
		}
		sub, err := subset(short, ms.T)
		if err != nil {
			return err
		}
		raw := hostArrays.Get(2 * n)
		defer hostArrays.Put(raw)
		if err := g.launch(k, ms, "msv_kernel", msvProfileWords(ms, Kp, om.Bias, cost), nil, sub, n, tjbm, raw, scalars...); err != nil {
			return err
		}
		msvScores(om, db.Dsqs, short, raw, out)
		return nil
	}
	kl, err := g.kernel(ls)
	if err != nil {
		return err
	}
	subL, err := subset(long, ls.T)
	if err != nil {
		return err
	}
	subS, err := subset(short, ms.T)
	if err != nil {
		return err
	}
	ql := launchSpec{kl, ls, "msv_kernel", msvProfileWords(ls, Kp, om.Bias, cost), subL}
	qs := launchSpec{k, ms, "msv_kernel", msvProfileWords(ms, Kp, om.Bias, cost), subS}
	rawL, rawS := hostArrays.Get(2*n), hostArrays.Get(2*n)
	defer hostArrays.Put(rawL)
	defer hostArrays.Put(rawS)
	if err := g.launchBeside(ql, qs, n, tjbm, rawL, rawS, scalars...); err != nil {
		return err
	}
	msvScores(om, db.Dsqs, long, rawL, out)
	msvScores(om, db.Dsqs, short, rawS, out)
	return nil
}

// launchSpec is one launch of launchBeside: msv_kernel or
// msv_seg_kernel (name).
type launchSpec struct {
	k    *nvrtc.Kernels
	s    gpuShape
	name string
	prof []byte
	sub  *gpudb.Subset
}

// launchBeside runs side's kernel over its targets on a side lane's
// stream while main's run on a lane's, both started from one point of the
// lane's stream, which then waits for the side launch: the lane's timing
// covers both. It copies each launch's results (database numbering, 2
// bytes a target) into rawSide and rawMain.
func (g *GPU) launchBeside(side, main launchSpec, n int, tjbm, rawSide, rawMain []byte, scalars ...int32) error {
	ln, err := g.lanes.Take()
	if err != nil {
		return err
	}
	defer g.lanes.Give(ln)
	sl, err := g.side.Take()
	if err != nil {
		return err
	}
	defer g.side.Give(sl)
	defer g.Stats.Held(time.Now())
	qs, err := g.prepare(sl, side.k, side.s, side.name, side.prof, nil, side.sub, n, tjbm, scalars...)
	if err != nil {
		return err
	}
	qm, err := g.prepare(ln, main.k, main.s, main.name, main.prof, nil, main.sub, n, tjbm, scalars...)
	if err != nil {
		return err
	}
	fork, err := g.ctx.NewEvent(false)
	if err != nil {
		return err
	}
	defer fork.Destroy()
	join, err := g.ctx.NewEvent(false)
	if err != nil {
		return err
	}
	defer join.Destroy()
	d, err := ln.Run(func(st *cuda.Stream) error {
		if err := fork.Record(st); err != nil {
			return err
		}
		if err := sl.Stream.WaitEvent(fork); err != nil {
			return err
		}
		if err := qs.launches(sl.Stream, 1); err != nil {
			return err
		}
		if err := join.Record(sl.Stream); err != nil {
			return err
		}
		if err := qm.launches(st, 1); err != nil {
			return err
		}
		return st.WaitEvent(join)
	}, qm.out, rawMain[:2*n])
	if err == nil {
		err = sl.CopyBack(rawSide[:2*n], qs.out)
	}
	if err != nil {
		return fmt.Errorf("msv filter on GPU %d: %w", g.ctx.Device().Ordinal, err)
	}
	g.addTime(d, false)
	return nil
}
