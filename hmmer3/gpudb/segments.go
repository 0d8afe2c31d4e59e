package gpudb

import (
	"encoding/binary"
	"fmt"
)

// Segmented layouts, for a kernel that runs one long target on a whole
// warp (one thread a target, 32 lanes): the target is cut into 32
// consecutive segments, lane s walking segment s, and each lane but the
// first also walks the warm rows before its segment. The block is an
// ordinary warp block of 32 slots, so the kernel reads it as any other:
// slot s holds residues [s*seg, (s+1)*seg + warm) of the target, where
// seg = SegmentLen(L, warm). Lane 0's slot starts at the target's start,
// so its first warm rows are the target's own (segment 0 is warm + seg
// rows long); lane s >= 1's first warm rows end where its segment,
// [warm + s*seg, warm + (s+1)*seg), starts. Every slot's rows past the
// target's end are padding, as in any block; the block's padded length
// is warm + seg, whatever the slots hold. The table's seq entries are
// the target's number in every slot, and its count is -1: the mark of a
// segmented block. A layout may go on with plain blocks of one thread a
// target (Pack's), so that one launch runs a whole pass.

// SegLanes is the segments a target is cut into: a warp's lanes.
const SegLanes = 32

// SegmentLen is the rows of each segment (but the first's warm rows) of
// a target of L residues: the rows after the first warm ones over the
// lanes, rounded up to whole words of four, at least one word.
func SegmentLen(L, warm int) int {
	n := (L - warm + SegLanes - 1) / SegLanes
	return max(4, (n+3)&^3)
}

// segments is the SegLanes slots of each target of idx.
func segments(dsqs [][]byte, idx []int, warm int) []entry {
	es := make([]entry, 0, SegLanes*len(idx))
	for _, i := range idx {
		L := len(dsqs[i])
		seg := SegmentLen(L, warm)
		for s := 0; s < SegLanes; s++ {
			lo := min(L, s*seg)
			es = append(es, entry{i, lo, min(L, (s+1)*seg+warm) - lo})
		}
	}
	return es
}

// segmentedBlock is the count a segmented block's table entry holds.
const segmentedBlock = 0xffffffff // -1 as the kernels' int

// planSegments is the segmented layout of targets idx, in idx's order,
// a warp block each, then the plain layout of targets others (for one
// thread a target: planLayout's blocks, offsets shifted).
func planSegments(dsqs [][]byte, idx, others []int, warm int) *layoutPlan {
	if warm < 0 || warm%4 != 0 {
		panic(fmt.Sprintf("gpudb: warm rows %d, want a multiple of 4", warm))
	}
	order := segments(dsqs, idx, warm)
	nb := len(idx)
	pl := &layoutPlan{S: SegLanes, nb: nb, order: order, offs: make([]int, nb+1), table: make([]byte, nb*BlockBytes)}
	for b, i := range idx {
		blk := pl.table[b*BlockBytes : (b+1)*BlockBytes]
		putBlock(blk, pl.group(b), SegLanes, pl.offs[b])
		rows := warm + SegmentLen(len(dsqs[i]), warm)
		binary.LittleEndian.PutUint32(blk[256:], uint32(rows))
		binary.LittleEndian.PutUint32(blk[260:], segmentedBlock)
		pl.offs[b+1] = pl.offs[b] + rows*SegLanes
	}
	if len(others) == 0 {
		return pl
	}
	plain := planLayout(whole(dsqs, others), 1)
	base := pl.offs[nb]
	for b := 0; b < plain.nb; b++ {
		blk := plain.table[b*BlockBytes : (b+1)*BlockBytes]
		binary.LittleEndian.PutUint64(blk[264:], uint64(base+plain.offs[b]))
		pl.offs = append(pl.offs, base+plain.offs[b+1])
	}
	pl.table = append(pl.table, plain.table...)
	pl.order = append(pl.order, plain.order...)
	pl.nb += plain.nb
	return pl
}

// PackSegments lays out targets idx of dsqs segmented (a warp block
// each, in idx's order) with warm rows before each segment, then targets
// others plainly for one thread a target: the host counterpart of
// DB.Segments.
func PackSegments(dsqs [][]byte, idx, others []int, warm int) *Packed {
	return packPlan(nil, dsqs, planSegments(dsqs, idx, others, warm))
}

// Segments plans the segmented layout of targets idx, then the plain one
// of targets others (database numbers), as Subset plans a plain one:
// packed on the launch's lane.
func (db *DB) Segments(idx, others []int, warm int) (*Subset, error) {
	return db.subsetOf(planSegments(db.Dsqs, idx, others, warm), "segments")
}
