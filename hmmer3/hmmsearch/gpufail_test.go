package hmmsearch

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestFailedDeviceHandsBack: a device that fails mid-run leaves the run;
// its work goes to the other device (queries dealt) or to the cores
// (targets split), every query its failure reached is searched again,
// and every hit, number and counter is that of a search without the
// failure. The parts have no devices here, so their calls compute on the
// cores as a device would; the failures are $HMMGO_GPU_FAIL's, at each
// stage of the first queries and later, with three queries in flight.
func TestFailedDeviceHandsBack(t *testing.T) {
	// Two rounds of three models: six queries, three in flight, so each
	// device of two takes a few calls even with the queries dealt.
	names := []string{"fn3", "globins4", "Pkinase", "fn3", "globins4", "Pkinase"}
	models, cfg, seqs := testQueries(t, names...)
	type result struct {
		list []*hits.Hit
		st   *hits.Stats
	}
	want := make([]result, len(models))
	for q, m := range models {
		list, st, err := pipeline.Search(m, &pipeline.SliceSource{Seqs: seqs}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			t.Fatalf("%s finds nothing in prot.fa: the test would compare nothing", names[q])
		}
		want[q] = result{list, st}
	}

	// A fault (trap) takes both devices out, with one warning.
	cases := []struct {
		failures map[int]failure
		down     []bool
		warnings int
		says     string
	}{
		{map[int]failure{1: {at: 1}}, []bool{false, true}, 1, errInjected.Error()},
		{map[int]failure{1: {at: 2}}, []bool{false, true}, 1, errInjected.Error()},
		{map[int]failure{1: {at: 3}}, []bool{false, true}, 1, errInjected.Error()},
		{map[int]failure{1: {at: 4}}, []bool{false, true}, 1, errInjected.Error()}, // dealt: device 1's last call
		{map[int]failure{0: {at: 4}}, []bool{true, false}, 1, errInjected.Error()},
		{map[int]failure{0: {at: 2}, 1: {at: 3}}, []bool{true, true}, 2, errInjected.Error()},
		{map[int]failure{1: {at: 1000}}, []bool{false, false}, 0, ""}, // never reached
		{map[int]failure{1: {at: 2, trap: true}}, []bool{true, true}, 1, "a fault breaks every GPU"},
	}
	for _, deal := range []bool{false, true} {
		for _, forward := range []string{"", "gpu"} {
			for _, c := range cases {
				var mu sync.Mutex
				var warned []string
				g := devicelessSearch(seqs, 2, deal, c.failures)
				g.forward, g.handBack = forward, true
				g.warn = func(msg string) { mu.Lock(); warned = append(warned, msg); mu.Unlock() }
				var wg sync.WaitGroup
				got := make([]result, len(models))
				errs := make([]error, len(models))
				for round := 0; round < len(models); round += 3 {
					for q := round; q < round+3; q++ {
						wg.Go(func() {
							got[q].list, got[q].st, errs[q] = g.searchQuery(models[q], nil, cfg, 0, false, nil)
						})
					}
					wg.Wait()
				}
				what := func() string {
					mode := "split"
					if deal {
						mode = "dealt"
					}
					return fmt.Sprintf("%s, forward %q, failures %v", mode, forward, c.failures)
				}
				for q := range models {
					if errs[q] != nil {
						t.Fatalf("%s: %s: %v", what(), names[q], errs[q])
					}
					if !reflect.DeepEqual(got[q], want[q]) {
						t.Errorf("%s: %s: hits or counters differ from a search without the failure", what(), names[q])
					}
				}
				for d, p := range g.parts {
					if p.down.Load() != c.down[d] {
						t.Errorf("%s: device %d out of the run: %v, want %v", what(), d, p.down.Load(), c.down[d])
					}
				}
				if len(warned) != c.warnings {
					t.Errorf("%s: %d warnings, want %d: %q", what(), len(warned), c.warnings, warned)
				}
				for _, w := range warned {
					if !strings.Contains(w, c.says) || !strings.Contains(w, "the run") {
						t.Errorf("%s: warning %q does not say which failure took which device out", what(), w)
					}
				}
			}
		}
	}
}

// TestFailedDeviceWithoutHandBack: where the caller handles failures (a
// worker's task), a failed call is returned as it is and the device
// stays in the run.
func TestFailedDeviceWithoutHandBack(t *testing.T) {
	models, cfg, seqs := testQueries(t, "globins4")
	g := devicelessSearch(seqs, 1, false, map[int]failure{0: {at: 1}})
	_, _, err := g.searchQuery(models[0], nil, cfg, 0, false, nil)
	if !errors.Is(err, errInjected) {
		t.Fatalf("error %v, want the injected failure", err)
	}
	if g.parts[0].down.Load() {
		t.Fatal("the device left the run without hand-back")
	}
}

func TestParseFailures(t *testing.T) {
	f, err := parseFailures("0:3, 2:1:trap")
	if err != nil || !reflect.DeepEqual(f, map[int]failure{0: {at: 3}, 2: {at: 1, trap: true}}) {
		t.Fatalf("parseFailures: %v, %v", f, err)
	}
	if f, err := parseFailures(" "); f != nil || err != nil {
		t.Fatalf("parseFailures of a blank: %v, %v; want none", f, err)
	}
	for _, bad := range []string{"1", "1:0", "-1:2", "a:2", "1:2,", "1:x", "1:2:3", "1:2:trap:4"} {
		if _, err := parseFailures(bad); err == nil || !strings.Contains(err.Error(), failEnv) {
			t.Errorf("parseFailures(%q): error %v, want one naming %s", bad, err, failEnv)
		}
	}
}

// testQueries reads the named testdata models and the protein targets
// they are searched against, with a configuration of two workers.
func testQueries(t *testing.T, names ...string) ([]*pipeline.Model, *pipeline.Config, []*seqio.Sequence) {
	t.Helper()
	dir := testutil.Testdata(t, "hmmer3")
	cfg := pipeline.DefaultConfig()
	cfg.CPUs = 2
	var models []*pipeline.Model
	for _, name := range names {
		m, err := pipeline.NewModel(testmodels.ReadModel(t, filepath.Join(dir, "models", name+".hmm.gz")), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	return models, &cfg, testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), models[0].HMM.Alph)
}

// devicelessSearch is a GPU search of seqs on parts without devices,
// whose calls compute on the cores as a device would: split over them,
// or dealt to them; failures as $HMMGO_GPU_FAIL sets them.
func devicelessSearch(seqs []*seqio.Sequence, parts int, deal bool, failures map[int]failure) *gpuSearch {
	g := &gpuSearch{gpus: make([]*gpuKernels, parts), failures: failures}
	for d := range g.gpus {
		g.gpus[d] = &gpuKernels{}
	}
	g.seqs, g.lens = seqs, make([]int32, len(seqs))
	for i, sq := range seqs {
		g.lens[i] = int32(len(sq.Dsq))
	}
	g.splitTargets(seqs, nil, deal)
	return g
}
