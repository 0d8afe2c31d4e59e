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
// the sequential result (msv.cu: msv_seg_kernel has the argument), in a
// launch on a side stream beside msv_kernel over the others (split.go's
// launchBeside).

// segMaxM is the largest model the segmented kernel runs: one thread a
// target holds the whole model (T = 1), as the MSV pass's own shape does
// below 48 nodes (msvNodesFor); wider rows would not fit the registers.
const segMaxM = 47

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

// segRows is the length past which an undecided target of a pass is
// segmented, or 0 for none: GPU.SegRows if set, else segRowsFor.
func (g *GPU) segRows(M int) int {
	if M > segMaxM || g.SegRows < 0 {
		return 0
	}
	if g.SegRows > 0 {
		return g.SegRows
	}
	return segRowsFor(M)
}

// segRowsFor is the default segmentation length: none yet.
func segRowsFor(M int) int { return 0 }

// segmentLong divides the undecided targets rest into those the pass
// segments and the others, both in rest's order.
func (g *GPU) segmentLong(M int, dsqs [][]byte, rest []int) (seg, others []int) {
	rows := g.segRows(M)
	if rows <= 0 {
		return nil, rest
	}
	for _, i := range rest {
		if len(dsqs[i]) > rows {
			seg = append(seg, i)
		} else {
			others = append(others, i)
		}
	}
	return seg, others
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
	packed := time.Now()
	subSeg, err := db.Segments(seg, ss.segWarm())
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
