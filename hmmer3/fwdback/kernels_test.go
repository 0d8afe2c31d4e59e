package fwdback

import (
	"io"
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// withLevel runs f with the row kernels of level l.
func withLevel(l simd.Level, f func()) {
	old := level
	level = l
	defer func() { level = old }()
	f()
}

type fbResult struct {
	fsc, bsc   float32
	ferr, berr error
	fwd, bck   *Matrix
}

func runFB(l simd.Level, dsq []byte, om *oprofile.Profile, full bool) fbResult {
	r := fbResult{fwd: NewMatrix(), bck: NewMatrix()}
	withLevel(l, func() {
		r.fsc, r.ferr = Forward(dsq, om, r.fwd, full)
		if r.ferr == nil {
			r.bsc, r.berr = Backward(dsq, om, r.fwd, r.bck, full)
		}
	})
	return r
}

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// sameMatrix compares every cell and special of two matrices bit for bit.
func sameMatrix(a, b *Matrix) (string, bool) {
	if len(a.dp) != len(b.dp) || len(a.X) != len(b.X) || !sameBits(a.TotScale, b.TotScale) || a.HasOwnScales != b.HasOwnScales {
		return "shape or scale", false
	}
	for i := range a.dp {
		for z := 0; z < 4; z++ {
			if !sameBits(a.dp[i][z], b.dp[i][z]) {
				return "cell", false
			}
		}
	}
	for i := range a.X {
		for s := range a.X[i] {
			if !sameBits(a.X[i][s], b.X[i][s]) {
				return "special", false
			}
		}
	}
	return "", true
}

// compareLevels runs Forward and Backward (full matrices and parsers) on
// every level and checks scores, errors and all matrix cells against the
// Go lanes.
func compareLevels(t *testing.T, what string, dsq []byte, om *oprofile.Profile) {
	t.Helper()
	for _, full := range []bool{true, false} {
		want := runFB(simd.Generic, dsq, om, full)
		for _, l := range simd.Available()[1:] {
			got := runFB(l, dsq, om, full)
			if !sameBits(got.fsc, want.fsc) || !sameBits(got.bsc, want.bsc) || (got.ferr == nil) != (want.ferr == nil) || (got.berr == nil) != (want.berr == nil) {
				t.Fatalf("%s (full=%v): %s fwd %v/%v bck %v/%v; go fwd %v/%v bck %v/%v", what, full, l,
					got.fsc, got.ferr, got.bsc, got.berr, want.fsc, want.ferr, want.bsc, want.berr)
			}
			if full {
				if where, ok := sameMatrix(got.fwd, want.fwd); !ok {
					t.Fatalf("%s: %s Forward matrix differs (%s)", what, l, where)
				}
				if where, ok := sameMatrix(got.bck, want.bck); !ok {
					t.Fatalf("%s: %s Backward matrix differs (%s)", what, l, where)
				}
			}
		}
	}
}

func loadModel(tb testing.TB, path string) *oprofile.Profile {
	tb.Helper()
	r, err := hmm.OpenFile(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	h, err := r.Read()
	if err != nil {
		tb.Fatal(err)
	}
	return oprofile.Convert(profile.Config(h, profile.NewBackground(h.Alph), 100), h)
}

// TestRowKernelsRealModels: every testdata model against its database,
// each target in hmmsearch's length configuration, multihit and unihit.
func TestRowKernelsRealModels(t *testing.T) {
	if len(simd.Available()) < 2 {
		t.Skip("no assembly row kernels on this machine; the Go lanes are the only path")
	}
	models, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(models) == 0 {
		t.Fatal("no testdata models")
	}
	for _, path := range models {
		om := loadModel(t, path)
		db := "prot.fa"
		if om.Abc.K == 4 {
			db = "synth_dna.fa"
		}
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/"+db), nil, om.Abc)
		if err != nil {
			t.Fatal(err)
		}
		// The Go lanes are slow: a sample of targets per model, fewer for
		// the largest models.
		step := max(8, om.M/25)
		for n := 0; ; n++ {
			sq, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if n%step != 0 {
				continue
			}
			if (n/step)%3 == 1 {
				om.ReconfigUnihit(sq.L())
			} else {
				om.ReconfigMultihit(sq.L())
			}
			compareLevels(t, filepath.Base(path)+" vs "+sq.Name, sq.Dsq, om)
		}
		sr.Close()
	}
}

// randomOdds fills om.FB with random odds: match odds from tiny (products
// fall below the normal range and must flush to zero) to large (rows grow
// past the rescaling threshold), transitions as probabilities, D->D ones
// sometimes close to 1 so that the extra D->D passes matter.
func randomOdds(rng *rand.Rand, M, Kp int) *oprofile.Profile {
	Q := oprofile.NumVecF(M)
	om := &oprofile.Profile{M: M, NJ: 1}
	fb := &om.FB
	fb.M, fb.Q = M, Q
	odds := func() float32 {
		switch rng.Intn(12) {
		case 0:
			return easel.SSEExpfFTZ(float32(-80 - 20*rng.Float64())) // near the subnormal range
		case 1:
			return 0
		case 2:
			return float32(20 + 200*rng.Float64())
		}
		return float32(math.Exp(rng.NormFloat64()))
	}
	prob := func() float32 {
		if rng.Intn(8) == 0 {
			return float32(1e-30 * rng.Float64())
		}
		return float32(rng.Float64())
	}
	fb.RF = make([][]oprofile.Vec, Kp)
	for x := range fb.RF {
		fb.RF[x] = make([]oprofile.Vec, Q)
		for q := range fb.RF[x] {
			for z := 0; z < 4; z++ {
				if q+1+z*Q <= M {
					fb.RF[x][q][z] = odds()
				}
			}
		}
	}
	fb.TF = make([]oprofile.Vec, 8*Q)
	for i := range fb.TF {
		for z := 0; z < 4; z++ {
			fb.TF[i][z] = prob()
			if i >= 7*Q && rng.Intn(3) == 0 {
				fb.TF[i][z] = float32(0.9 + 0.1*rng.Float64())
			}
		}
	}
	for s := 0; s < 4; s++ {
		p := prob()
		fb.XF[s] = [2]float32{1 - p, p}
	}
	return om
}

// TestRowKernelsRandom compares the levels on random odds profiles.
func TestRowKernelsRandom(t *testing.T) {
	if len(simd.Available()) < 2 {
		t.Skip("no assembly row kernels on this machine; the Go lanes are the only path")
	}
	rng := rand.New(rand.NewSource(4))
	for trial := 0; trial < 400; trial++ {
		om, dsq := randomRowCase(rng, trial)
		compareLevels(t, "random", dsq, om)
	}
}

// randomRowCase is trial's random odds profile and target: mostly small
// models, every eighth of M = 100..499 (the early-stopping D->D passes),
// every third in unihit mode (full matrices then run Backward's phase 3
// on a guess of E, which huge odds sometimes make wrong).
func randomRowCase(rng *rand.Rand, trial int) (*oprofile.Profile, []byte) {
	M := 1 + rng.Intn(40)
	if trial%8 == 0 {
		M = 100 + rng.Intn(400)
	}
	om := randomOdds(rng, M, 5)
	if trial%3 == 0 {
		om.FB.XF[profile.XE][profile.Loop] = 0
	}
	dsq := make([]byte, rng.Intn(60))
	for i := range dsq {
		dsq[i] = byte(rng.Intn(5))
	}
	return om, dsq
}

func FuzzRowKernels(f *testing.F) {
	f.Add(int64(1), uint16(30), []byte{0, 1, 2, 3, 4})
	f.Add(int64(2), uint16(150), []byte{4, 4, 4, 4, 0, 0})
	f.Fuzz(func(t *testing.T, seed int64, m uint16, dsq []byte) {
		if len(simd.Available()) < 2 {
			t.Skip("no assembly row kernels on this machine")
		}
		rng := rand.New(rand.NewSource(seed))
		om := randomOdds(rng, 1+int(m%600), 5)
		for i := range dsq {
			dsq[i] %= 5
		}
		compareLevels(t, "fuzz", dsq, om)
	})
}
