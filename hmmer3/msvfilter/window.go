package msvfilter

import "github.com/hmmgo/hmmgo/hmmer3/gpudb"

// The SSV pass on the GPU over windows of long targets (gpudb/window.go
// has the exactness argument). At small model lengths a warp aligns many
// targets at once and the database makes few warp blocks per warp, so
// the kernel lasted as long as the warps holding the longest targets took
// to walk them row by row, most of the device idle meanwhile. Windows of
// about the rows an average warp walks balance the warps.

// minStepOverlaps bounds the windows' waste: a window's first overlap rows
// repeat its neighbour's, so the step is at least this many overlaps.
const minStepOverlaps = 4

// windowOverlap is the windows' overlap for a model of M nodes on T
// threads a target of at least n nodes a thread: at least M-1, and the
// same for every M that shapeForNodes gives the same T (M < 2nT for T <
// 32), so that one windowed layout per T serves all those models, as
// Layout(T) does for whole targets.
func windowOverlap(T, M, n int) int {
	if T < 32 {
		return max(M-1, 2*n*T-2)
	}
	return (M - 1 + 255) &^ 255
}

// ssvWindows returns the step and overlap of the windows the SSV pass
// cuts db's long targets into, or 0, 0 to keep every target whole. The
// step is about the rows an average warp walks over the database (its
// residues over the targets all resident warps hold at once), scaled by
// WindowScale, at least minStepOverlaps overlaps.
func (g *GPU) ssvWindows(s gpuShape, M int, db *gpudb.DB) (step, overlap int) {
	if g.WindowStep < 0 {
		return 0, 0
	}
	overlap = windowOverlap(s.T, M, g.nodes(M))
	step = g.WindowStep
	if step == 0 {
		warps := gpudb.PersistentGrid(g.ctx, s.Block, s.ssvSharedBytes()) * s.Block / 32
		scale := g.WindowScale
		if scale == 0 {
			scale = 1
		}
		perWarp := scale * float64(db.Residues()) / float64(warps*(32/s.T))
		step = max(int(perWarp), minStepOverlaps*overlap, 64)
		step = (step + 31) &^ 31
	}
	if db.MaxLen() <= step+overlap {
		return 0, 0
	}
	return step, overlap
}
