package msvfilter_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/msvfilter"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Score a target with the fastest kernel this CPU has; the scalar
// reference gives the same bits.
func ExampleScore() {
	r, err := hmm.OpenFile("../../testdata/hmmer3/models/globins4.hmm.gz", nil)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		panic(err)
	}
	om := oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)
	var dsq []byte
	for _, c := range []byte("MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDG") {
		dsq = append(dsq, h.Alph.Inmap[c])
	}
	om.ReconfigLength(len(dsq))
	sc := msvfilter.Score(dsq, &om.MSV)
	fmt.Printf("%.4f nats, same as the reference: %v\n", sc, sc == msvfilter.RefScore(dsq, &om.MSV))
	// Output: -12.7041 nats, same as the reference: true
}
