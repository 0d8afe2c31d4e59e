package vitfilter

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// randomProfile makes a word profile shaped like a real one (match scores
// of a few bits, cheap M->M, dear entries and gaps) but with, at random,
// extreme values: +32767 match scores that overflow, -32768 scores and
// transitions that exercise the non-absorbing floor, and (when wild) D->D
// scores above zero, which real profiles never have but the kernels must
// still follow exactly.
func randomProfile(rng *rand.Rand, M, Kp int, wild bool) *oprofile.VitProfile {
	p := &oprofile.VitProfile{M: M, Scale: float32(500 / math.Ln2), Base: 12000}
	pick := func(lo, hi int) int16 { return int16(lo + rng.Intn(hi-lo+1)) }
	extreme := func(v int16) int16 {
		switch rng.Intn(400) {
		case 0, 1, 2, 3, 4:
			return -32768
		case 5:
			return 32767
		}
		return v
	}
	p.RWV = make([][]int16, Kp)
	for x := range p.RWV {
		p.RWV[x] = make([]int16, M+1)
		for k := 1; k <= M; k++ {
			p.RWV[x][k] = pick(-2600, 1500)
			if wild {
				p.RWV[x][k] = extreme(p.RWV[x][k])
			}
		}
	}
	p.T = make([][8]int16, M+1)
	for k := 1; k <= M; k++ {
		t := &p.T[k]
		t[oprofile.VBM] = pick(-9000, -4000)
		t[oprofile.VMM] = pick(-400, 0)
		t[oprofile.VIM] = pick(-2000, 0)
		t[oprofile.VDM] = pick(-2000, 0)
		t[oprofile.VMD] = pick(-5000, -1000)
		t[oprofile.VMI] = pick(-5000, -1000)
		t[oprofile.VII] = pick(-1500, -1)
		t[oprofile.VDD] = pick(-1200, 0)
		if wild {
			for i := range t {
				if rng.Intn(30) == 0 {
					t[i] = -32768
				}
			}
			if rng.Intn(20) == 0 {
				t[oprofile.VDD] = pick(1, 3000)
			}
			if rng.Intn(20) == 0 {
				t[oprofile.VDM] = 0
				t[oprofile.VDD] = 0
			}
		}
		if k == 1 {
			t[oprofile.VMM], t[oprofile.VIM], t[oprofile.VDM] = -32768, -32768, -32768
		}
		if k == M {
			t[oprofile.VMD], t[oprofile.VMI], t[oprofile.VII], t[oprofile.VDD] = -32768, -32768, -32768, -32768
		}
	}
	p.XW[0][0] = -500 // E loop, E move: log 1/2
	p.XW[0][1] = -500
	for s := 1; s < 4; s++ {
		p.XW[s][1] = pick(-6000, -5)
	}
	p.Stripe()
	return p
}

func randomSeq(rng *rand.Rand, L, Kp int) []byte {
	dsq := make([]byte, L)
	for i := range dsq {
		dsq[i] = byte(rng.Intn(Kp))
	}
	return dsq
}

func same(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// TestKernelsMatchReference runs every kernel this machine has against the
// scalar reference on random profiles, models of 1 to 2000 nodes (one
// to many vectors per row, lane boundaries everywhere), sequences of 0 to
// 400 residues.
func TestKernelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var inf, neg, fin int
	for trial := 0; trial < 1500; trial++ {
		M := 1 + rng.Intn(60)
		if trial%10 == 0 {
			M = 1 + rng.Intn(2000)
		}
		p := randomProfile(rng, M, 29, trial%2 == 1)
		dsq := randomSeq(rng, rng.Intn(400), 29)
		want := RefScore(dsq, p)
		switch {
		case math.IsInf(float64(want), 1):
			inf++
		case math.IsInf(float64(want), -1):
			neg++
		default:
			fin++
		}
		for _, l := range simd.Available() {
			if got := scoreWith(l, dsq, p); !same(got, want) {
				t.Fatalf("trial %d (M=%d L=%d): %s kernel %v, reference %v", trial, M, len(dsq), l, got, want)
			}
		}
	}
	t.Logf("outcomes: %d scores, %d overflows, %d -inf", fin, inf, neg)
	if inf == 0 || neg == 0 || fin == 0 {
		t.Errorf("an outcome is never exercised: %d scores, %d overflows, %d -inf", fin, inf, neg)
	}
}

// TestLongDeletions makes D->D paths win: cheap deletions and one very
// good match late in the model, so the best path enters early and deletes
// across many lane boundaries, which the lazy-F passes must carry.
func TestLongDeletions(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 200; trial++ {
		M := 20 + rng.Intn(600)
		p := randomProfile(rng, M, 4, false)
		for k := 1; k <= M; k++ {
			p.T[k][oprofile.VBM] = -12000
			if k < M {
				p.T[k][oprofile.VMD] = -10
				p.T[k][oprofile.VDD] = int16(-rng.Intn(3))
			}
			p.T[k][oprofile.VDM] = 0
			for x := range p.RWV {
				p.RWV[x][k] = -800
			}
		}
		p.T[1][oprofile.VBM] = 0
		for x := range p.RWV {
			p.RWV[x][1] = 2000
			p.RWV[x][M] = 3000
		}
		p.Stripe()
		dsq := randomSeq(rng, 1+rng.Intn(50), 4)
		want := RefScore(dsq, p)
		for _, l := range simd.Available() {
			if got := scoreWith(l, dsq, p); !same(got, want) {
				t.Fatalf("trial %d (M=%d L=%d): %s kernel %v, reference %v", trial, M, len(dsq), l, got, want)
			}
		}
	}
}

func FuzzKernelsMatchReference(f *testing.F) {
	f.Add(int64(1), uint16(10), true, []byte{1, 2, 3, 4, 5})
	f.Add(int64(2), uint16(300), false, []byte{0, 0, 0, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, seed int64, m uint16, wild bool, dsq []byte) {
		rng := rand.New(rand.NewSource(seed))
		p := randomProfile(rng, 1+int(m%1000), 29, wild)
		for i := range dsq {
			dsq[i] %= 29
		}
		want := RefScore(dsq, p)
		for _, l := range simd.Available() {
			if got := scoreWith(l, dsq, p); !same(got, want) {
				t.Fatalf("%s kernel %v, reference %v", l, got, want)
			}
		}
	})
}
