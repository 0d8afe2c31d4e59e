package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// TestScratchPerCore: staged searches of several queries at once, each
// with more workers than cores, hold at most one worker scratch per core
// (scratchSlots), and find what each finds alone.
func TestScratchPerCore(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	var models []*Model
	cfg := DefaultConfig()
	cfg.CPUs = 8
	cfg.Max = true // every target reaches Forward and most domain definition
	var alone []string
	for _, name := range []string{"fn3", "Pkinase", "globins4", "Caudal_act"} {
		h := testmodels.ReadModel(t, filepath.Join(dir, "models", name+".hmm.gz"))
		m, err := NewModel(h, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	seqs := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), models[0].HMM.Alph)
	summary := func(list []*hits.Hit) string {
		s := fmt.Sprint(len(list))
		for _, h := range list {
			s += fmt.Sprintf(" %s %.4f %d", h.Name, h.Score, len(h.Domains))
		}
		return s
	}
	for _, m := range models {
		list, _, err := SearchStaged(m, seqs, nil, &cfg, CPUAccelerator{Seqs: seqs})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, summary(list))
	}
	// Once with the scratch kept whole, once with its matrices freed each
	// time it goes back to the pool (HMMGO_SCRATCH_KEEP_MB=0).
	saved := scratchKeepBytes
	defer func() { scratchKeepBytes = saved }()
	for _, keep := range []int{-1, 0} {
		scratchKeepBytes = func() int { return keep }
		atOnce(t, models, seqs, &cfg, alone, summary)
	}
}

// atOnce runs three staged searches of each model at once and checks
// their hits against alone's and the scratch bound.
func atOnce(t *testing.T, models []*Model, seqs []*seqio.Sequence, cfg *Config, alone []string, summary func([]*hits.Hit) string) {
	scratchPeak.Store(scratchOut.Load())
	got := make([]string, 3*len(models))
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			list, _, err := SearchStaged(models[i%len(models)], seqs, nil, cfg, CPUAccelerator{Seqs: seqs})
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = summary(list)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != alone[i%len(models)] {
			t.Errorf("query %d at once with others: %.200s, alone %.200s", i, g, alone[i%len(models)])
		}
	}
	if peak, cores := scratchPeak.Load(), int64(runtime.GOMAXPROCS(0)); peak > cores {
		t.Errorf("%d queries of %d workers held %d scratches at once on %d cores", len(got), cfg.CPUs, peak, cores)
	}
	if scratchOut.Load() != 0 {
		t.Errorf("%d scratches not given back", scratchOut.Load())
	}
}

// stagesAcc is a CallsDone accelerator that records how many queries the
// scratch slots count on the devices at its calls; failVit makes its
// Viterbi filter fail.
type stagesAcc struct {
	CPUAccelerator
	failVit        bool
	atMSV, atCalls int
	callsDone      int
}

func (a *stagesAcc) MSV(om *oprofile.Profile) ([]float32, error) {
	a.atMSV = onDeviceNow()
	return a.CPUAccelerator.MSV(om)
}

func (a *stagesAcc) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	if a.failVit {
		return nil, errors.New("injected")
	}
	return a.CPUAccelerator.Viterbi(om, want)
}

func (a *stagesAcc) CallsDone() {
	a.callsDone++
	a.atCalls = onDeviceNow()
}

func onDeviceNow() int {
	q := scratchSlots()
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.onDevice
}

// TestDeviceStagesCounted: a staged search with a CallsDone accelerator
// counts as on the devices from its start until it tells the accelerator
// (its later tasks are then served after the urgent ones), or until it
// fails, when the accelerator is not told.
func TestDeviceStagesCounted(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer3")
	h := testmodels.ReadModel(t, filepath.Join(dir, "models", "globins4.hmm.gz"))
	seqs := testmodels.ReadSequences(t, filepath.Join(dir, "prot.fa"), h.Alph)
	cfg := DefaultConfig()
	cfg.CPUs = 2
	m, err := NewModel(h, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := onDeviceNow()
	ok := &stagesAcc{CPUAccelerator: CPUAccelerator{Seqs: seqs}}
	if _, _, err := SearchStaged(m, seqs, nil, &cfg, ok); err != nil {
		t.Fatal(err)
	}
	if ok.atMSV != base+1 || ok.atCalls != base || ok.callsDone != 1 || onDeviceNow() != base {
		t.Errorf("counted %d at MSV, %d at CallsDone (told %d times), %d after; want %d, %d, 1, %d",
			ok.atMSV, ok.atCalls, ok.callsDone, onDeviceNow(), base+1, base, base)
	}
	failing := &stagesAcc{CPUAccelerator: CPUAccelerator{Seqs: seqs}, failVit: true}
	if _, _, err := SearchStaged(m, seqs, nil, &cfg, failing); err == nil {
		t.Fatal("the failing Viterbi filter's error was lost")
	}
	if failing.callsDone != 0 || onDeviceNow() != base {
		t.Errorf("after a failure: told %d times, %d counted; want 0 and %d", failing.callsDone, onDeviceNow(), base)
	}
}
