package msvfilter

import (
	"time"

	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The MSV pass on one thread a target is bound by its longest undecided
// target whenever the pass's cells are few (M = 10..24 on 100-175 M
// residues): one lane walks that target's rows one after another, each
// waiting for the row before (~60-76 ns a row on an H100, 1,800-3,600
// rows), while the device's throughput would finish all the pass's cells
// in a fraction of that. So the long undecided targets run a warp each,
// cut into 32 segments that the warp's lanes walk at once, iterated to
// the sequential result (msv.cu: msv_seg_block has the argument). When
// the pass has one thread a target, the others follow in the same
// launch (msv_seg_kernel takes the segmented blocks first); else
// (M = 25..32) msv_kernel runs them on their own shape beside it, on a
// side stream (split.go's launchBeside).

// segMaxM is the largest model the segmented kernel runs: one thread a
// target holds the whole model (T = 1), as the MSV pass's own shape does
// below 48 nodes (msvNodesFor); wider rows would not fit the registers.
// segDefaultMaxM is the largest the default segments: from M = 33 the
// pass splits instead (split.go), which measured as fast or faster at
// M = 40 and 47 on 100 M residues (docs/BENCHMARKS.md, "The MSV pass's
// long targets cut over a warp's lanes").
const (
	segMaxM        = 47
	segDefaultMaxM = 32
)

// segPassNodes is the MSV pass's nodes a thread at M = 25..32 when it
// segments by default (GPU.SegRows 0): one thread a target (the SSV
// pass's shape) instead of msvNodesForPass's T = 4 or 2, so that the
// segmented targets and the others run in one launch; with the long
// targets segmented the pass is no longer bound by its longest target's
// rows (which T = 4 walked faster), and T = 1 does the most cells a
// second. Measured on an H100 (docs/BENCHMARKS.md, "The MSV pass's long
// targets cut over a warp's lanes"): the pass 0.146 against 0.223 ms at
// M = 25 and 0.208 against 0.263 at 32 on 100 M residues (T = 4 with the
// segments beside), 0.152 against 0.183 (T = 4) and 0.273 against 0.326
// (a busy pass, T = 2) on 175 M. Not measured: the busy passes of
// 1,000 M residues, where T = 2 had beaten T = 4 without segments.
const segPassNodes = 24

// segWarm is the warm-up rows before each segment (msv.cu:
// MSV_SEG_WARM) on a T = 1 shape: the model's nodes rounded up to whole
// words of residues. A cell depends on at most the M rows before it
// (MSV's diagonals are at most M long), so after the warm-up a segment's
// cells are right unless xB rose before it.
func (s gpuShape) segWarm() int { return (s.C + 3) &^ 3 }

// segShape is the segmented kernel's shape for a model of M nodes: the
// MSV pass's if that has one thread a target, else one that has.
func (g *GPU) segShape(ms gpuShape, M, Kp int) gpuShape {
	if ms.T == 1 {
		return ms
	}
	s := shapeForNodes(M, Kp, M)
	s.PF = g.Prefetch
	return g.msvOptions(s)
}

// segMinRows is the shortest target the default segments: below it a
// warp's rows are mostly warm-up.
const segMinRows = 128

// segTargetsFor is how many of a pass's longest targets the default
// segments on a device of sms multiprocessors: 16 a multiprocessor,
// half the warps msv_kernel keeps resident at T = 1 (ncu: 4 blocks of 8
// warps an SM, register-bound; docs/BENCHMARKS.md, "The MSV pass on
// large databases"), so the segmented targets take at most half the
// device's first wave. Measured on an H100 (docs/BENCHMARKS.md, "The
// MSV pass's long targets cut over a warp's lanes"): at M = 10..32 on
// 100 M and 175 M residues the best of fixed lengths 200, 400, 800 and
// 1600 segmented 1,500-4,700 targets in most passes, while
// 11,000-104,000 (200 or 400 on the larger passes) lengthened them by up
// to 2.4x (the segments' warm-up and repeated rows are work too); with
// the segments in a launch of their own, 2,048 targets ran passes as
// short as 4,224 or shorter (by up to 25 % at 175 M), 8,448 longer; in
// one launch with the others (the default), 1,024 and 2,112 about the
// same (within 0.016 ms), 4,224 up to 0.04 ms longer.
func segTargetsFor(sms int) int { return 16 * sms }

// segRowsFor is the default segmentation length for the pass's targets
// rest: the least length, at least segMinRows, past which at most n of
// them are (a histogram of their lengths: the pass may hold a million
// targets, too many to sort on the host for each query).
func segRowsFor(dsqs [][]byte, rest []int, n int) int {
	var count []int32 // count[L-segMinRows]: targets of length L, to the longest
	for _, i := range rest {
		if k := len(dsqs[i]) - segMinRows; k >= 0 {
			if k >= len(count) {
				count = append(count, make([]int32, k+1-len(count))...)
			}
			count[k]++
		}
	}
	if len(count) <= 1 {
		return segMinRows
	}
	rows, above := segMinRows+len(count)-1, 0
	for rows > segMinRows && above+int(count[rows-segMinRows]) <= n {
		above += int(count[rows-segMinRows])
		rows--
	}
	return rows
}

// segRows is the length past which an undecided target of the pass rest
// is segmented, or 0 for none: GPU.SegRows if set, else segRowsFor with
// GPU.SegTargets (0: segTargetsFor).
func (g *GPU) segRows(M int, dsqs [][]byte, rest []int) int {
	if M > segMaxM || g.SegRows < 0 {
		return 0
	}
	if g.SegRows > 0 {
		return g.SegRows
	}
	if M > segDefaultMaxM {
		return 0
	}
	n := g.SegTargets
	if n <= 0 {
		n = segTargetsFor(g.ctx.Device().Multiprocessors)
	}
	return segRowsFor(dsqs, rest, n)
}

// segmentLong divides the undecided targets rest into those the pass
// segments and the others, both in rest's order.
func (g *GPU) segmentLong(M int, dsqs [][]byte, rest []int) (seg, others []int) {
	rows := g.segRows(M, dsqs, rest)
	if rows <= 0 {
		return nil, rest
	}
	return partitionByLength(dsqs, rest, rows)
}

// msvPassSegmented runs the MSV pass with the targets seg segmented (on
// shape ss, kernels kss) beside msv_kernel over the others (shape ms,
// kernels k), and sets their scores in out.
func (g *GPU) msvPassSegmented(k *nvrtc.Kernels, ms gpuShape, om *oprofile.MSVProfile, Kp int, db *gpudb.DB, seg, others []int, tjbm []byte, cost func(x, node int) int16, scalars []int32, out []float32) error {
	n := len(db.Dsqs)
	g.mu.Lock()
	g.Pass.Segmented = len(seg)
	g.mu.Unlock()
	ss := g.segShape(ms, om.M, Kp)
	ks, err := g.kernel(ss)
	if err != nil {
		return err
	}
	// On one thread a target, the others' blocks follow the segmented
	// ones in one launch of msv_seg_kernel; else they run on their own
	// shape beside it.
	var with []int
	if ss.T == ms.T {
		with, others = others, nil
	}
	packed := time.Now()
	subSeg, err := db.Segments(seg, with, ss.segWarm())
	g.Stats.Subset(packed)
	if err != nil {
		return err
	}
	side := launchSpec{ks, ss, "msv_seg_kernel", msvProfileWords(ss, Kp, om.Bias, cost), subSeg}
	rawSeg := hostArrays.Get(2 * n)
	defer hostArrays.Put(rawSeg)
	if len(others) == 0 {
		if err := g.launch(ks, ss, side.name, side.prof, nil, subSeg, n, tjbm, rawSeg, scalars...); err != nil {
			return err
		}
		msvScores(om, db.Dsqs, seg, rawSeg, out)
		msvScores(om, db.Dsqs, with, rawSeg, out)
		return nil
	}
	packed = time.Now()
	subO, err := db.Subset(others, ms.T)
	g.Stats.Subset(packed)
	if err != nil {
		return err
	}
	main := launchSpec{k, ms, "msv_kernel", msvProfileWords(ms, Kp, om.Bias, cost), subO}
	rawO := hostArrays.Get(2 * n)
	defer hostArrays.Put(rawO)
	if err := g.launchBeside(side, main, n, tjbm, rawSeg, rawO, scalars...); err != nil {
		return err
	}
	msvScores(om, db.Dsqs, seg, rawSeg, out)
	msvScores(om, db.Dsqs, others, rawO, out)
	return nil
}
