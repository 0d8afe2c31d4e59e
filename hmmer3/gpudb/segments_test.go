package gpudb

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestPackSegments checks the segmented layout against its definition
// (segments.go): a warp block a target in the given order, every slot
// the target's number, the padded length warm + seg, slot s holding
// residues [s*seg, (s+1)*seg + warm) and padding past the target's
// end, and the segments [warm + s*seg, warm + (s+1)*seg) (lane 0 from
// 0) tiling the target.
func TestPackSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	dsqs := randomDsqs(rng, 300)
	for _, L := range []int{1, 2, 3, 4, 5, 31, 32, 33, 127, 128, 129, 1000, 5003} {
		d := make([]byte, L)
		for k := range d {
			d[k] = byte(rng.IntN(29))
		}
		dsqs = append(dsqs, d)
	}
	var idx []int
	for i := len(dsqs) - 1; i >= 0; i-- {
		if len(dsqs[i]) > 0 {
			idx = append(idx, i)
		}
	}
	for _, warm := range []int{0, 4, 12, 48} {
		p := PackSegments(dsqs, idx, warm)
		if p.NBlocks != len(idx) {
			t.Fatalf("warm %d: %d blocks for %d targets", warm, p.NBlocks, len(idx))
		}
		for b, i := range idx {
			blk := p.Table[b*BlockBytes:]
			L := len(dsqs[i])
			seg := SegmentLen(L, warm)
			rows := int(binary.LittleEndian.Uint32(blk[256:]))
			off := int(binary.LittleEndian.Uint64(blk[264:]))
			if rows != warm+seg || seg%4 != 0 || warm+SegLanes*seg < L || binary.LittleEndian.Uint32(blk[260:]) != SegLanes {
				t.Fatalf("warm %d target %d (L=%d): %d rows, segments of %d", warm, i, L, rows, seg)
			}
			for s := 0; s < SegLanes; s++ {
				if got := int(binary.LittleEndian.Uint32(blk[4*s:])); got != i {
					t.Fatalf("warm %d block %d slot %d: target %d, want %d", warm, b, s, got, i)
				}
				for r := 0; r < rows; r++ {
					want := byte(Pad)
					if at := s*seg + r; at < L {
						want = dsqs[i][at]
					}
					if got := p.Res[off+(r/4*SegLanes+s)*4+r%4]; got != want {
						t.Fatalf("warm %d target %d (L=%d) slot %d row %d: %d, want %d", warm, i, L, s, r, got, want)
					}
				}
			}
		}
	}
}
