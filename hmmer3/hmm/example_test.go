package hmm_test

import (
	"fmt"
	"io"
	"log"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

func ExampleOpenFile() {
	r, err := hmm.OpenFile("testdata/minifam.hmm.gz", nil) // gzip is detected by magic bytes
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err) // one line: path:line: message
		}
		fmt.Printf("%-13s M=%-4d %s P(M1->M2)=%.6f cons=%s...\n", h.Name, h.M, r.Format(), h.T[1][hmm.TMM], h.Consensus[1:11])
	}
	// Output:
	// BCSC_C        M=341  HMMER3/f P(M1->M2)=0.981336 cons=lsklteaavp...
	// Ependymin     M=174  HMMER3/f P(M1->M2)=0.973108 cons=rqpcrsPskt...
	// Como_SCP      M=182  HMMER3/f P(M1->M2)=0.975837 cons=vaeaqdvyse...
	// MHC2-interact M=118  HMMER3/f P(M1->M2)=0.976266 cons=aeeqrdLise...
	// Caudal_act    M=145  HMMER3/f P(M1->M2)=0.978495 cons=mYpgsvrssg...
}
