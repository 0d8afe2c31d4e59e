package hmmsearch

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestDevicesReleasedAfterLastQuery: the contexts are given back only
// once the last query has started and every query is done with the
// devices, and then before that query's search returns (its domains are
// defined after its last device call).
func TestDevicesReleasedAfterLastQuery(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	cfg := pipeline.DefaultConfig()
	cfg.CPUs = 2
	var models []*pipeline.Model
	for _, name := range []string{"fn3", "globins4", "Pkinase"} {
		m, err := pipeline.NewModel(testmodels.ReadModel(t, filepath.Join(dir, "models", name+".hmm.gz")), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	seqs := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), models[0].HMM.Alph)
	lens := make([]int32, len(seqs))
	for i, sq := range seqs {
		lens[i] = int32(len(sq.Dsq))
	}
	search := func(lastFirst bool) (*gpuSearch, time.Time) {
		g := &gpuSearch{gpus: []*gpuKernels{{}, {}}}
		g.seqs, g.lens = seqs, lens
		g.splitTargets(seqs, nil, true)
		var mu sync.Mutex
		var last time.Time
		var wg sync.WaitGroup
		for _, m := range models {
			g.queryStarts()
			wg.Go(func() {
				if _, _, err := g.searchQuery(m, nil, &cfg, 0, true); err != nil {
					t.Error(err)
				}
				mu.Lock()
				last = time.Now()
				mu.Unlock()
			})
		}
		if lastFirst {
			g.lastQueryStarted()
		}
		wg.Wait()
		return g, last
	}
	g, _ := search(false)
	if g.releasing.Load() != nil {
		t.Fatal("contexts given back before the last query had started")
	}
	g.lastQueryStarted()
	if !g.releasedWithin(10 * time.Second) {
		t.Fatal("contexts not given back after the last query")
	}
	g, last := search(true)
	g.free()
	if !g.releasedWithin(10*time.Second) || !g.releaseFrom.Before(last) {
		t.Fatalf("contexts given back at %v, the last search returned at %v: not beside its domains", g.releaseFrom, last)
	}
}
