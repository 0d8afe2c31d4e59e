package profile

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

func TestFLogsum(t *testing.T) {
	// The table approximation stays within HMMER's stated error of the
	// exact value and is symmetric; -inf and far-apart arguments give max.
	for _, c := range [][2]float32{{0, 0}, {1, 2}, {-3, 4}, {10, 10.0004}, {-5, -5.5}} {
		exact := math.Log(math.Exp(float64(c[0])) + math.Exp(float64(c[1])))
		got := FLogsum(c[0], c[1])
		if math.Abs(float64(got)-exact) > 1e-3 || got != FLogsum(c[1], c[0]) {
			t.Errorf("FLogsum(%v, %v) = %v, exact %v", c[0], c[1], got, exact)
		}
	}
	if FLogsum(float32(math.Inf(-1)), 3) != 3 || FLogsum(0, 20) != 20 {
		t.Error("FLogsum must return max when min is -inf or the difference is >= 15.7")
	}
}

func TestNullModel(t *testing.T) {
	bg := NewBackground(alphabet.New(alphabet.Amino))
	var sum float32
	for _, f := range bg.F {
		sum += f
	}
	if math.Abs(float64(sum)-1) > 1e-4 {
		t.Fatalf("background frequencies sum to %v", sum)
	}
	bg.SetLength(153)
	// The value HMMER's library gives for L=153 (semantics guide, test vectors).
	if got := bg.NullOne(153); got != -6.03369904 {
		t.Fatalf("NullOne(153) = %.9g, HMMER -6.03369904", got)
	}
}

func TestConfigIsLocalMultihit(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	h := testmodels.RandomHMM(rand.New(rand.NewSource(3)), abc, 40)
	gm := Config(h, NewBackground(abc), 100)
	// Local entry and exit pairs are uniform up to occupancy: sum over k of
	// tBM(k)*(M-k+1) is one.
	var s float64
	for k := 1; k <= gm.M; k++ {
		s += math.Exp(float64(gm.TSC[k-1][PBM])) * float64(gm.M-k+1)
	}
	if math.Abs(s-1) > 1e-4 {
		t.Errorf("entry probabilities sum to %v", s)
	}
	if gm.NJ != 1 || gm.XSC[XE][Loop] != float32(-math.Ln2) {
		t.Error("profile must be multihit")
	}
	if !math.IsInf(float64(gm.MSC[abc.K][1]), -1) {
		t.Error("the gap code must score -inf")
	}
}

func ExampleFLogsum() {
	fmt.Printf("%.4f\n", FLogsum(0, 0))
	// Output: 0.6931
}
