package plan7_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// Read a HMMER2 model and turn it into the integer scores the DP
// algorithms use.
func ExampleReadFile() {
	hmms, err := plan7.ReadFile("../../testdata/hmmer2/models/rrm.hmm2")
	if err != nil {
		fmt.Println(err)
		return
	}
	h := hmms[0]
	p := h.Logoddsify(true)
	fmt.Println(h.Name, h.M, h.Alph.Type, h.HasStats)
	fmt.Println("N->B", p.Xsc[plan7.XTN][plan7.Move], "bits*1000; B->M1", p.Bsc[1])
	// Output:
	// rrm 77 Amino true
	// N->B -8455 bits*1000; B->M1 -12
}
