package gpudb

import (
	"encoding/binary"
	"math/rand/v2"
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

// TestPackMatchesDefinition packs random targets for every T and checks
// every byte of every block against the layout's definition.
func TestPackMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	dsqs := make([][]byte, 301)
	for i := range dsqs {
		d := make([]byte, rng.IntN(40))
		for k := range d {
			d[k] = byte(rng.IntN(25))
		}
		dsqs[i] = d
	}
	idx := rng.Perm(len(dsqs))[:250]
	for _, T := range []int{1, 2, 4, 8, 16, 32} {
		S := 32 / T
		// Into a buffer of garbage: every byte must be written.
		junk := make([]byte, 64<<10)
		for i := range junk {
			junk[i] = byte(rng.IntN(256))
		}
		p := packInto(junk, dsqs, whole(dsqs, idx), T)
		if &p.Res[0] != &junk[0] {
			t.Fatalf("T=%d: the buffer was not used", T)
		}
		seen := 0
		for b := 0; b < p.NBlocks; b++ {
			blk := p.Table[b*BlockBytes:]
			maxLen := int(binary.LittleEndian.Uint32(blk[256:]))
			n := int(binary.LittleEndian.Uint32(blk[260:]))
			off := int(binary.LittleEndian.Uint64(blk[264:]))
			for g := 0; g < S; g++ {
				var d []byte
				if g < n {
					d = dsqs[binary.LittleEndian.Uint32(blk[4*g:])]
					if int(binary.LittleEndian.Uint32(blk[128+4*g:])) != len(d) || len(d) > maxLen {
						t.Fatalf("T=%d block %d slot %d: length wrong", T, b, g)
					}
					seen++
				}
				for pos := 0; pos < maxLen; pos++ {
					want := byte(Pad)
					if pos < len(d) {
						want = d[pos]
					}
					if got := p.Res[off+(pos/4)*S*4+g*4+pos%4]; got != want {
						t.Fatalf("T=%d block %d slot %d pos %d: %d, want %d", T, b, g, pos, got, want)
					}
				}
			}
		}
		if seen != len(idx) {
			t.Fatalf("T=%d: %d targets packed, want %d", T, seen, len(idx))
		}
	}
}

func BenchmarkPack(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	dsqs := make([][]byte, 20000)
	res := 0
	for i := range dsqs {
		dsqs[i] = make([]byte, 50+rng.IntN(700))
		res += len(dsqs[i])
	}
	idx := make([]int, len(dsqs))
	for i := range idx {
		idx[i] = i
	}
	b.SetBytes(int64(res))
	for b.Loop() {
		Pack(dsqs, idx, 1)
	}
}
