package pairhmm_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/pairhmm"
)

// phred turns Phred+33 text into quality values.
func phred(s string) []byte {
	q := []byte(s)
	for i := range q {
		q[i] -= 33
	}
	return q
}

// The README example of gpuPairHMM: two reads against two haplotypes.
func ExampleCompute() {
	reads := []pairhmm.Read{
		{
			Bases:     []byte("CTGTGTCCATGTCAGAGCAATGGCCCAAGTCTGGGCCTGGG"),
			BaseQuals: phred("888888888888'88888888'8888888888888'8'888"),
			InsQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			DelQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			GCPQuals:  phred("+++++++++++++++++++++++++++++++++++++++++"),
		},
		{
			Bases:     []byte("ATGTCAGAGCAATGGCCCAAGTCTGGGTCTGGG"),
			BaseQuals: phred("<AFFFKKKKKKKKKKKKKKKKKKKKKKKKKKKK"),
			InsQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			DelQuals:  phred("IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN"),
			GCPQuals:  phred("+++++++++++++++++++++++++++++++++"),
		},
	}
	haps := [][]byte{
		[]byte("CTGTGTCCATGTCAGAGCAACGGCCCAAGTCTGGGTCTGGG"),
		[]byte("CTGTGTCCATGTCAGAGCAATGGCCCAAGTCTGGGTCTGGG"),
	}
	lk, err := pairhmm.Compute(reads, haps)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range lk {
		fmt.Printf("%.5f %.5f\n", row[0], row[1])
	}
	// Output:
	// -5.97153 -3.19660
	// -6.34042 -1.66333
}
