package gpudb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/lenorder"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

// storedDB writes dsqs (database order) as a database with the plan of
// shapes Ts, as makedb does, and opens it.
func storedDB(t *testing.T, dsqs [][]byte, Ts []int) *seqdb.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.hmmgo")
	writeDB(t, path, dsqs, func(w *seqdb.Writer, lens []uint32) error { return AddStoredPlan(w, lens, Ts) })
	db, err := seqdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func writeDB(t *testing.T, path string, dsqs [][]byte, extra func(*seqdb.Writer, []uint32) error) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := seqdb.NewWriter(f, alphabet.New(alphabet.Amino), seqdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lens := make([]uint32, len(dsqs))
	for i, d := range dsqs {
		lens[i] = uint32(len(d))
		if err := w.Add(&seqio.Sequence{Name: "s", Dsq: d}); err != nil {
			t.Fatal(err)
		}
	}
	if err := extra(w, lens); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// inOrder is the database's targets in the stored order, as hmmsearch
// --gpu on one device holds them.
func inOrder(db *seqdb.DB, order []int) [][]byte {
	dsqs := make([][]byte, len(order))
	for k, i := range order {
		dsqs[k] = db.Residues(i)
	}
	return dsqs
}

// lengthsDsqs is random targets with many ties, empty ones, and some
// longer than 65,535 (lenorder's second radix pass).
func lengthsDsqs(rng *rand.Rand, n int) [][]byte {
	dsqs := randomDsqs(rng, n)
	for i := range dsqs {
		switch rng.IntN(50) {
		case 0:
			dsqs[i] = make([]byte, 65536+rng.IntN(3000))
		case 1:
			dsqs[i] = make([]byte, 120) // ties
		}
	}
	return dsqs
}

// TestStoredPlanIsThePlan: makedb's order and tables are, byte for byte,
// what the run-time planning makes for the same targets, for every shape,
// and a database given them uses them (the table is the file's bytes).
func TestStoredPlanIsThePlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	all := []int{1, 2, 4, 8, 16, 32}
	for _, n := range []int{1, 31, 33, 5000} {
		dsqs := lengthsDsqs(rng, n)
		sdb := storedDB(t, dsqs, all)
		sp, err := LoadStoredPlan(sdb)
		if err != nil || sp == nil {
			t.Fatalf("n=%d: no stored plan: %v", n, err)
		}
		want := lenorder.LongestFirst(n, func(i int) int { return len(dsqs[i]) })
		if !slices.Equal(sp.Order, want) {
			t.Fatalf("n=%d: stored order differs from LongestFirst", n)
		}
		part := inOrder(sdb, sp.Order)
		db := New(nil, part)
		if !db.UseStoredPlan(sp) {
			t.Fatalf("n=%d: plan refused", n)
		}
		for _, T := range all {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			planned := planLayout(whole(part, idx), T)
			got, err := db.planFor(layoutKey{T: T})
			if err != nil {
				t.Fatal(err)
			}
			tab, _ := sdb.Section(TagBlockTable, uint64(T))
			if got.order != nil || &got.table[0] != &tab[0] {
				t.Fatalf("n=%d T=%d: the stored table was not used", n, T)
			}
			if !bytes.Equal(got.table, planned.table) || !slices.Equal(got.offs, planned.offs) || got.nb != planned.nb || got.count() != planned.count() {
				t.Fatalf("n=%d T=%d: stored plan differs from the planned one", n, T)
			}
			for b := 0; b < got.nb; b++ {
				g, p := got.group(b), planned.group(b)
				for j := range p {
					if g[j] != p[j] {
						t.Fatalf("n=%d T=%d block %d: entry %d is %+v, planned %+v", n, T, b, j, g[j], p[j])
					}
				}
			}
			// Packed from either plan: the same bytes.
			a, b := packPlan(nil, part, got), packPlan(nil, part, planned)
			if !bytes.Equal(a.Res, b.Res) || !bytes.Equal(a.Table, b.Table) {
				t.Fatalf("n=%d T=%d: packings differ", n, T)
			}
			// And the packing kernel's inputs.
			pk := &devicePacker{start: make([]uint64, n)}
			s := uint64(0)
			for i, d := range part {
				pk.start[i], s = s, s+uint64(len(d))
			}
			x, _, _ := pk.packInputs(got)
			y, _, _ := pk.packInputs(planned)
			if !bytes.Equal(x, y) {
				t.Fatalf("n=%d T=%d: packing inputs differ", n, T)
			}
		}
		// Windowed layouts are planned at run time.
		if pl, _ := db.planFor(layoutKey{T: 4, step: 64, overlap: 9}); pl.order == nil {
			t.Fatalf("n=%d: a windowed layout came from the stored plan", n)
		}
	}
}

// TestStoredPlanShapesAndSplits: shapes without a stored table, a
// database split across devices (another number of targets), and files
// without a plan are all planned at run time, as before.
func TestStoredPlanShapesAndSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	dsqs := lengthsDsqs(rng, 999)
	sdb := storedDB(t, dsqs, []int{1, 8})
	sp, err := LoadStoredPlan(sdb)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Threads(); !slices.Equal(got, []int{1, 8}) {
		t.Fatalf("stored shapes %v", got)
	}
	part := inOrder(sdb, sp.Order)
	db := New(nil, part)
	db.UseStoredPlan(sp)
	if pl, _ := db.planFor(layoutKey{T: 4}); pl.order == nil {
		t.Fatal("T=4 has no stored table but did not plan")
	}
	// Two devices: every other target of the order.
	for d := 0; d < 2; d++ {
		var half [][]byte
		for k := d; k < len(part); k += 2 {
			half = append(half, part[k])
		}
		hdb := New(nil, half)
		if hdb.UseStoredPlan(sp) {
			t.Fatalf("device %d of 2 took the whole database's plan", d)
		}
		pl, err := hdb.planFor(layoutKey{T: 8})
		if err != nil || pl.order == nil {
			t.Fatalf("device %d of 2: not planned at run time (%v)", d, err)
		}
		idx := make([]int, len(half))
		for i := range idx {
			idx[i] = i
		}
		if !bytes.Equal(pl.table, planLayout(whole(half, idx), 8).table) {
			t.Fatalf("device %d of 2: plan differs", d)
		}
	}
	// A file made without the plan.
	path := filepath.Join(t.TempDir(), "old.hmmgo")
	writeDB(t, path, dsqs, func(*seqdb.Writer, []uint32) error { return nil })
	old, err := seqdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if sp, err := LoadStoredPlan(old); sp != nil || err != nil {
		t.Fatalf("a file without a plan gave %v, %v", sp, err)
	}
}

// TestStoredPlanErrors: a table that does not match its sequences, or
// has the wrong size, is an error naming the file; so is a damaged one
// (its checksum) and a bad length order.
func TestStoredPlanErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 37))
	dsqs := lengthsDsqs(rng, 300)
	dir := t.TempDir()
	otherLens := make([]uint32, len(dsqs))
	for i := range otherLens {
		otherLens[i] = uint32(rng.IntN(500))
	}
	var good bytes.Buffer
	lens := make([]uint32, len(dsqs))
	for i, d := range dsqs {
		lens[i] = uint32(len(d))
	}
	order := lenorder.LongestFirst(len(lens), func(i int) int { return int(lens[i]) })
	if err := WriteBlockTable(&good, len(order), func(k int) int { return int(lens[order[k]]) }, 4); err != nil {
		t.Fatal(err)
	}
	lord, _ := seqdb.EncodeLengthOrder(order)
	for _, c := range []struct {
		name  string
		extra func(w *seqdb.Writer, lens []uint32) error
		want  string
	}{
		{"other lengths", func(w *seqdb.Writer, _ []uint32) error {
			// The order is right; the table was planned for other lengths.
			if err := w.AddSection(seqdb.TagLengthOrder, 0, 0, lord); err != nil {
				return err
			}
			var tb bytes.Buffer
			oo := lenorder.LongestFirst(len(otherLens), func(i int) int { return int(otherLens[i]) })
			WriteBlockTable(&tb, len(oo), func(k int) int { return int(otherLens[oo[k]]) }, 4)
			return w.AddSection(TagBlockTable, 4, 0, tb.Bytes())
		}, "section WTAB/4 does not match the sequences at block 1"},
		{"short table", func(w *seqdb.Writer, _ []uint32) error {
			w.AddSection(seqdb.TagLengthOrder, 0, 0, lord)
			return w.AddSection(TagBlockTable, 4, 0, good.Bytes()[:good.Len()-BlockBytes])
		}, "section WTAB/4 has 10064 bytes; a block table of 300 sequences has 10336"},
		{"bad order", func(w *seqdb.Writer, _ []uint32) error {
			bad := bytes.Clone(lord)
			copy(bad[0:4], lord[4:8])
			return w.AddSection(seqdb.TagLengthOrder, 0, 0, bad)
		}, "section LORD is not an order of the 300 sequences (entry 2)"},
		{"unsorted order", func(w *seqdb.Writer, _ []uint32) error {
			bad := bytes.Clone(lord)
			copy(bad[0:4], lord[len(lord)-4:])
			copy(bad[len(lord)-4:], lord[0:4])
			return w.AddSection(seqdb.TagLengthOrder, 0, 0, bad)
		}, "section LORD is not longest first at entry 2"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".hmmgo")
		writeDB(t, path, dsqs, c.extra)
		sdb, err := seqdb.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sp, err := LoadStoredPlan(sdb)
		if err == nil {
			db := New(nil, inOrder(sdb, sp.Order))
			db.UseStoredPlan(sp)
			_, err = db.planFor(layoutKey{T: 4})
		}
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q naming the file", c.name, err, c.want)
		}
		sdb.Close()
	}
	// A damaged table: the checksum catches it when the file is opened.
	path := filepath.Join(dir, "damaged.hmmgo")
	writeDB(t, path, dsqs, func(w *seqdb.Writer, lens []uint32) error { return AddStoredPlan(w, lens, []int{1, 8}) })
	b, _ := os.ReadFile(path)
	sdb, err := seqdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tab8, _ := sdb.Section(TagBlockTable, 8)
	at := bytes.Index(b, tab8[:64])
	sdb.Close()
	b[at+5] ^= 1
	os.WriteFile(path, b, 0o644)
	if _, err := seqdb.Open(path); err == nil || err.Error() != path+": checksum mismatch in section WTAB/8 (the file is corrupt)" {
		t.Errorf("damaged table: %v", err)
	}
}

// TestStoredPlanOnDevice makes every stored shape's layout on the GPU
// from the file's table and compares it with Pack's. Skipped without a
// GPU.
func TestStoredPlanOnDevice(t *testing.T) {
	ctx := testutil.GPUContext(t)
	rng := rand.New(rand.NewPCG(41, 43))
	for _, n := range []int{1, 37, 30_000} {
		sdb := storedDB(t, lengthsDsqs(rng, n), []int{1, 2, 4, 8, 16, 32})
		sp, err := LoadStoredPlan(sdb)
		if err != nil {
			t.Fatal(err)
		}
		part := inOrder(sdb, sp.Order)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		db := New(ctx, part)
		db.UseStoredPlan(sp)
		for _, T := range []int{1, 2, 4, 8, 16, 32} {
			want := Pack(part, all, T)
			d, err := db.Layout(T)
			if err != nil {
				t.Fatal(err)
			}
			sameLayout(t, fmt.Sprintf("n=%d T=%d", n, T), d, want)
		}
		db.Free()
	}
}
