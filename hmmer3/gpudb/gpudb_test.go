package gpudb

import (
	"encoding/binary"
	"testing"
)

// TestPackLayout checks the warp-block layout the kernels read: targets
// sorted by length, S = 32/T per block, residues at [pos/4][slot][pos%4],
// padding elsewhere.
func TestPackLayout(t *testing.T) {
	dsqs := [][]byte{{1, 2, 3}, {4, 5, 6, 7, 8, 9}, {}, {10}}
	p := Pack(dsqs, []int{0, 1, 2, 3}, 16) // S = 2
	if p.NBlocks != 2 {
		t.Fatalf("%d blocks, want 2", p.NBlocks)
	}
	blk := func(b int) []byte { return p.Table[b*BlockBytes:] }
	u32 := func(b []byte, off int) int { return int(binary.LittleEndian.Uint32(b[off:])) }
	// Block 0: targets 1 (L=6) and 0 (L=3), padded length 8.
	b0 := blk(0)
	if u32(b0, 0) != 1 || u32(b0, 4) != 0 || u32(b0, 128) != 6 || u32(b0, 256) != 8 || u32(b0, 260) != 2 {
		t.Fatalf("block 0 header wrong: seq %d,%d len %d max %d n %d", u32(b0, 0), u32(b0, 4), u32(b0, 128), u32(b0, 256), u32(b0, 260))
	}
	S := 2
	at := func(off, slot, pos int) byte { return p.Res[off+(pos/4)*S*4+slot*4+pos%4] }
	for pos, x := range dsqs[1] {
		if at(0, 0, pos) != x {
			t.Fatalf("target 1 residue %d misplaced", pos)
		}
	}
	if at(0, 1, 3) != Pad || at(0, 1, 2) != 3 {
		t.Fatal("short target not padded after its end")
	}
	b1 := blk(1)
	if u32(b1, 256) != 4 || u32(b1, 260) != 2 || int(binary.LittleEndian.Uint64(b1[264:])) != 16 {
		t.Fatal("block 1: padded length 4, two targets, residues after block 0's 16 bytes")
	}
}
