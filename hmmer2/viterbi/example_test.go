package viterbi_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
)

// Score sequences in lanes, then align the best one with the full
// Viterbi matrix and split its trace into domains, as hmm2search does
// for hits.
func ExampleCPUScorer() {
	hmms, _ := plan7.ReadFile("../../testdata/hmmer2/models/globin.hmm2")
	h := hmms[0]
	p := h.Logoddsify(true)
	seqs := [][]byte{
		h.Alph.Digitize([]byte("VLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKLRVDPVNFKLLSHCLLVTLAAHLPAEFTPAVHASLDKFLASVSTVLTSKYR"), nil),
		h.Alph.Digitize([]byte("MSTNPKPQRKTKRNTNRRPQDVKFPGG"), nil),
	}
	scores := make([]int32, len(seqs))
	viterbi.NewCPUScorer(p, 1).Score(seqs, scores)
	for _, sc := range scores {
		fmt.Printf("%.1f bits\n", plan7.Scorify(sc))
	}
	var mx viterbi.Matrix
	mx.Fill(p, seqs[0])
	tr, _ := mx.Traceback(p, seqs[0])
	for _, d := range tr.Decompose() {
		i1, i2, k1, k2, _ := d.SimpleBounds()
		fmt.Printf("domain: residues %d-%d, model %d-%d\n", i1, i2, k1, k2)
	}
	// Output:
	// 193.9 bits
	// -173.1 bits
	// domain: residues 5-141, model 1-142
}
