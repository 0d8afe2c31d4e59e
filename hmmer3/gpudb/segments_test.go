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
// 0) tiling the target; then the plain blocks of the other targets,
// Pack's for one thread a target with their offsets shifted.
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
	var idx, others []int
	for i := len(dsqs) - 1; i >= 0; i-- {
		if len(dsqs[i]) > 0 && (len(dsqs[i]) > 250 || i%2 == 0) {
			idx = append(idx, i)
		} else {
			others = append(others, i)
		}
	}
	plain := Pack(dsqs, others, 1)
	for _, warm := range []int{0, 4, 12, 48} {
		p := PackSegments(dsqs, idx, others, warm)
		if p.NBlocks != len(idx)+plain.NBlocks {
			t.Fatalf("warm %d: %d blocks for %d targets and %d plain blocks", warm, p.NBlocks, len(idx), plain.NBlocks)
		}
		base := int(binary.LittleEndian.Uint64(p.Table[len(idx)*BlockBytes+264:]))
		for b := 0; b < plain.NBlocks; b++ {
			got, want := p.Table[(len(idx)+b)*BlockBytes:][:BlockBytes], plain.Table[b*BlockBytes:][:BlockBytes]
			off := int(binary.LittleEndian.Uint64(want[264:]))
			if string(got[:264]) != string(want[:264]) || int(binary.LittleEndian.Uint64(got[264:])) != base+off {
				t.Fatalf("warm %d: plain block %d differs from Pack's", warm, b)
			}
		}
		if string(p.Res[base:]) != string(plain.Res) {
			t.Fatalf("warm %d: plain residues differ from Pack's", warm)
		}
		for b, i := range idx {
			blk := p.Table[b*BlockBytes:]
			L := len(dsqs[i])
			seg := SegmentLen(L, warm)
			rows := int(binary.LittleEndian.Uint32(blk[256:]))
			off := int(binary.LittleEndian.Uint64(blk[264:]))
			if rows != warm+seg || seg%4 != 0 || warm+SegLanes*seg < L || binary.LittleEndian.Uint32(blk[260:]) != segmentedBlock {
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
