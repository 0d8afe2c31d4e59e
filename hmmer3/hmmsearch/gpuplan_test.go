package hmmsearch

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/lenorder"
	"github.com/hmmgo/hmmgo/internal/makedb"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestStoredPlanOnlyServesTheWholeDatabase: a makedb database read
// whole gives one device its stored plan, and every device when queries
// are dealt (each holds the whole database); split across two devices,
// or read as a shard's subset, or made without the plan, every device
// plans its own. The split is the same either way (no device needed: the
// parts are made, not uploaded).
func TestStoredPlanOnlyServesTheWholeDatabase(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	fasta := testutil.Testdata(t, "globins45.fa")
	dir := t.TempDir()
	withPlan, noPlan := filepath.Join(dir, "plan.hmmgo"), filepath.Join(dir, "noplan.hmmgo")
	if err := makedb.Make(cli.Env{}, fasta, withPlan, abc); err != nil {
		t.Fatal(err)
	}
	if err := makedb.MakeWith(cli.Env{}, fasta, noPlan, abc, makedb.Options{NoGPULayouts: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		db      string
		devices int
		shard   bool
		deal    bool
		stored  bool
	}{
		{"one device", withPlan, 1, false, false, true},
		{"two devices", withPlan, 2, false, false, false},
		{"two devices, queries dealt", withPlan, 2, false, true, true},
		{"three devices, queries dealt, no plan", noPlan, 3, false, true, false},
		{"shard", withPlan, 1, true, false, false},
		{"no plan", noPlan, 1, false, false, false},
		// Made by makedb before the plan existed (format version 1 too).
		{"older file", testutil.Testdata(t, "seqdb/globins45-v1-noplan.hmmgo"), 1, false, false, false},
	} {
		src, err := openSequenceFile(c.db, nil, abc)
		if err != nil {
			t.Fatal(err)
		}
		if c.shard {
			src = &pipeline.SubsetSource{Src: src, Keep: []int64{0, 2, 4, 6, 8}}
		}
		l, err := readTargets(src, nil)
		if err != nil {
			t.Fatal(err)
		}
		seqs := l.seqs
		g := &gpuSearch{}
		for range c.devices {
			g.gpus = append(g.gpus, &gpuKernels{})
		}
		g.splitTargets(seqs, l.stored, c.deal)
		if (g.deal != nil) != c.deal {
			t.Errorf("%s: queries dealt: %v, want %v", c.name, g.deal != nil, c.deal)
		}
		order := lenorder.LongestFirst(len(seqs), func(i int) int { return len(seqs[i].Dsq) })
		first, stride := 1, c.devices
		if c.deal {
			first, stride = 0, 1
		}
		var dealt []int
		for d, p := range g.parts {
			if p.db.HasStoredPlan() != c.stored {
				t.Errorf("%s: device %d uses a stored plan: %v, want %v", c.name, d, p.db.HasStoredPlan(), c.stored)
			}
			for k, i := range p.index {
				if want := order[first*d+k*stride]; want != i {
					t.Fatalf("%s: device %d's target %d is %d, want %d", c.name, d, k, i, want)
				}
			}
			if c.deal && len(p.index) != len(seqs) {
				t.Fatalf("%s: device %d holds %d targets of %d", c.name, d, len(p.index), len(seqs))
			}
			dealt = append(dealt, p.index...)
		}
		slices.Sort(dealt)
		dealt = slices.Compact(dealt)
		if len(dealt) != len(seqs) || len(seqs) == 0 || dealt[len(dealt)-1] != len(seqs)-1 {
			t.Fatalf("%s: %d targets dealt of %d", c.name, len(dealt), len(seqs))
		}
	}
}

// TestDealQueries: with queries dealt, each query runs on the device
// with the fewest running (the lowest number among equals), on that
// device alone, and its end frees the device for the next.
func TestDealQueries(t *testing.T) {
	g := &gpuSearch{gpus: []*gpuKernels{{}, {}}}
	g.splitTargets(nil, nil, true)
	on := func(acc pipeline.Accelerator) *gpuPart {
		v, ok := acc.(gpuOn)
		if !ok || len(v.use) != 1 {
			t.Fatalf("accelerator %T is not one device", acc)
		}
		return v.use[0]
	}
	a, doneA := g.forQuery(0)
	b, doneB := g.forQuery(0)
	c, doneC := g.forQuery(0)
	if on(a) != g.parts[0] || on(b) != g.parts[1] || on(c) != g.parts[0] {
		t.Fatal("three queries were not dealt to devices 0, 1, 0")
	}
	doneA()
	doneC()
	if d, doneD := g.forQuery(0); on(d) != g.parts[0] {
		t.Fatal("a query did not go to the idle device 0")
	} else {
		doneD()
	}
	doneB()
	split := &gpuSearch{gpus: []*gpuKernels{{}, {}}}
	split.splitTargets(nil, nil, false)
	if acc, done := split.forQuery(0); len(acc.(gpuOn).use) != 2 {
		t.Fatal("a split search's query did not run on every device")
	} else {
		done()
	}
}

// splitTargets is planSplit over g's devices, attached, as a search
// makes them (tests build searches without devices).
func (g *gpuSearch) splitTargets(seqs []*seqio.Sequence, stored *gpudb.StoredPlan, deal bool) {
	g.attach(planSplit(seqs, stored, deal, len(g.gpus)))
}
