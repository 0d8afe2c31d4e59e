package fwdback

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func needQuad(t testing.TB) {
	t.Helper()
	if !useQuad() {
		t.Skip("no AVX-512 on this machine: the quad kernel cannot run (TestForwardQuadBookkeeping covers ForwardQuad's Go side)")
	}
}

// quadBySSE is a stand-in for the quad row kernel made of four SSE rows,
// one per part; dpp and dpc must be the same row, as in ForwardQuad.
func quadBySSE(dpp, dpc *qvec, tf *[4]float32, rf *[4]*[4]float32, q int, xB *qvec, all4 bool, xEv *qvec) {
	dp := unsafe.Slice(dpp, 3*q)
	part := make([]vec, 3*q)
	for j := 0; j < 4; j++ {
		for k := range part {
			copy(part[k][:], dp[k][4*j:4*j+4])
		}
		var e vec
		fwdRowSSE(asVec4(part), asVec4(part), tf, rf[j], q, xB[4*j], all4, (*[4]float32)(&e))
		for k := range part {
			copy(dp[k][4*j:4*j+4], part[k][:])
		}
		copy(xEv[4*j:4*j+4], e[:])
	}
}

func scaleQuadBySSE(dp *qvec, n int, inv *qvec) {
	rows := unsafe.Slice(dp, n)
	for k := range rows {
		for z := range rows[k] {
			rows[k][z] = fmul(rows[k][z], inv[z])
		}
	}
}

// sameQuad checks ForwardQuad against four Forward calls, bit for bit.
func sameQuad(t *testing.T, what string, ds [4][]byte, oms [4]*oprofile.Profile, pm *PairMatrix) {
	t.Helper()
	ox := NewMatrix()
	var sc [4]float32
	var errs [4]error
	for j := range pm.Keep {
		if pm.Keep[j] == nil {
			pm.Keep[j] = NewMatrix()
		}
	}
	ForwardQuad(&ds, &oms, pm, &sc, &errs)
	for j := range ds {
		want, werr := Forward(ds[j], oms[j], ox, false)
		if !sameBits(sc[j], want) || errs[j] != werr {
			t.Fatalf("%s (M=%d, L=%d,%d,%d,%d): target %d: quad %v/%v, Forward %v/%v",
				what, oms[0].M, len(ds[0]), len(ds[1]), len(ds[2]), len(ds[3]), j, sc[j], errs[j], want, werr)
		}
		if where, ok := sameSpecials(pm.Keep[j], ox); !ok {
			t.Fatalf("%s (M=%d, L=%d,%d,%d,%d): target %d's kept rows differ from Forward's: %s",
				what, oms[0].M, len(ds[0]), len(ds[1]), len(ds[2]), len(ds[3]), j, where)
		}
	}
}

// randomQuad draws four targets whose lengths relate as the trial number
// says: all equal, one much longer, one of length 1, some empty, random.
func randomQuad(rng *rand.Rand, trial, K int) [4][]byte {
	var L [4]int
	for j := range L {
		L[j] = 1 + rng.Intn(60)
	}
	switch trial % 6 {
	case 0:
		L[1], L[2], L[3] = L[0], L[0], L[0]
	case 1:
		L[rng.Intn(4)] = 200 + rng.Intn(300)
	case 2:
		L[rng.Intn(4)] = 1
	case 3:
		L[rng.Intn(4)] = 0
	case 4:
		L[0], L[1] = L[2], L[3] // two pairs end together
	}
	var ds [4][]byte
	for j := range ds {
		ds[j] = randomDsq(rng, L[j], K)
	}
	return ds
}

func quadProfiles(rng *rand.Rand, om *oprofile.Profile) [4]*oprofile.Profile {
	return [4]*oprofile.Profile{om, otherLength(rng, om), otherLength(rng, om), otherLength(rng, om)}
}

// TestForwardQuadBookkeeping runs ForwardQuad with the quad kernel
// replaced by four SSE rows: targets ending at different rows, the
// longest going on alone, rescaling. It needs only SSE, so it runs on
// every amd64 machine.
func TestForwardQuadBookkeeping(t *testing.T) {
	if !useAsm() {
		t.Skip("no SSE row kernel on this machine")
	}
	oldRow, oldScale := quadRow, quadScale
	quadRow, quadScale = quadBySSE, scaleQuadBySSE
	defer func() { quadRow, quadScale = oldRow, oldScale }()
	withLevel(simd.AVX512, func() {
		rng := rand.New(rand.NewSource(21))
		pm := NewPairMatrix()
		for trial := 0; trial < 300; trial++ {
			M := 1 + rng.Intn(60)
			if trial%3 == 0 {
				M = 100 + rng.Intn(300)
			}
			om := randomOdds(rng, M, 5)
			sameQuad(t, "bookkeeping", randomQuad(rng, trial, 5), quadProfiles(rng, om), pm)
		}
	})
}

// TestQuadRowsMatchSingle runs the quad row kernel beside four single
// SSE rows, with per-target xB, residues and rescaling, and compares
// every cell and E sum of every row.
func TestQuadRowsMatchSingle(t *testing.T) {
	needQuad(t)
	rng := rand.New(rand.NewSource(17))
	for trial := 0; trial < 300; trial++ {
		M := 1 + rng.Intn(40)
		if trial%2 == 0 {
			M = 100 + rng.Intn(300)
		}
		om := randomOdds(rng, M, 5)
		fb := &om.FB
		Q, all4 := fb.Q, M < 100
		quad := make([]qvec, 3*Q)
		var rows [4][]vec
		for j := range rows {
			rows[j] = make([]vec, 3*Q)
		}
		for i := 0; i < 30; i++ {
			var (
				rf       [4]*[4]float32
				xB, xEv  qvec
				xBs      [4]float32
				residues [4]int
			)
			for j := range rf {
				residues[j] = rng.Intn(5)
				rf[j] = asVec4(fb.RF[residues[j]])
				xBs[j] = float32(rng.Float64())
				if rng.Intn(4) == 0 {
					xBs[j] = 0
				}
				for z := 0; z < 4; z++ {
					xB[4*j+z] = xBs[j]
				}
			}
			fwdRowQuadAVX512(&quad[0], &quad[0], asVec4(fb.TF), &rf, Q, &xB, all4, &xEv)
			singleRows(t, fmt.Sprintf("trial %d M=%d row %d", trial, M, i), fb, rows, &rf, xBs, all4, &xEv)
			compareQuadRows(t, quad, rows)
			if rng.Intn(5) == 0 {
				var inv qvec
				for j := range rows {
					f := float32(1)
					if rng.Intn(2) == 0 {
						f = 1e-4
					}
					for z := 0; z < 4; z++ {
						inv[4*j+z] = f
					}
					scaleRowSSE(asVec4(rows[j]), len(rows[j]), f)
				}
				scaleRowQuadAVX512(&quad[0], len(quad), &inv)
				compareQuadRows(t, quad, rows)
			}
		}
	}
}

// singleRows runs the SSE row of each target j on rows[j] (match odds
// rf[j], B value xBs[j]) and compares its E sum with part j of the quad
// row's, xEv.
func singleRows(t *testing.T, what string, fb *oprofile.FBProfile, rows [4][]vec, rf *[4]*[4]float32, xBs [4]float32, all4 bool, xEv *qvec) {
	t.Helper()
	for j := range rows {
		var e vec
		fwdRowSSE(asVec4(rows[j]), asVec4(rows[j]), asVec4(fb.TF), rf[j], fb.Q, xBs[j], all4, (*[4]float32)(&e))
		for z := 0; z < 4; z++ {
			if !sameBits(xEv[4*j+z], e[z]) {
				t.Fatalf("%s target %d: E lane %d: quad %v, single %v", what, j, z, xEv[4*j+z], e[z])
			}
		}
	}
}

func compareQuadRows(t *testing.T, quad []qvec, rows [4][]vec) {
	t.Helper()
	for k := range quad {
		for j := range rows {
			for z := 0; z < 4; z++ {
				if !sameBits(quad[k][4*j+z], rows[j][k][z]) {
					t.Fatalf("cell %d target %d lane %d: quad %v, single %v", k, j, z, quad[k][4*j+z], rows[j][k][z])
				}
			}
		}
	}
}

// TestQuadRowsWideStates starts the quad and single rows from arbitrary
// previous rows (values over ~26 orders of magnitude either way, zeros,
// D->D probabilities of 1), where some parts' D->D passes stop while
// others go on: the case the per-part opmask exists for.
func TestQuadRowsWideStates(t *testing.T) {
	needQuad(t)
	rng := rand.New(rand.NewSource(2))
	wide := wideValues(rng)
	for trial := 0; trial < 4000; trial++ {
		om := wideStateOdds(rng)
		fb := &om.FB
		Q := fb.Q
		quad := make([]qvec, 3*Q)
		var rows [4][]vec
		for j := range rows {
			rows[j] = make([]vec, 3*Q)
			for k := range rows[j] {
				for z := 0; z < 4; z++ {
					rows[j][k][z] = wide()
					quad[k][4*j+z] = rows[j][k][z]
				}
			}
		}
		var (
			rf      [4]*[4]float32
			xB, xEv qvec
			xBs     [4]float32
		)
		for j := range rf {
			rf[j] = asVec4(fb.RF[rng.Intn(5)])
			xBs[j] = wide()
			for z := 0; z < 4; z++ {
				xB[4*j+z] = xBs[j]
			}
		}
		fwdRowQuadAVX512(&quad[0], &quad[0], asVec4(fb.TF), &rf, Q, &xB, false, &xEv)
		singleRows(t, fmt.Sprintf("trial %d", trial), fb, rows, &rf, xBs, false, &xEv)
		compareQuadRows(t, quad, rows)
	}
}

// TestForwardQuadRandom: random odds profiles, M below and above 100,
// quads of every length relation.
func TestForwardQuadRandom(t *testing.T) {
	needQuad(t)
	rng := rand.New(rand.NewSource(13))
	pm := NewPairMatrix()
	for trial := 0; trial < 600; trial++ {
		M := 1 + rng.Intn(60)
		if trial%3 == 0 {
			M = 100 + rng.Intn(400)
		}
		om := randomOdds(rng, M, 5)
		sameQuad(t, "random", randomQuad(rng, trial, 5), quadProfiles(rng, om), pm)
	}
}

// TestForwardQuadLong puts a long target with three short ones, on a
// real model.
func TestForwardQuadLong(t *testing.T) {
	needQuad(t)
	rng := rand.New(rand.NewSource(3))
	om := loadModel(t, filepath.Join(testutil.Testdata(t, "hmmer3/models"), "fn3.hmm.gz"))
	ds := [4][]byte{randomDsq(rng, 3, 20), randomDsq(rng, 20000, 20), randomDsq(rng, 1, 20), randomDsq(rng, 250, 20)}
	var cfg [4]oprofile.Profile
	var oms [4]*oprofile.Profile
	for j := range ds {
		cfg[j] = *om
		cfg[j].ReconfigLength(len(ds[j]))
		oms[j] = &cfg[j]
	}
	sameQuad(t, "long", ds, oms, NewPairMatrix())
}

func FuzzForwardQuad(f *testing.F) {
	f.Add(int64(1), uint16(30), []byte{0, 1, 2, 3, 4}, []byte{4, 3}, []byte{1}, []byte{2, 2, 2})
	f.Add(int64(2), uint16(150), []byte{4, 4, 4, 4, 0, 0}, []byte{1, 1, 1, 1, 1, 1, 1, 1, 1}, []byte{0, 0}, []byte{3})
	f.Fuzz(func(t *testing.T, seed int64, m uint16, a, b, c, d []byte) {
		needQuad(t)
		rng := rand.New(rand.NewSource(seed))
		om := randomOdds(rng, 1+int(m%600), 5)
		ds := [4][]byte{a, b, c, d}
		for _, s := range ds {
			for i := range s {
				s[i] %= 5
			}
		}
		sameQuad(t, "fuzz", ds, quadProfiles(rng, om), NewPairMatrix())
	})
}
