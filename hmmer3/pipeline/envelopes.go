package pipeline

import (
	"github.com/hmmgo/hmmgo/hmmer3/domaindef"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
)

// EnvelopeAccelerator is an Accelerator that can also rescore domain
// definition's envelopes, with the bits of the cores (fwdback.EnvRescorer).
type EnvelopeAccelerator interface {
	Accelerator
	fwdback.EnvRescorer
	// EnvelopeShare says how SearchStaged divides a query's envelopes
	// between the accelerator and the cores; nil: the cores rescore them
	// all, and the accelerator is not asked.
	EnvelopeShare() *EnvelopeShare
}

// defineOnDevice is the staged search's domain definition with the
// envelopes of all the query's groups rescored at once, by acc and by
// the workers as acc's EnvelopeShare divides them: the workers prepare
// every group (domaindef.Prepare), then acc rescores its part in one call
// while the workers rescore theirs, then the workers finish each group.
// Should acc fail, the workers rescore its part too, so a device error
// costs time, not hits. hitsOf records a group's targets once finished;
// the error is the first in group order.
func defineOnDevice(acc EnvelopeAccelerator, workers, groups int, targets func(g int) []defTarget, hitsOf func(g int, ts []defTarget),
	forEachOf func(count int, fn func(w *worker, k int) error) error) error {
	type prepared struct {
		ts   []defTarget
		n    int
		stop error
	}
	preps := make([]prepared, groups)
	forEachOf(groups, func(w *worker, g int) error {
		ts := targets(g)
		n, stop := w.prepareAll(ts)
		preps[g] = prepared{ts, n, stop}
		return nil
	})
	var all []*domaindef.Pending
	for g := range preps {
		for k := range preps[g].n {
			all = append(all, preps[g].ts[k].p)
		}
	}
	cores, device := acc.EnvelopeShare().divide(all)
	done := make(chan error)
	go func() { done <- domaindef.RescoreOn(acc, device) }()
	rescoreOnCores(cores, workers, forEachOf)
	if <-done != nil {
		rescoreOnCores(device, workers, forEachOf)
	}
	errs := make([]error, groups)
	forEachOf(groups, func(w *worker, g int) error {
		p := &preps[g]
		errs[g] = w.finishAll(p.ts[:p.n], p.stop)
		hitsOf(g, p.ts)
		return nil
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// rescoreOnCores rescores the envelopes of ps on the workers, in chunks
// of neighbours in ps, each worker taking the next chunk as it finishes.
// A chunk holds up to fwdback.EnvGroup() envelopes, rescored together,
// but fewer where that would leave some of the workers idle.
func rescoreOnCores(ps []*domaindef.Pending, workers int, forEachOf func(count int, fn func(w *worker, k int) error) error) {
	envs := 0
	for _, p := range ps {
		envs += p.Envelopes()
	}
	most := max(1, min(fwdback.EnvGroup(), envs/max(1, workers)))
	var chunks [][]*domaindef.Pending
	for k := 0; k < len(ps); {
		n, in := 1, ps[k].Envelopes()
		for k+n < len(ps) && in+ps[k+n].Envelopes() <= most {
			in += ps[k+n].Envelopes()
			n++
		}
		chunks = append(chunks, ps[k:k+n])
		k += n
	}
	forEachOf(len(chunks), func(w *worker, k int) error {
		w.ensureScratch()
		w.def.Rescore(chunks[k])
		return nil
	})
}
