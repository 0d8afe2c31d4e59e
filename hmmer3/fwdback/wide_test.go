package fwdback

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// The wide (AVX2) row kernels against the SSE ones, bit for bit, on raw
// rows: every Q from 1 to 40 and random Q up to 750 (M = 3000), odd and
// even, rows from a separate previous row and in place, both D->D pass
// modes, and values that exercise every corner of the arithmetic: zeros,
// subnormals (read as zero under DAZ), products that flush, huge values,
// infinities and NaN (whose payload propagation the operand order
// decides).

// wildValue is a cell or odds value: mostly ordinary, sometimes extreme.
func wildValue(rng *rand.Rand) float32 {
	switch rng.Intn(40) {
	case 0, 1, 2, 3:
		return 0
	case 4:
		return math.Float32frombits(1 + uint32(rng.Intn(1<<23-1))) // subnormal
	case 5, 6:
		return float32(1e-30 * rng.Float64())
	case 7:
		return float32(1e-19 * rng.Float64()) // squares flush
	case 8:
		return float32(1e30 * rng.Float64())
	case 9:
		return float32(math.Inf(1))
	case 10:
		return math.Float32frombits(0x7fc00000 | uint32(rng.Intn(1<<22))) // NaN with a payload
	}
	return float32(rng.Float64() * 3)
}

func wildRow(rng *rand.Rand, n int, tame bool) []vec {
	r := make([]vec, n)
	for j := range r {
		for z := range r[j] {
			if tame {
				r[j][z] = float32(rng.Float64())
				if rng.Intn(5) == 0 {
					r[j][z] = 0
				}
			} else {
				r[j][z] = wildValue(rng)
			}
		}
	}
	return r
}

func sameBitsVecs(a, b []vec) bool {
	if len(a) != len(b) {
		return false
	}
	for j := range a {
		for z := 0; z < 4; z++ {
			if math.Float32bits(a[j][z]) != math.Float32bits(b[j][z]) {
				return false
			}
		}
	}
	return true
}

func TestWideKernelsMatchSSE(t *testing.T) {
	if !slices.Contains(simd.Available(), simd.AVX2) {
		t.Skip("no AVX2 on this machine: the wide kernels cannot run")
	}
	rng := rand.New(rand.NewSource(17))
	var qs []int
	for Q := 1; Q <= 40; Q++ {
		qs = append(qs, Q, Q)
	}
	for n := 0; n < 60; n++ {
		qs = append(qs, 41+rng.Intn(710))
	}
	qs = append(qs, 749, 750)
	for trial, Q := range qs {
		// Tame rows (probabilities, zeros) keep the D->D carries alive
		// across many passes; wild ones hit the corners.
		tame := trial%3 == 0
		tf, rf := wildRow(rng, 8*Q, tame), wildRow(rng, Q, tame)
		for q := 7 * Q; q < 8*Q; q++ {
			for z := 0; z < 4; z++ {
				if rng.Intn(3) == 0 {
					tf[q][z] = float32(0.9 + 0.1*rng.Float64())
				}
			}
		}
		dpp, cur := wildRow(rng, 3*Q, tame), wildRow(rng, 3*Q, tame)
		xB, xE := wildValue(rng), wildValue(rng)
		if tame {
			xB, xE = float32(rng.Float64()), float32(rng.Float64())
		}
		all4 := rng.Intn(2) == 0
		tw := wideTransitions(tf, Q, nil)
		what := fmt.Sprintf("trial %d (Q=%d, tame=%v, all4=%v)", trial, Q, tame, all4)

		// Forward, from a separate row and in place.
		for _, inPlace := range []bool{false, true} {
			a, b := slices.Clone(cur), slices.Clone(cur)
			pa, pb := dpp, dpp
			if inPlace {
				a, b = slices.Clone(dpp), slices.Clone(dpp)
				pa, pb = a, b
			}
			var ea, eb vec
			fwdRowSSE(asVec4(pa), asVec4(a), asVec4(tf), asVec4(rf), Q, xB, all4, (*[4]float32)(&ea))
			fwdRowAVX2(asVec4(pb), asVec4(b), asVec4(tw), asVec4(tf[7*Q:]), asVec4(rf), Q, xB, all4, (*[4]float32)(&eb))
			if !sameBitsVecs(a, b) || !sameBitsVecs([]vec{ea}, []vec{eb}) {
				t.Fatalf("%s in place %v: Forward row differs", what, inPlace)
			}
		}
		// Backward phase 1, from a separate row and in place.
		for _, inPlace := range []bool{false, true} {
			a, b := slices.Clone(cur), slices.Clone(cur)
			pa, pb := dpp, dpp
			if inPlace {
				a, b = slices.Clone(dpp), slices.Clone(dpp)
				pa, pb = a, b
			}
			var xa, xb vec
			bckRowInSSE(asVec4(pa), asVec4(a), asVec4(tf), asVec4(rf), Q, (*[4]float32)(&xa))
			bckRowInAVX2(asVec4(pb), asVec4(b), asVec4(tw), asVec4(rf), Q, (*[4]float32)(&xb))
			if !sameBitsVecs(a, b) || !sameBitsVecs([]vec{xa}, []vec{xb}) {
				t.Fatalf("%s in place %v: Backward phase 1 differs", what, inPlace)
			}
		}
		// Backward phases 3-5.
		a, b := slices.Clone(cur), slices.Clone(cur)
		bckRowOutSSE(asVec4(a), asVec4(tf), Q, xE)
		bckRowOutAVX2(asVec4(b), asVec4(tw), asVec4(tf[7*Q:]), Q, xE)
		if !sameBitsVecs(a, b) {
			t.Fatalf("%s: Backward phases 3-5 differ", what)
		}
		// A whole Backward row with phase 3 fused into phase 1, from a
		// separate row and in place.
		for _, inPlace := range []bool{false, true} {
			a, b := slices.Clone(cur), slices.Clone(cur)
			pa, pb := dpp, dpp
			if inPlace {
				a, b = slices.Clone(dpp), slices.Clone(dpp)
				pa, pb = a, b
			}
			var xa, xb, carry vec
			bckRowInSSE(asVec4(pa), asVec4(a), asVec4(tf), asVec4(rf), Q, (*[4]float32)(&xa))
			bckRowOutSSE(asVec4(a), asVec4(tf), Q, xE)
			bckRowIn3AVX2(asVec4(pb), asVec4(b), asVec4(tw), asVec4(tf[7*Q:]), asVec4(rf), Q, xE, (*[4]float32)(&xb), (*[4]float32)(&carry))
			bckRowOut45AVX2(asVec4(b), asVec4(tw), asVec4(tf[7*Q:]), Q, xE, (*[4]float32)(&carry))
			if !sameBitsVecs(a, b) || !sameBitsVecs([]vec{xa}, []vec{xb}) {
				t.Fatalf("%s in place %v: fused Backward row differs", what, inPlace)
			}
		}
	}
}

// BenchmarkRowKernels reports GCUPS (model nodes per row call, one core)
// of each row kernel, SSE against wide, on the rows of a consensus
// envelope's full matrices (realistic values, so the D->D passes stop
// where they would in rescoring): the Forward row, Backward phase 1, and
// Backward phases 1 and 3-5 together (a whole Backward row but for the
// specials). Each runs on 16 rows from the middle of the envelope, from a
// separate previous row into one scratch row, all in cache as in the
// Forward and Backward loops (cycling through the whole matrix would time
// its memory instead).
func BenchmarkRowKernels(b *testing.B) {
	if !slices.Contains(simd.Available(), simd.AVX2) {
		b.Skip("no AVX2 on this machine")
	}
	paths := map[string]string{}
	for _, name := range []string{"fn3", "Pkinase", "SMC_N"} {
		paths[name] = filepath.Join(testutil.Testdata(b, "hmmer3/models"), name+".hmm.gz")
	}
	for _, name := range []string{"fn3", "Pkinase", "SMC_N", "2405"} {
		path := paths[name]
		if name == "2405" {
			path = filepath.Join(testutil.SharedData(b, "CUDAMPF/query_models"), "2405.hmm.gz")
		}
		om, dsq := consensusEnvelope(b, path)
		L, Q, tf := len(dsq), om.FB.Q, om.FB.TF
		fwd, bck := NewMatrix(), NewMatrix()
		if _, err := Forward(dsq, om, fwd, true); err != nil {
			b.Fatal(err)
		}
		if _, err := Backward(dsq, om, fwd, bck, true); err != nil {
			b.Fatal(err)
		}
		tw := wideTransitions(tf, Q, nil)
		scratch := make([]vec, 3*Q)
		all4 := om.M < 100
		mid := L/2 - 8
		for _, k := range []struct {
			name string
			wide bool
		}{{"sse", false}, {"wide", true}} {
			var w []vec
			if k.wide {
				w = tw
			}
			run := func(b *testing.B, row func(i int)) {
				withLevel(simd.AVX2, func() {
					defer lockThread()()
					c0 := threadCPU()
					for n := 0; n < b.N; n++ {
						row(mid + n%16)
					}
					reportCells(b, b.N*om.M, threadCPU()-c0)
				})
			}
			b.Run(name+"/fwd/"+k.name, func(b *testing.B) {
				run(b, func(i int) {
					forwardRowW(fwd.row(i-1), scratch, tf, w, om.FB.RF[dsq[i-1]], Q, fwd.X[i-1][XB], all4)
				})
			})
			b.Run(name+"/bck-in/"+k.name, func(b *testing.B) {
				run(b, func(i int) { backwardRowInW(bck.row(i+1), scratch, tf, w, om.FB.RF[dsq[i]], Q) })
			})
			b.Run(name+"/bck-row/"+k.name, func(b *testing.B) {
				run(b, func(i int) {
					backwardRowInW(bck.row(i+1), scratch, tf, w, om.FB.RF[dsq[i]], Q)
					backwardRowOutW(scratch, tf, w, Q, bck.X[i][XE]*bck.X[i][XScale])
				})
			})
		}
	}
}

// TestBackwardGuessedE: full unihit Backward matrices on the wide kernels
// (phase 3 on a guess of E) against the SSE kernels, bit for bit, on
// random profiles where the guess holds and on profiles with a NaN match
// odds value, where J (and so E) turns NaN and every guess from there on
// is wrong and redone. (E->J zero, a guess can only be wrong when J is
// infinite or NaN, and E is then NaN; the row's D and M cells are NaN
// with or without the redo, which is kept as the safe path.)
func TestBackwardGuessedE(t *testing.T) {
	if !slices.Contains(simd.Available(), simd.AVX2) {
		t.Skip("no AVX2 on this machine: the wide kernels cannot run")
	}
	rng := rand.New(rand.NewSource(23))
	missed := 0
	for trial := 0; trial < 200; trial++ {
		om := randomOdds(rng, 1+rng.Intn(300), 5)
		om.FB.XF[profile.XE][profile.Loop] = 0
		dsq := make([]byte, 1+rng.Intn(80))
		for i := range dsq {
			dsq[i] = byte(rng.Intn(5))
		}
		fwd := NewMatrix()
		withLevel(simd.SSE, func() { Forward(dsq, om, fwd, true) })
		// Backward (on Forward's scales) with a NaN match odds value.
		bom := om
		poison := trial%2 == 1
		if poison {
			cp := *om
			cp.FB.RF = slices.Clone(om.FB.RF)
			cp.FB.RF[2] = slices.Clone(om.FB.RF[2])
			cp.FB.RF[2][rng.Intn(om.FB.Q)][rng.Intn(4)] = float32(math.NaN())
			bom = &cp
			dsq[len(dsq)/2] = 2
		}
		want, got := NewMatrix(), NewMatrix()
		var wsc, gsc float32
		var werr, gerr error
		withLevel(simd.SSE, func() { wsc, werr = Backward(dsq, bom, fwd, want, true) })
		withLevel(simd.AVX2, func() { gsc, gerr = Backward(dsq, bom, fwd, got, true) })
		if (gerr == nil) != (werr == nil) || !sameBits(gsc, wsc) && !(gsc != gsc && wsc != wsc) {
			t.Fatalf("trial %d: wide Backward %v/%v, SSE %v/%v", trial, gsc, gerr, wsc, werr)
		}
		if where, ok := sameMatrix(got, want); !ok {
			t.Fatalf("trial %d: wide Backward matrix differs from SSE (%s)", trial, where)
		}
		for i := 1; i < len(dsq); i++ {
			x := got.X[i]
			// E NaN with C finite: the guess (C's share) was finite, so wrong.
			if x[XE] != x[XE] && x[XC] == x[XC] {
				missed++
				break
			}
		}
	}
	if missed == 0 {
		t.Fatal("no wrong guess of E was exercised")
	}
}

// TestWideMatricesMatchSSE: whole Forward and Backward runs, full
// matrices and parsers, multihit and unihit, on random odds profiles
// (subnormal-range products, rows past the rescaling threshold, D->D
// close to one) with M from 1 to 3000 and many target lengths: every
// cell, special, scale and score of the wide kernels against the SSE
// kernels, bit for bit.
func TestWideMatricesMatchSSE(t *testing.T) {
	if !slices.Contains(simd.Available(), simd.AVX2) {
		t.Skip("no AVX2 on this machine: the wide kernels cannot run")
	}
	rng := rand.New(rand.NewSource(29))
	var ms []int
	for M := 1; M <= 24; M++ {
		ms = append(ms, M)
	}
	for n := 0; n < 24; n++ {
		ms = append(ms, 25+rng.Intn(600))
	}
	ms = append(ms, 1499, 2999, 3000)
	scored := 0
	for _, M := range ms {
		om := randomOdds(rng, M, 5)
		unihit := rng.Intn(2) == 0
		if unihit {
			om.FB.XF[profile.XE][profile.Loop] = 0
		}
		L := rng.Intn(70)
		if M > 1000 {
			L = rng.Intn(12)
		}
		dsq := make([]byte, L)
		for i := range dsq {
			dsq[i] = byte(rng.Intn(5))
		}
		for _, full := range []bool{true, false} {
			want, got := runFB(simd.SSE, dsq, om, full), runFB(simd.AVX2, dsq, om, full)
			if !sameBits(got.fsc, want.fsc) || !sameBits(got.bsc, want.bsc) ||
				(got.ferr == nil) != (want.ferr == nil) || (got.berr == nil) != (want.berr == nil) {
				t.Fatalf("M=%d L=%d full=%v unihit=%v: wide fwd %v/%v bck %v/%v, SSE fwd %v/%v bck %v/%v",
					M, L, full, unihit, got.fsc, got.ferr, got.bsc, got.berr, want.fsc, want.ferr, want.bsc, want.berr)
			}
			if where, ok := sameMatrix(got.fwd, want.fwd); full && !ok {
				t.Fatalf("M=%d L=%d unihit=%v: wide Forward matrix differs (%s)", M, L, unihit, where)
			}
			if where, ok := sameMatrix(got.bck, want.bck); full && want.ferr == nil && !ok {
				t.Fatalf("M=%d L=%d unihit=%v: wide Backward matrix differs (%s)", M, L, unihit, where)
			}
			if full && want.berr == nil && want.ferr == nil {
				scored++
			}
		}
	}
	if scored < len(ms)/2 {
		t.Fatalf("only %d of %d targets scored without a range error", scored, len(ms))
	}
}
