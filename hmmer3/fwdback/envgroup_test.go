package fwdback

import (
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// sameGroup checks ForwardGroup and BackwardGroup against Forward and
// Backward on full matrices, target by target: scores, errors and every
// cell and special of both matrices, bit for bit.
func sameGroup(t *testing.T, what string, ds [][]byte, oms []*oprofile.Profile, w *EnvWork) {
	t.Helper()
	n := len(ds)
	fwds, bcks := make([]*Matrix, n), make([]*Matrix, n)
	for j := range fwds {
		fwds[j], bcks[j] = NewMatrix(), NewMatrix()
	}
	fsc, bsc := make([]float32, n), make([]float32, n)
	ferr, berr := make([]error, n), make([]error, n)
	ForwardGroup(ds, oms, fwds, fsc, ferr, w)
	BackwardGroup(ds, oms, fwds, bcks, bsc, berr, w)
	for j := range ds {
		want := fbResult{fwd: NewMatrix(), bck: NewMatrix()}
		want.fsc, want.ferr = Forward(ds[j], oms[j], want.fwd, true)
		want.bsc, want.berr = Backward(ds[j], oms[j], want.fwd, want.bck, true)
		if !sameBits(fsc[j], want.fsc) || ferr[j] != want.ferr || !sameBits(bsc[j], want.bsc) || berr[j] != want.berr {
			t.Fatalf("%s (M=%d, n=%d) target %d (L=%d): group fwd %v/%v bck %v/%v; alone fwd %v/%v bck %v/%v",
				what, oms[0].M, n, j, len(ds[j]), fsc[j], ferr[j], bsc[j], berr[j], want.fsc, want.ferr, want.bsc, want.berr)
		}
		if where, ok := sameMatrix(fwds[j], want.fwd); !ok {
			t.Fatalf("%s (M=%d, n=%d) target %d (L=%d): Forward matrix differs (%s)", what, oms[0].M, n, j, len(ds[j]), where)
		}
		if where, ok := sameMatrix(bcks[j], want.bck); !ok {
			t.Fatalf("%s (M=%d, n=%d) target %d (L=%d): Backward matrix differs (%s)", what, oms[0].M, n, j, len(ds[j]), where)
		}
	}
}

// sameParsers checks BackwardParsers against Backward on parser
// matrices, target by target: scores, errors, the row left in the
// matrix and every special, bit for bit.
func sameParsers(t *testing.T, what string, ds [][]byte, oms []*oprofile.Profile, w *EnvWork) {
	t.Helper()
	n := len(ds)
	fwds, bcks := make([]*Matrix, n), make([]*Matrix, n)
	for j := range fwds {
		fwds[j], bcks[j] = NewMatrix(), NewMatrix()
		Forward(ds[j], oms[j], fwds[j], false)
	}
	bsc, berr := make([]float32, n), make([]error, n)
	BackwardParsers(ds, oms, fwds, bcks, bsc, berr, w)
	for j := range ds {
		want := NewMatrix()
		wsc, werr := Backward(ds[j], oms[j], fwds[j], want, false)
		if !sameBits(bsc[j], wsc) || berr[j] != werr {
			t.Fatalf("%s (M=%d, n=%d) target %d (L=%d): group parser %v/%v; alone %v/%v", what, oms[0].M, n, j, len(ds[j]), bsc[j], berr[j], wsc, werr)
		}
		if where, ok := sameMatrix(bcks[j], want); !ok {
			t.Fatalf("%s (M=%d, n=%d) target %d (L=%d): Backward parser differs (%s)", what, oms[0].M, n, j, len(ds[j]), where)
		}
	}
}

// envLengths draws n envelope lengths related as the trial says: equal,
// one much longer, one of length 1, random.
func envLengths(rng *rand.Rand, trial, n int) []int {
	L := make([]int, n)
	for j := range L {
		L[j] = 1 + rng.Intn(60)
	}
	switch trial % 5 {
	case 0:
		for j := range L {
			L[j] = L[0]
		}
	case 1:
		L[rng.Intn(n)] = 200 + rng.Intn(200)
	case 2:
		L[rng.Intn(n)] = 1
	case 3:
		L[rng.Intn(n)] = 2
	}
	return L
}

// unihitOr is om in rescoring's unihit mode (E->J zero: Backward's
// guessed-E path) on some trials.
func unihitOr(rng *rand.Rand, om *oprofile.Profile) *oprofile.Profile {
	if rng.Intn(2) == 0 {
		om.FB.XF[profile.XE] = [2]float32{profile.Loop: 0, profile.Move: 1}
	}
	return om
}

// randomGroups runs sameGroup on random profiles and targets, n targets
// a group, at the current level.
func randomGroups(t *testing.T, seed int64, n, trials int) {
	rng := rand.New(rand.NewSource(seed))
	w := NewEnvWork()
	for trial := 0; trial < trials; trial++ {
		var om *oprofile.Profile
		switch trial % 4 {
		case 0:
			om = randomOdds(rng, 1+rng.Intn(60), 5)
		case 1:
			om = randomOdds(rng, 100+rng.Intn(300), 5)
		case 2:
			om = wideStateOdds(rng)
		default:
			om = randomOdds(rng, 1+rng.Intn(200), 5)
		}
		om = unihitOr(rng, om)
		ds, oms := make([][]byte, n), make([]*oprofile.Profile, n)
		for j, L := range envLengths(rng, trial, n) {
			ds[j] = randomDsq(rng, L, 5)
			oms[j] = om
			if j > 0 {
				oms[j] = unihitOr(rng, otherLength(rng, om))
			}
		}
		sameGroup(t, "random", ds, oms, w)
		sameParsers(t, "random", ds, oms, w)
	}
}

func TestEnvPairRandom(t *testing.T) {
	needPair(t)
	withLevel(simd.AVX2, func() { randomGroups(t, 5, 2, 300) })
}

func TestEnvQuadRandom(t *testing.T) {
	needQuad(t)
	for n := 2; n <= 4; n++ {
		randomGroups(t, int64(10+n), n, 200)
	}
}

// TestEnvGroupWithoutKernels: below AVX2, and for one target, the group
// functions are Forward and Backward.
func TestEnvGroupWithoutKernels(t *testing.T) {
	withLevel(simd.SSE, func() { randomGroups(t, 7, 2, 40) })
	randomGroups(t, 8, 1, 40)
}

// The quad envelope kernels made of SSE rows, one per part, on the same
// memory (the neighbour row n = q*48 bytes away).
func envQuadFwdBySSE(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xB *qvec, all4 bool, xEv *qvec) {
	for p := range dc {
		prev := (*[4]float32)(unsafe.Add(unsafe.Pointer(dc[p]), -q*48))
		fwdRowSSE(prev, dc[p], tf, rf[p], q, xB[4*p], all4, (*[4]float32)(xEv[4*p:4*p+4]))
	}
}

func envQuadInBySSE(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xBv *qvec) {
	for p := range dc {
		next := (*[4]float32)(unsafe.Add(unsafe.Pointer(dc[p]), q*48))
		bckRowInSSE(next, dc[p], tf, rf[p], q, (*[4]float32)(xBv[4*p:4*p+4]))
	}
}

// parQuadInBySSE is envQuadInBySSE on parser rows: row i+1 is row i.
func parQuadInBySSE(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xBv *qvec) {
	for p := range dc {
		bckRowInSSE(dc[p], dc[p], tf, rf[p], q, (*[4]float32)(xBv[4*p:4*p+4]))
	}
}

func envQuadOutBySSE(dc *[4]*[4]float32, tf *[4]float32, q int, xE *qvec) {
	for p := range dc {
		bckRowOutSSE(dc[p], tf, q, xE[4*p])
	}
}

// envQuadIn3BySSE is bckRowInSSE and then phase 3 in Go lanes, per part.
func envQuadIn3BySSE(dc *[4]*[4]float32, tf *[4]float32, rf *[4]*[4]float32, q int, xE *qvec, xBv *qvec, carry *qvec) {
	envQuadInBySSE(dc, tf, rf, q, xBv)
	tv := unsafe.Slice((*vec)(unsafe.Pointer(tf)), 8*q)
	for p := range dc {
		row := unsafe.Slice((*vec)(unsafe.Pointer(dc[p])), 3*q)
		xEv := splat(xE[4*p])
		dpv := leftshift(vadd(row[cD], xEv))
		var dcv vec
		for k := q - 1; k >= 0; k-- {
			dcv = vmul(dpv, tv[7*q+k])
			dpv = vadd(row[3*k+cD], vadd(dcv, xEv))
			row[3*k+cD] = dpv
			row[3*k+cM] = vadd(row[3*k+cM], xEv)
		}
		copy(carry[4*p:4*p+4], dcv[:])
	}
}

// envQuadOut45BySSE is phases 4 and 5 in Go lanes, per part.
func envQuadOut45BySSE(dc *[4]*[4]float32, tf *[4]float32, q int, carry *qvec) {
	tv := unsafe.Slice((*vec)(unsafe.Pointer(tf)), 8*q)
	for p := range dc {
		row := unsafe.Slice((*vec)(unsafe.Pointer(dc[p])), 3*q)
		dcv := vec(carry[4*p : 4*p+4])
	passes:
		for j := 0; j < 3; j++ {
			dcv = leftshift(dcv)
			for k := q - 1; k >= 0; k-- {
				dcv = vmul(dcv, tv[7*q+k])
				if dcv == (vec{}) {
					break passes
				}
				row[3*k+cD] = vadd(row[3*k+cD], dcv)
			}
		}
		dcv = leftshift(row[cD])
		for k := q - 1; k >= 0; k-- {
			row[3*k+cM] = vadd(row[3*k+cM], vmul(dcv, tv[7*k+oprofile.FMD]))
			dcv = row[3*k+cD]
		}
	}
}

// TestEnvQuadBookkeeping runs the group functions at the AVX-512 level
// with the quad kernels replaced by SSE rows: idle parts, targets ending
// at different rows, the longest going on alone. It runs wherever AVX2
// does (the one-target rows are the wide ones).
func TestEnvQuadBookkeeping(t *testing.T) {
	needPair(t)
	oldFwd, oldIn, oldOut, oldIn3, oldOut45, oldPar := envQuadFwd, envQuadIn, envQuadOut, envQuadIn3, envQuadOut45, parQuadIn
	envQuadFwd, envQuadIn, envQuadOut = envQuadFwdBySSE, envQuadInBySSE, envQuadOutBySSE
	envQuadIn3, envQuadOut45, parQuadIn = envQuadIn3BySSE, envQuadOut45BySSE, parQuadInBySSE
	defer func() {
		envQuadFwd, envQuadIn, envQuadOut, envQuadIn3, envQuadOut45, parQuadIn = oldFwd, oldIn, oldOut, oldIn3, oldOut45, oldPar
	}()
	withLevel(simd.AVX512, func() {
		for n := 2; n <= 4; n++ {
			randomGroups(t, int64(20+n), n, 150)
		}
	})
}

// TestEnvGroupRealModels: envelopes cut from the testdata databases,
// each model unihit with its target's length, as rescoring runs them.
func TestEnvGroupRealModels(t *testing.T) {
	needPair(t)
	models, _ := filepath.Glob(filepath.Join(testutil.Testdata(t, "hmmer3/models"), "*.hmm.gz"))
	if len(models) == 0 {
		t.Fatal("no testdata models")
	}
	rng := rand.New(rand.NewSource(1))
	w := NewEnvWork()
	for _, path := range models {
		om := loadModel(t, path)
		n := EnvGroup()
		for trial := 0; trial < 12; trial++ {
			ds, oms := make([][]byte, n), make([]*oprofile.Profile, n)
			for j := range ds {
				L := om.M/2 + rng.Intn(om.M+1)
				ds[j] = randomDsq(rng, L, om.Abc.K)
				c := *om
				c.ReconfigUnihit(L + rng.Intn(500))
				oms[j] = &c
			}
			sameGroup(t, filepath.Base(path), ds, oms, w)
		}
	}
}

// TestEnvBackwardWrongGuess: BackwardGroup against Backward on unihit
// profiles with a NaN match odds value, where J turns NaN and every
// guess of E from there on is wrong: those targets leave the group's
// phases 4 and 5 and redo their rows alone (see TestBackwardGuessedE).
// Pairs on the AVX2 kernels; three and four targets with the quad
// kernels replaced by SSE rows.
func TestEnvBackwardWrongGuess(t *testing.T) {
	needPair(t)
	oldIn3, oldOut45 := envQuadIn3, envQuadOut45
	envQuadIn3, envQuadOut45 = envQuadIn3BySSE, envQuadOut45BySSE
	defer func() { envQuadIn3, envQuadOut45 = oldIn3, oldOut45 }()
	rng := rand.New(rand.NewSource(29))
	w := NewEnvWork()
	missed := 0
	for trial := 0; trial < 120; trial++ {
		n, l := 2, simd.AVX2
		if trial%3 != 0 {
			n, l = 3+trial%2, simd.AVX512
		}
		om := randomOdds(rng, 1+rng.Intn(300), 5)
		om.FB.XF[profile.XE][profile.Loop] = 0
		poisoned := *om
		poisoned.FB.RF = slices.Clone(om.FB.RF)
		poisoned.FB.RF[2] = slices.Clone(om.FB.RF[2])
		poisoned.FB.RF[2][rng.Intn(om.FB.Q)][rng.Intn(4)] = float32(math.NaN())
		ds, oms := make([][]byte, n), make([]*oprofile.Profile, n)
		fwds, bcks := make([]*Matrix, n), make([]*Matrix, n)
		for j, L := range envLengths(rng, trial, n) {
			ds[j] = randomDsq(rng, L, 5)
			o := poisoned
			o.FB.XF[profile.XN] = [2]float32{1 - 0.01*float32(j+1), 0.01 * float32(j+1)}
			oms[j] = &o
			fwds[j], bcks[j] = NewMatrix(), NewMatrix()
			Forward(ds[j], om, fwds[j], true)
			if rng.Intn(2) == 0 {
				ds[j][len(ds[j])/2] = 2
			}
		}
		sc, errs := make([]float32, n), make([]error, n)
		withLevel(l, func() {
			BackwardGroup(ds, oms, fwds, bcks, sc, errs, w)
			for j := range ds {
				want := NewMatrix()
				wsc, werr := Backward(ds[j], oms[j], fwds[j], want, true)
				if (errs[j] == nil) != (werr == nil) || !sameBits(sc[j], wsc) && !(sc[j] != sc[j] && wsc != wsc) {
					t.Fatalf("trial %d target %d: group %v/%v, alone %v/%v", trial, j, sc[j], errs[j], wsc, werr)
				}
				if where, ok := sameMatrix(bcks[j], want); !ok {
					t.Fatalf("trial %d target %d (n=%d, L=%d): group Backward matrix differs (%s)", trial, j, n, len(ds[j]), where)
				}
				for i := 1; i < len(ds[j]); i++ {
					if x := bcks[j].X[i]; x[XE] != x[XE] && x[XC] == x[XC] {
						missed++
						break
					}
				}
			}
		})
	}
	if missed == 0 {
		t.Fatal("no wrong guess of E was exercised")
	}
}

// FuzzEnvGroup: ForwardGroup and BackwardGroup on up to EnvGroup()
// fuzzed envelopes (empty ones dropped) of a random profile, unihit or
// not, against Forward and Backward.
func FuzzEnvGroup(f *testing.F) {
	f.Add(int64(1), uint16(30), true, []byte{0, 1, 2, 3, 4}, []byte{4, 3}, []byte{1}, []byte{2, 2})
	f.Add(int64(2), uint16(150), false, []byte{4, 4, 4, 4, 0, 0}, []byte{1, 1, 1, 1, 1, 1, 1, 1, 1}, []byte(nil), []byte(nil))
	f.Fuzz(func(t *testing.T, seed int64, m uint16, unihit bool, a, b, c, d []byte) {
		needPair(t)
		rng := rand.New(rand.NewSource(seed))
		om := randomOdds(rng, 1+int(m%600), 5)
		if unihit {
			om.FB.XF[profile.XE] = [2]float32{profile.Loop: 0, profile.Move: 1}
		}
		var ds [][]byte
		var oms []*oprofile.Profile
		for _, x := range [][]byte{a, b, c, d} {
			if len(x) == 0 || len(ds) == EnvGroup() {
				continue
			}
			for i := range x {
				x[i] %= 5
			}
			o := otherLength(rng, om)
			o.FB.XF[profile.XE] = om.FB.XF[profile.XE]
			ds, oms = append(ds, x), append(oms, o)
		}
		if len(ds) > 0 {
			sameGroup(t, "fuzz", ds, oms, NewEnvWork())
		}
	})
}
