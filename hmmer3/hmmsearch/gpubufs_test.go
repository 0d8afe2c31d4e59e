package hmmsearch

import (
	"math/rand"
	"testing"
)

// The GPU wrappers' per-device passes: selection in the device's order
// (wanted and not empty) and scores back into database order, on a
// permutation as large as several ForChunks chunks.
func TestPartSelectAndScatter(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := 100_000
	p := &gpuPart{index: rng.Perm(n), lens: make([]int32, n)}
	p.setPositions(n)
	for i := range p.lens {
		p.lens[i] = int32(rng.Intn(3))
	}
	want := make([]bool, n)
	for i := range want {
		want[i] = rng.Intn(4) == 0
	}
	sel := partSel.Get(n)
	for i := range sel {
		sel[i] = true // a reused slice: stale values must not survive
	}
	if !p.selectPart(want, sel) {
		t.Fatal("nothing selected")
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i)
	}
	all, some := make([]float32, n), make([]float32, n)
	for i := range some {
		some[i] = -1
	}
	p.scatter(out, nil, all)
	p.scatter(out, want, some)
	for i, db := range p.index {
		if s := want[db] && p.lens[i] > 0; sel[i] != s {
			t.Fatalf("target %d (db %d): selected %v, want %v", i, db, sel[i], s)
		}
		if all[db] != float32(i) {
			t.Fatalf("db %d: score %v, want %v", db, all[db], i)
		}
		if w := map[bool]float32{true: float32(i), false: -1}[sel[i]]; some[db] != w {
			t.Fatalf("db %d: selected score %v, want %v", db, some[db], w)
		}
	}
	none := make([]bool, n)
	if p.selectPart(none, sel) {
		t.Error("selected targets that nobody wanted")
	}
}

// TestPartsShareDatabase: with two devices each holding every other
// target, each part selects and scatters its own targets only.
func TestPartsShareDatabase(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	n := 50_000
	order := rng.Perm(n)
	parts := []*gpuPart{{}, {}}
	for r, db := range order {
		p := parts[r%2]
		p.index = append(p.index, db)
		p.lens = append(p.lens, int32(rng.Intn(3)))
	}
	want := make([]bool, n)
	for i := range want {
		want[i] = rng.Intn(3) == 0
	}
	all, some := make([]float32, n), make([]float32, n)
	for i := range some {
		all[i], some[i] = -1, -1
	}
	for d, p := range parts {
		p.setPositions(n)
		sel := make([]bool, len(p.index))
		p.selectPart(want, sel)
		out := make([]float32, len(p.index))
		for i := range out {
			out[i] = float32(1000*d + i)
		}
		p.scatter(out, nil, all)
		p.scatter(out, want, some)
		for i, db := range p.index {
			if s := want[db] && p.lens[i] > 0; sel[i] != s {
				t.Fatalf("device %d target %d: selected %v, want %v", d, i, sel[i], s)
			}
		}
	}
	for d, p := range parts {
		for i, db := range p.index {
			v := float32(1000*d + i)
			if all[db] != v {
				t.Fatalf("db %d: score %v, want %v", db, all[db], v)
			}
			if want[db] && p.lens[i] > 0 {
				if some[db] != v {
					t.Fatalf("db %d: selected score %v, want %v", db, some[db], v)
				}
			} else if some[db] != -1 {
				t.Fatalf("db %d (not selected): written", db)
			}
		}
	}
}
