package msvfilter

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// TestSSVScoresMatchesPerTarget checks the host pass after the SSV kernel
// (length costs from tjbTable, chunks on all cores) against the plain
// per-target rule, on raw kernel results of every kind (decided, left to
// MSV, overflow) and lengths inside and beyond the table.
func TestSSVScoresMatchesPerTarget(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	abc := alphabet.New(alphabet.Amino)
	for _, M := range []int{20, 150, 900} {
		h := testmodels.RandomHMM(rng, abc, M)
		bg := profile.NewBackground(abc)
		om := &oprofile.Convert(profile.Config(h, bg, 100), h).MSV
		n := 50_000
		dsqs := make([][]byte, n)
		maxw := make([]uint32, n)
		for i := range dsqs {
			L := rng.Intn(3000)
			switch i % 97 {
			case 0:
				L = 0
			case 1:
				L = tjbTableLen + rng.Intn(5000)
			}
			dsqs[i] = make([]byte, L) // only the lengths matter here
			maxw[i] = uint32(rng.Intn(160))
		}
		got := make([]float32, n)
		rest := ssvScores(om, dsqs, maxw, got)
		var wantRest []int
		for i := range dsqs {
			p := *om
			p.TJB = om.TJBFor(len(dsqs[i]))
			if len(dsqs[i]) > 0 && ssvApplies(&p) {
				cell := uint8(255)
				if int(maxw[i]) < 127-int(p.Bias) {
					cell = uint8(maxw[i]) + 128
				}
				if sc, ok := ssvDecide(cell, &p); ok {
					if math.Float32bits(sc) != math.Float32bits(got[i]) {
						t.Fatalf("M=%d target %d (L=%d): score %v, want %v", M, i, len(dsqs[i]), got[i], sc)
					}
					continue
				}
			}
			wantRest = append(wantRest, i)
		}
		if len(rest) != len(wantRest) {
			t.Fatalf("M=%d: %d targets left to MSV, want %d", M, len(rest), len(wantRest))
		}
		for k := range rest {
			if rest[k] != wantRest[k] {
				t.Fatalf("M=%d: left to MSV #%d is %d, want %d", M, k, rest[k], wantRest[k])
			}
		}
		if len(rest) == 0 || len(rest) == n {
			t.Logf("M=%d: %d of %d left to MSV: the case mix is one-sided", M, len(rest), n)
		}
	}
}

func TestTJBTable(t *testing.T) {
	h := testmodels.RandomHMM(rand.New(rand.NewSource(1)), alphabet.New(alphabet.Amino), 50)
	om := &oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h).MSV
	table := tjbTable(om)
	for _, L := range []int{0, 1, 2, 100, 4097, tjbTableLen - 1, tjbTableLen, 1 << 20} {
		if got, want := tjbOf(table, om, L), om.TJBFor(L); got != want {
			t.Errorf("L=%d: %d, want %d", L, got, want)
		}
	}
}
