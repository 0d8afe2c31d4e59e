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
	// EnvelopesOnDevice says whether SearchStaged should use it.
	EnvelopesOnDevice() bool
}

// defineOnDevice is the staged search's domain definition with the
// envelopes of all the query's groups rescored in one call of acc: the
// workers prepare every group (domaindef.Prepare), acc rescores, the
// workers finish each group. Should acc fail, the workers rescore
// instead, so a device error costs time, not hits. hitsOf records a
// group's targets once finished; the error is the first in group order.
func defineOnDevice(acc EnvelopeAccelerator, groups int, targets func(g int) []defTarget, hitsOf func(g int, ts []defTarget),
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
	pending := func(g int) []*domaindef.Pending {
		var ps []*domaindef.Pending
		for k := range preps[g].n {
			ps = append(ps, preps[g].ts[k].p)
		}
		return ps
	}
	var all []*domaindef.Pending
	for g := range preps {
		all = append(all, pending(g)...)
	}
	if domaindef.RescoreOn(acc, all) != nil {
		forEachOf(groups, func(w *worker, g int) error {
			w.ensureScratch()
			w.def.Rescore(pending(g))
			return nil
		})
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
