package oprofile

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

func TestByteifyAndWordify(t *testing.T) {
	scale := float32(3.0 / math.Ln2)
	if unbiasedByteify(scale, -100) != 255 || unbiasedByteify(scale, 0) != 0 {
		t.Error("unbiasedByteify must saturate at 255 and map 0 to 0")
	}
	if biasedByteify(scale, 10, float32(math.Inf(-1))) != 255 || biasedByteify(scale, 10, 0) != 10 {
		t.Error("biasedByteify: -inf is 255, score 0 is the bias")
	}
	// roundf rounds halves away from zero.
	if roundf(2.5) != 3 || roundf(-2.5) != -3 {
		t.Error("roundf must round halves away from zero")
	}
	w := float32(500.0 / math.Ln2)
	if wordify(w, -1000) != -32768 || wordify(w, 1000) != 32767 || wordify(w, float32(-math.Ln2)) != -500 {
		t.Error("wordify saturation or scale wrong")
	}
	if signedCost(0, 20) != -20 || signedCost(255, 20) != 127 {
		t.Error("SSV costs are rbv-bias capped at 127")
	}
}

// TestStripedLayout checks the four-lane striped order: lane z of vector q
// is node z*Q+q+1, and padding lanes hold zero odds.
func TestStripedLayout(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	for _, M := range []int{1, 5, 8, 13} {
		h := testmodels.RandomHMM(rand.New(rand.NewSource(int64(M))), abc, M)
		gm := profile.Config(h, profile.NewBackground(abc), 100)
		om := Convert(gm, h)
		Q := om.FB.Q
		if Q != max(2, (M+3)/4) {
			t.Fatalf("M=%d: Q=%d", M, Q)
		}
		for q := 0; q < Q; q++ {
			for z := 0; z < 4; z++ {
				k := z*Q + q + 1
				got := om.FB.RF[0][q][z]
				if k > M && got != 0 {
					t.Errorf("M=%d: padding lane k=%d has odds %v", M, k, got)
				}
				if k <= M && got == 0 {
					t.Errorf("M=%d: node %d has zero odds", M, k)
				}
			}
		}
	}
}

func TestReconfig(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	h := testmodels.RandomHMM(rand.New(rand.NewSource(1)), abc, 30)
	om := Convert(profile.Config(h, profile.NewBackground(abc), 100), h)
	om.ReconfigUnihit(200)
	if om.IsMultihit() || om.FB.XF[profile.XE][profile.Loop] != 0 || om.FB.XF[profile.XN][profile.Move] != float32(2.0)/float32(202) {
		t.Error("unihit: E->J off and N->B = 2/(L+2)")
	}
	om.ReconfigMultihit(200)
	if !om.IsMultihit() || om.FB.XF[profile.XN][profile.Move] != float32(3.0)/float32(203) {
		t.Error("multihit: N->B = 3/(L+3)")
	}
	if om.MSV.TJB != om.MSV.TJBFor(200) || om.Vit.XW[profile.XN][profile.Move] != om.Vit.MoveFor(200, 1) {
		t.Error("per-length values disagree with the batch helpers")
	}
}
