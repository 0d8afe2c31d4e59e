package fwdback_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// Forward scores of many targets on the first GPU; each equals what
// fwdback.Forward returns for that target with the profile configured for
// its length.
func ExampleGPU_ForwardScores() {
	if cuda.Load() != nil {
		return // no driver: use fwdback.Forward
	}
	devs, err := cuda.Devices()
	if err != nil || len(devs) == 0 {
		return
	}
	ctx, err := devs[0].Context()
	if err != nil {
		return
	}
	r, err := hmm.OpenFile("../../testdata/hmmer3/models/fn3.hmm.gz", nil)
	if err != nil {
		return
	}
	h, err := r.Read()
	if err != nil {
		return
	}
	abc := alphabet.New(alphabet.Amino)
	digitize := func(s string) []byte {
		d := make([]byte, len(s))
		for i := range d {
			d[i] = abc.Inmap[s[i]]
		}
		return d
	}
	targets := [][]byte{digitize("PSAPRNLRVTDVTSTSITLSWEPPADGGSPITGYRVEYRE"), digitize("ACDEFGHIKLMNPQRSTVWY"), nil}
	g := fwdback.NewGPU(ctx)
	scores, errs, err := g.ForwardScores(optimized(h), targets, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range targets {
		fmt.Println(scores[i], errs[i])
	}
}
