package fwdback

import (
	"fmt"
	"io"
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

func needPair(t testing.TB) {
	t.Helper()
	if !usePair() {
		t.Skip("no AVX2 on this machine: ForwardPair runs Forward twice, which the other tests cover")
	}
}

// samePair checks ForwardPair against two Forward calls, bit for bit:
// the scores, and the special rows kept in pm.Keep (set here when unset;
// a test reusing pm checks them kept over a previous pair's).
func samePair(t *testing.T, what string, a, b []byte, oma, omb *oprofile.Profile, pm *PairMatrix) {
	t.Helper()
	oxa, oxb := NewMatrix(), NewMatrix()
	wa, wea := Forward(a, oma, oxa, false)
	wb, web := Forward(b, omb, oxb, false)
	for j := 0; j < 2; j++ {
		if pm.Keep[j] == nil {
			pm.Keep[j] = NewMatrix()
		}
	}
	ga, gea, gb, geb := ForwardPair(a, b, oma, omb, pm)
	if !sameBits(ga, wa) || gea != wea || !sameBits(gb, wb) || geb != web {
		t.Fatalf("%s (M=%d, L=%d,%d): pair %v/%v %v/%v; Forward %v/%v %v/%v",
			what, oma.M, len(a), len(b), ga, gea, gb, geb, wa, wea, wb, web)
	}
	for j, want := range []*Matrix{oxa, oxb} {
		if where, ok := sameSpecials(pm.Keep[j], want); !ok {
			t.Fatalf("%s (M=%d, L=%d,%d): target %d's kept rows differ from Forward's: %s", what, oma.M, len(a), len(b), j, where)
		}
	}
}

// sameSpecials compares what a parser matrix gives Backward and
// DomainDecoding, bit for bit: shape, scales and special rows.
func sameSpecials(got, want *Matrix) (string, bool) {
	if got.M != want.M || got.Q != want.Q || got.L != want.L || got.full || len(got.X) != want.L+1 {
		return fmt.Sprintf("shape M=%d Q=%d L=%d rows=%d, want M=%d Q=%d L=%d", got.M, got.Q, got.L, len(got.X), want.M, want.Q, want.L), false
	}
	if !sameBits(got.TotScale, want.TotScale) || got.HasOwnScales != want.HasOwnScales {
		return fmt.Sprintf("TotScale %v (own %v), want %v (own %v)", got.TotScale, got.HasOwnScales, want.TotScale, want.HasOwnScales), false
	}
	for i := range got.X {
		for c := range got.X[i] {
			if !sameBits(got.X[i][c], want.X[i][c]) {
				return fmt.Sprintf("row %d cell %d: %v, want %v", i, c, got.X[i][c], want.X[i][c]), false
			}
		}
	}
	return "", true
}

func randomDsq(rng *rand.Rand, L, K int) []byte {
	dsq := make([]byte, L)
	for i := range dsq {
		dsq[i] = byte(rng.Intn(K))
	}
	return dsq
}

// otherLength is om with different special transitions, as another
// target's length configuration gives.
func otherLength(rng *rand.Rand, om *oprofile.Profile) *oprofile.Profile {
	o := *om
	for s := 0; s < 4; s++ {
		p := float32(rng.Float64())
		o.FB.XF[s] = [2]float32{1 - p, p}
	}
	return &o
}

// TestPairRowsMatchSingle runs the paired row kernel beside two single
// SSE rows, with per-target xB, residues and rescaling, and compares every
// cell and E sum of every row: the D->D passes of each half (stopping at
// different passes) must be exactly the single kernel's.
func TestPairRowsMatchSingle(t *testing.T) {
	needPair(t)
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 300; trial++ {
		M := 1 + rng.Intn(40)
		if trial%2 == 0 {
			M = 100 + rng.Intn(300)
		}
		om := randomOdds(rng, M, 5)
		fb := &om.FB
		Q, all4 := fb.Q, M < 100
		pair := make([]pvec, 3*Q)
		ra, rb := make([]vec, 3*Q), make([]vec, 3*Q)
		for i := 0; i < 30; i++ {
			xa, xb := rng.Intn(5), rng.Intn(5)
			xBa, xBb := float32(rng.Float64()), float32(rng.Float64())
			if rng.Intn(4) == 0 {
				xBb = 0
			}
			xB := pvec{xBa, xBa, xBa, xBa, xBb, xBb, xBb, xBb}
			var xEv pvec
			fwdRowPairAVX2(&pair[0], &pair[0], asVec4(fb.TF), &[2]*[4]float32{asVec4(fb.RF[xa]), asVec4(fb.RF[xb])}, Q, &xB, all4, &xEv)
			var ea, eb vec
			fwdRowSSE(asVec4(ra), asVec4(ra), asVec4(fb.TF), asVec4(fb.RF[xa]), Q, xBa, all4, (*[4]float32)(&ea))
			fwdRowSSE(asVec4(rb), asVec4(rb), asVec4(fb.TF), asVec4(fb.RF[xb]), Q, xBb, all4, (*[4]float32)(&eb))
			for z := 0; z < 4; z++ {
				if !sameBits(xEv[z], ea[z]) || !sameBits(xEv[4+z], eb[z]) {
					t.Fatalf("trial %d M=%d row %d: E lane %d: pair %v %v, single %v %v", trial, M, i, z, xEv[z], xEv[4+z], ea[z], eb[z])
				}
			}
			for j := range pair {
				for z := 0; z < 4; z++ {
					if !sameBits(pair[j][z], ra[j][z]) || !sameBits(pair[j][4+z], rb[j][z]) {
						t.Fatalf("trial %d M=%d row %d: cell %d lane %d: pair %v %v, single %v %v", trial, M, i, j, z, pair[j][z], pair[j][4+z], ra[j][z], rb[j][z])
					}
				}
			}
			// Rescale one half now and then, as Forward does past 1e4.
			if rng.Intn(5) == 0 {
				ia, ib := float32(1), float32(1e-4)
				if rng.Intn(2) == 0 {
					ia, ib = ib, ia
				}
				inv := pvec{ia, ia, ia, ia, ib, ib, ib, ib}
				scaleRowPairAVX2(&pair[0], len(pair), &inv)
				scaleRowSSE(asVec4(ra), len(ra), ia)
				scaleRowSSE(asVec4(rb), len(rb), ib)
			}
		}
	}
}

// TestForwardPairRandom: random odds profiles, M below and above 100,
// pairs of every length relation (empty, 1, equal, one much longer).
func TestForwardPairRandom(t *testing.T) {
	needPair(t)
	rng := rand.New(rand.NewSource(11))
	pm := NewPairMatrix()
	for trial := 0; trial < 400; trial++ {
		M := 1 + rng.Intn(60)
		if trial%3 == 0 {
			M = 100 + rng.Intn(400)
		}
		om := randomOdds(rng, M, 5)
		omb := otherLength(rng, om)
		La, Lb := rng.Intn(50), rng.Intn(50)
		switch trial % 5 {
		case 0:
			La = 1
		case 1:
			Lb = La
		case 2:
			Lb = 300 + rng.Intn(300)
		}
		samePair(t, "random", randomDsq(rng, La, 5), randomDsq(rng, Lb, 5), om, omb, pm)
	}
}

// TestForwardPairLong pairs a long target with a one-residue target.
func TestForwardPairLong(t *testing.T) {
	needPair(t)
	rng := rand.New(rand.NewSource(3))
	om := loadModel(t, filepath.Join(testutil.Testdata(t, "hmmer3/models"), "fn3.hmm.gz"))
	long, one := randomDsq(rng, 20000, 20), randomDsq(rng, 1, 20)
	oma, omb := *om, *om
	oma.ReconfigLength(len(long))
	omb.ReconfigLength(len(one))
	pm := NewPairMatrix()
	samePair(t, "long/one", long, one, &oma, &omb, pm)
	samePair(t, "one/long", one, long, &omb, &oma, pm)
}

// TestForwardBatchRealModels: every testdata model against a sample of its
// database, each target in its own length configuration, multihit and
// unihit, through ForwardBatch against one Forward per target.
func TestForwardBatchRealModels(t *testing.T) {
	needPair(t)
	models, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(models) == 0 {
		t.Fatal("no testdata models")
	}
	pm, ox := NewPairMatrix(), NewMatrix()
	for mi, path := range models {
		om := loadModel(t, path)
		db := "prot.fa"
		if om.Abc.K == 4 {
			db = "synth_dna.fa"
		}
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/"+db), nil, om.Abc)
		if err != nil {
			t.Fatal(err)
		}
		var dsqs [][]byte
		for n := 0; len(dsqs) < 41; n++ {
			sq, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if n%3 == 0 {
				dsqs = append(dsqs, sq.Dsq)
			}
		}
		sr.Close()
		if mi%2 == 0 {
			om.ReconfigUnihit(100)
		} else {
			om.ReconfigMultihit(100)
		}
		sc, errs := make([]float32, len(dsqs)), make([]error, len(dsqs))
		ForwardBatch(dsqs, om, sc, errs, pm)
		one := *om
		for i, dsq := range dsqs {
			one.ReconfigLength(len(dsq))
			want, werr := Forward(dsq, &one, ox, false)
			if !sameBits(sc[i], want) || errs[i] != werr {
				t.Fatalf("%s target %d (L=%d): batch %v/%v, Forward %v/%v", filepath.Base(path), i, len(dsq), sc[i], errs[i], want, werr)
			}
		}
	}
}

// TestForwardPairWithoutAVX2: at a lower level ForwardPair is two Forward
// calls.
func TestForwardPairWithoutAVX2(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	om := randomOdds(rng, 30, 5)
	withLevel(simd.SSE, func() {
		samePair(t, "sse", randomDsq(rng, 20, 5), randomDsq(rng, 7, 5), om, otherLength(rng, om), NewPairMatrix())
	})
}

func FuzzForwardPair(f *testing.F) {
	f.Add(int64(1), uint16(30), []byte{0, 1, 2, 3, 4}, []byte{4, 3})
	f.Add(int64(2), uint16(150), []byte{4, 4, 4, 4, 0, 0}, []byte{1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, seed int64, m uint16, a, b []byte) {
		needPair(t)
		rng := rand.New(rand.NewSource(seed))
		om := randomOdds(rng, 1+int(m%600), 5)
		for i := range a {
			a[i] %= 5
		}
		for i := range b {
			b[i] %= 5
		}
		samePair(t, "fuzz", a, b, om, otherLength(rng, om), NewPairMatrix())
	})
}

// TestPairRowsWideStates starts the paired and single rows from arbitrary
// previous rows (values over ~26 orders of magnitude either way, zeros,
// D->D probabilities of 1), where one half's D->D passes stop while the
// other's go on and a pass more would change the stopped half: the case
// the paired kernel's per-half carry masking exists for.
func TestPairRowsWideStates(t *testing.T) {
	needPair(t)
	rng := rand.New(rand.NewSource(1))
	wide := wideValues(rng)
	for trial := 0; trial < 4000; trial++ {
		om := wideStateOdds(rng)
		fb := &om.FB
		Q := fb.Q
		pair := make([]pvec, 3*Q)
		ra, rb := make([]vec, 3*Q), make([]vec, 3*Q)
		for j := range pair {
			for z := 0; z < 4; z++ {
				ra[j][z], rb[j][z] = wide(), wide()
				pair[j][z], pair[j][4+z] = ra[j][z], rb[j][z]
			}
		}
		xa, xb := rng.Intn(5), rng.Intn(5)
		xBa, xBb := wide(), wide()
		xB := pvec{xBa, xBa, xBa, xBa, xBb, xBb, xBb, xBb}
		var xEv pvec
		var ea, eb vec
		fwdRowPairAVX2(&pair[0], &pair[0], asVec4(fb.TF), &[2]*[4]float32{asVec4(fb.RF[xa]), asVec4(fb.RF[xb])}, Q, &xB, false, &xEv)
		fwdRowSSE(asVec4(ra), asVec4(ra), asVec4(fb.TF), asVec4(fb.RF[xa]), Q, xBa, false, (*[4]float32)(&ea))
		fwdRowSSE(asVec4(rb), asVec4(rb), asVec4(fb.TF), asVec4(fb.RF[xb]), Q, xBb, false, (*[4]float32)(&eb))
		for z := 0; z < 4; z++ {
			if !sameBits(xEv[z], ea[z]) || !sameBits(xEv[4+z], eb[z]) {
				t.Fatalf("trial %d: E lane %d: pair %v %v, single %v %v", trial, z, xEv[z], xEv[4+z], ea[z], eb[z])
			}
		}
		for j := range pair {
			for z := 0; z < 4; z++ {
				if !sameBits(pair[j][z], ra[j][z]) || !sameBits(pair[j][4+z], rb[j][z]) {
					t.Fatalf("trial %d: cell %d lane %d: pair %v %v, single %v %v", trial, j, z, pair[j][z], pair[j][4+z], ra[j][z], rb[j][z])
				}
			}
		}
	}
}

// wideValues returns a generator of DP cell values over ~26 orders of
// magnitude either way, a third of them zero: starting rows for the
// grouped row kernels' tests.
func wideValues(rng *rand.Rand) func() float32 {
	return func() float32 {
		if rng.Intn(3) == 0 {
			return 0
		}
		return float32(math.Exp(rng.NormFloat64() * 30))
	}
}

// wideStateOdds is a random profile of 100-159 nodes whose D->D
// probabilities are 1 in about half the lanes, so that from wideValues
// rows one target's D->D passes stop while another's go on.
func wideStateOdds(rng *rand.Rand) *oprofile.Profile {
	om := randomOdds(rng, 100+rng.Intn(60), 5)
	fb := &om.FB
	for i := 7 * fb.Q; i < 8*fb.Q; i++ {
		for z := 0; z < 4; z++ {
			if rng.Intn(2) == 0 {
				fb.TF[i][z] = 1
			}
		}
	}
	return om
}
