package hmmsearch

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/lenorder"
	"github.com/hmmgo/hmmgo/internal/makedb"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestStoredPlanOnlyServesTheWholeDatabase: a makedb database read
// whole gives one device its stored plan; split across two devices, or
// read as a shard's subset, or made without the plan, every device plans
// its own. The split is the same either way (no device needed: the
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
		stored  bool
	}{
		{"one device", withPlan, 1, false, true},
		{"two devices", withPlan, 2, false, false},
		{"shard", withPlan, 1, true, false},
		{"no plan", noPlan, 1, false, false},
		// Made by makedb before the plan existed (format version 1 too).
		{"older file", testutil.Testdata(t, "seqdb/globins45-v1-noplan.hmmgo"), 1, false, false},
	} {
		src, err := openSequenceFile(c.db, nil, abc)
		if err != nil {
			t.Fatal(err)
		}
		if c.shard {
			src = &pipeline.SubsetSource{Src: src, Keep: []int64{0, 2, 4, 6, 8}}
		}
		seqs, stored, err := readTargets(src)
		if err != nil {
			t.Fatal(err)
		}
		g := &gpuSearch{}
		for range c.devices {
			g.gpus = append(g.gpus, &gpuKernels{})
		}
		g.split(seqs, stored)
		order := lenorder.LongestFirst(len(seqs), func(i int) int { return len(seqs[i].Dsq) })
		var dealt []int
		for d, p := range g.parts {
			if p.db.HasStoredPlan() != c.stored {
				t.Errorf("%s: device %d uses a stored plan: %v, want %v", c.name, d, p.db.HasStoredPlan(), c.stored)
			}
			for k, i := range p.index {
				if order[d+k*c.devices] != i {
					t.Fatalf("%s: device %d's target %d is %d, want %d", c.name, d, k, i, order[d+k*c.devices])
				}
			}
			dealt = append(dealt, p.index...)
		}
		slices.Sort(dealt)
		if len(dealt) != len(seqs) || len(seqs) == 0 || dealt[len(dealt)-1] != len(seqs)-1 {
			t.Fatalf("%s: %d targets dealt of %d", c.name, len(dealt), len(seqs))
		}
	}
}
