package fwdback_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// Forward filter scores of a batch of targets, paired on AVX2 machines:
// each equals fwdback.Forward's for that target with the profile
// configured for its length.
func ExampleForwardBatch() {
	r, err := hmm.OpenFile("../../testdata/hmmer3/models/fn3.hmm.gz", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		fmt.Println(err)
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
	targets := [][]byte{digitize("PSAPRNLRVTDVTSTSITLSWEPPADGGSPITGYRVEYRE"), digitize("ACDEFGHIKLMNPQRSTVWY"), digitize("W")}
	om := optimized(h)
	scores, errs := make([]float32, len(targets)), make([]error, len(targets))
	fwdback.ForwardBatch(targets, om, scores, errs, fwdback.NewPairMatrix())
	one := *om
	for i, dsq := range targets {
		one.ReconfigLength(len(dsq))
		sc, err := fwdback.Forward(dsq, &one, fwdback.NewMatrix(), false)
		fmt.Printf("%.4f %v %v\n", scores[i], errs[i], sc == scores[i] && err == errs[i])
	}
	// Output:
	// 34.9889 <nil> true
	// -5.4397 <nil> true
	// -4.5690 <nil> true
}
