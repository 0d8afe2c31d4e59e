package gpudb

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// randomDsqs is n random targets of every length modulo four up to 400,
// one in twenty empty.
func randomDsqs(rng *rand.Rand, n int) [][]byte {
	dsqs := make([][]byte, n)
	for i := range dsqs {
		L := rng.IntN(400)
		if rng.IntN(20) == 0 {
			L = 0
		}
		d := make([]byte, L)
		for k := range d {
			d[k] = byte(rng.IntN(29))
		}
		dsqs[i] = d
	}
	return dsqs
}

// TestPackInputs checks the arrays pack_layout reads against the plan
// they come from: block offsets, and each entry's first residue in the
// concatenated residues (here a window's, to cover off) and length.
func TestPackInputs(t *testing.T) {
	dsqs := randomDsqs(rand.New(rand.NewPCG(3, 5)), 500)
	p := &devicePacker{start: make([]uint64, len(dsqs))}
	total := uint64(0)
	for i, d := range dsqs {
		p.start[i] = total
		total += uint64(len(d))
	}
	idx := []int{}
	for i := 0; i < len(dsqs); i += 3 {
		idx = append(idx, i)
	}
	for _, T := range []int{1, 4, 32} {
		pl := planLayout(windows(dsqs, idx, 50, 7), T)
		in, startAt, lenAt := p.packInputs(pl)
		if startAt != 8*(pl.nb+1) || lenAt != startAt+8*len(pl.order) || len(in) != lenAt+4*len(pl.order) {
			t.Fatalf("T=%d: arrays at %d, %d of %d bytes for %d blocks, %d entries", T, startAt, lenAt, len(in), pl.nb, len(pl.order))
		}
		for b, o := range pl.offs {
			if got := binary.LittleEndian.Uint64(in[8*b:]); got != uint64(o) {
				t.Fatalf("T=%d: block %d at %d, plan %d", T, b, got, o)
			}
		}
		for k, e := range pl.order {
			s := binary.LittleEndian.Uint64(in[startAt+8*k:])
			n := binary.LittleEndian.Uint32(in[lenAt+4*k:])
			if s != p.start[e.i]+uint64(e.off) || int(n) != e.n {
				t.Fatalf("T=%d: entry %d (%+v) at %d, %d long", T, k, e, s, n)
			}
		}
	}
}

// TestSubsetMatchesHost lays out subsets on lanes, with the database's
// full layout made in between so that the two packings share the
// residues, and compares each byte for byte with Pack's; host packing
// (HMMGO_GPUDB_PACK=host) must give the same through UploadPacked.
// Skipped without a GPU.
func TestSubsetMatchesHost(t *testing.T) {
	ctx := testutil.GPUContext(t)
	rng := rand.New(rand.NewPCG(9, 13))
	dsqs := randomDsqs(rng, 50_000)
	db := New(ctx, dsqs)
	defer db.Free()
	lanes := NewLanes(ctx, 2)
	for _, mode := range []string{"", "host"} {
		t.Setenv("HMMGO_GPUDB_PACK", mode)
		for _, frac := range []int{1, 5, 100, 50_000} {
			var idx []int
			for i := range dsqs {
				if rng.IntN(frac) == 0 {
					idx = append(idx, i)
				}
			}
			if frac == 50_000 {
				idx = idx[:min(len(idx), 1)]
			}
			for _, T := range []int{1, 2, 4, 8, 16, 32} {
				if _, err := db.Layout(T); err != nil {
					t.Fatal(err)
				}
				want := Pack(dsqs, idx, T)
				sub, err := db.Subset(idx, T)
				if err != nil {
					t.Fatal(err)
				}
				ln, err := lanes.Take()
				if err != nil {
					t.Fatal(err)
				}
				d, err := ln.Layout(sub)
				if err == nil {
					err = ln.Stream.Synchronize()
				}
				if err != nil {
					t.Fatal(err)
				}
				sameLayout(t, fmt.Sprintf("mode %q, %d targets, T=%d", mode, len(idx), T), d, want)
				lanes.Give(ln)
			}
		}
	}
}
