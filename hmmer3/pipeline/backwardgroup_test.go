package pipeline

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestBackwardGroupKeepsParsers: the Backward parsers backwardGroup keeps
// for survivors in groups of neighbours in length are, special row for
// special row, what Backward gives each target alone, whatever the
// group; and an error kept with them stops domain definition at that
// target, as Backward's own did (prepareAll).
func TestBackwardGroupKeepsParsers(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	cfg := DefaultConfig()
	h := testmodels.ReadModel(t, filepath.Join(dir, "models", "Pkinase.hmm.gz"))
	m, err := NewModel(h, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	seqs := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), h.Alph)[:11]
	w := newWorker(m, &cfg, 1)
	defer w.release()

	kept := make([]keptParsers, len(seqs))
	var order []int
	for k, sq := range seqs {
		om := *m.OM
		om.ReconfigLength(len(sq.Dsq))
		fwd := fwdback.NewMatrix()
		if _, err := fwdback.Forward(sq.Dsq, &om, fwd, false); err != nil {
			t.Fatal(err)
		}
		kept[k].fwd = fwdback.NewMatrix()
		kept[k].fwd.KeepSpecials(fwd)
		order = append(order, k)
	}
	slices.SortFunc(order, func(a, b int) int { return len(seqs[a].Dsq) - len(seqs[b].Dsq) })
	target := func(k int) []byte { return seqs[k].Dsq }
	keptOf := func(k int) *keptParsers { return &kept[k] }
	for _, g := range kernelGroups(order) {
		w.backwardGroup(target, keptOf, g)
	}
	for k, sq := range seqs {
		om := *m.OM
		om.ReconfigLength(len(sq.Dsq))
		want := fwdback.NewMatrix()
		_, werr := fwdback.Backward(sq.Dsq, &om, kept[k].fwd, want, false)
		got := kept[k].bck
		if kept[k].err != werr || got.HasOwnScales != want.HasOwnScales || !sameFloat(got.TotScale, want.TotScale) || len(got.X) != len(want.X) {
			t.Fatalf("target %d (L=%d): kept err %v own scales %v total %v rows %d; alone %v %v %v %d", k, len(sq.Dsq),
				kept[k].err, got.HasOwnScales, got.TotScale, len(got.X), werr, want.HasOwnScales, want.TotScale, len(want.X))
		}
		for i := range want.X {
			for s := range want.X[i] {
				if !sameFloat(got.X[i][s], want.X[i][s]) {
					t.Fatalf("target %d (L=%d): special %d of row %d is %v, alone %v", k, len(sq.Dsq), s, i, got.X[i][s], want.X[i][s])
				}
			}
		}
	}

	ts := make([]defTarget, 3)
	for k := range ts {
		ts[k] = defTarget{sq: seqs[k], kept: kept[k]}
	}
	ts[1].kept.err = fwdback.ErrRange
	n, err := w.prepareAll(ts)
	if n != 1 || !errors.Is(err, fwdback.ErrRange) {
		t.Errorf("prepareAll with the second target's Backward failed: %d prepared, %v; want 1, ErrRange", n, err)
	}
	for k := range ts {
		if ts[k].kept.fwd != nil || ts[k].kept.bck != nil {
			t.Errorf("target %d's parsers were not given back", k)
		}
	}
}

func sameFloat(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
