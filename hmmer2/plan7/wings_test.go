package plan7

import (
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestWingsKeepEntryAndExitFinite pins why a GPU kernel cannot skip the
// B->M_k and M_k->E terms of glocal ("ls", global) models as -INFTY
// (docs/hmm2search.md, "Glocal entry and exit terms"): P7Logoddsify
// folds the delete wings B->D_1..D_(k-1)->M_k and M_k->D_(k+1)..D_M->E
// into bsc[k] and esc[k], so those scores are finite at every node,
// only very negative, in every mode of the repository's models. They
// become -INFTY only where the wing itself is dead: here B->D_1 = 0
// makes every bsc[k], k > 1, of an ls model -INFTY.
func TestWingsKeepEntryAndExitFinite(t *testing.T) {
	for _, name := range []string{"globin", "globin_fs", "globin_sw", "globin_global", "rrm", "fn3", "made1", "pkinase"} {
		hmms, err := ReadFile(testutil.Testdata(t, "hmmer2/models/"+name+".hmm2"))
		if err != nil {
			t.Fatal(err)
		}
		h := hmms[0]
		for _, viterbi := range []bool{true, false} {
			p := h.Logoddsify(viterbi)
			for k := 1; k <= p.M; k++ {
				if p.Bsc[k] == -Infty || p.Esc[k] == -Infty {
					t.Errorf("%s (viterbi %v): node %d has bsc %d, esc %d", name, viterbi, k, p.Bsc[k], p.Esc[k])
				}
			}
		}
	}

	hmms, err := ReadFile(testutil.Testdata(t, "hmmer2/models/rrm.hmm2"))
	if err != nil {
		t.Fatal(err)
	}
	h := hmms[0]
	for k := 2; k <= h.M; k++ {
		if h.Begin[k] != 0 {
			t.Fatalf("rrm is an ls model: B->M_%d should be 0, got %g", k, h.Begin[k])
		}
	}
	h.Tbd1 = 0
	p := h.Logoddsify(true)
	if p.Bsc[1] == -Infty {
		t.Errorf("bsc[1] = -INFTY with B->M_1 > 0")
	}
	for k := 2; k <= p.M; k++ {
		if p.Bsc[k] != -Infty {
			t.Fatalf("B->D_1 = 0: bsc[%d] = %d, want -INFTY", k, p.Bsc[k])
		}
	}
}
