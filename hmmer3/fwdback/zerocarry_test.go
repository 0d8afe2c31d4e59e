package fwdback

import (
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/internal/simd"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// The Forward and Backward rows at every level (the lane-by-lane Go rows,
// the SSE kernels), whose D->D passes stop at a zero carry (zeroCarry),
// against HMMER's four-lane operations with the passes run to the end
// (refForwardRow, refBackwardRowIn, refBackwardRowOut), on rows of real
// matrices and on random non-negative rows. At the avx2 level (and above)
// these are the wide kernels.

func sameVecs(a, b []vec) bool {
	for j := range a {
		for z := 0; z < 4; z++ {
			if !sameF(a[j][z], b[j][z]) {
				return false
			}
		}
	}
	return len(a) == len(b)
}

// checkRows runs one Forward row, one Backward phase 1 and one Backward
// phases 3-5 on copies of the given rows at every level, from a separate
// previous row and in place (as parsers run them), and compares them
// with the oracle.
func checkRows(t *testing.T, what string, dpp, cur, tf, rf []vec, Q int, xB, xE float32, all4 bool) {
	t.Helper()
	type out struct {
		fwd, fwdInPlace, bin, binInPlace, bout []vec
		xE, xEInPlace, xB, xBInPlace           vec
	}
	run := func(l simd.Level, ref bool) out {
		o := out{fwd: slices.Clone(cur), fwdInPlace: slices.Clone(dpp), bin: slices.Clone(cur),
			binInPlace: slices.Clone(dpp), bout: slices.Clone(cur)}
		withLevel(l, func() {
			if ref {
				o.xE = refForwardRow(dpp, o.fwd, tf, rf, Q, xB, all4)
				o.xEInPlace = refForwardRow(o.fwdInPlace, o.fwdInPlace, tf, rf, Q, xB, all4)
				o.xB = refBackwardRowIn(dpp, o.bin, tf, rf, Q)
				o.xBInPlace = refBackwardRowIn(o.binInPlace, o.binInPlace, tf, rf, Q)
				refBackwardRowOut(o.bout, tf, Q, xE)
				return
			}
			// The wide table, as Forward and Backward pass it (nil below AVX2).
			tw := (&Matrix{}).wide(tf, Q)
			o.xE = forwardRowW(dpp, o.fwd, tf, tw, rf, Q, xB, all4)
			o.xEInPlace = forwardRowW(o.fwdInPlace, o.fwdInPlace, tf, tw, rf, Q, xB, all4)
			o.xB = backwardRowInW(dpp, o.bin, tf, tw, rf, Q)
			o.xBInPlace = backwardRowInW(o.binInPlace, o.binInPlace, tf, tw, rf, Q)
			backwardRowOutW(o.bout, tf, tw, Q, xE)
		})
		return o
	}
	want := run(simd.Generic, true)
	for _, l := range simd.Available() {
		got := run(l, false)
		for _, c := range []struct {
			name   string
			got, w []vec
		}{
			{"Forward row", got.fwd, want.fwd}, {"Forward E", []vec{got.xE}, []vec{want.xE}},
			{"in-place Forward row", got.fwdInPlace, want.fwdInPlace}, {"in-place Forward E", []vec{got.xEInPlace}, []vec{want.xEInPlace}},
			{"Backward phase 1", got.bin, want.bin}, {"Backward B", []vec{got.xB}, []vec{want.xB}},
			{"in-place Backward phase 1", got.binInPlace, want.binInPlace}, {"in-place Backward B", []vec{got.xBInPlace}, []vec{want.xBInPlace}},
			{"Backward phases 3-5", got.bout, want.bout},
		} {
			if !sameVecs(c.got, c.w) {
				t.Fatalf("%s: %s %s differs from HMMER's four-lane operations", what, l, c.name)
			}
		}
	}
}

func TestZeroCarryRealRows(t *testing.T) {
	for _, name := range []string{"fn3", "Pkinase", "SMC_N"} {
		om := loadModel(t, filepath.Join(testutil.Testdata(t, "hmmer3/models"), name+".hmm.gz"))
		sr, err := seqio.Open(testutil.Testdata(t, "hmmer3/prot.fa"), nil, om.Abc)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 6; n++ {
			sq, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			om.ReconfigUnihit(sq.L())
			fwd, bck := NewMatrix(), NewMatrix()
			if _, err := Forward(sq.Dsq, om, fwd, true); err != nil {
				continue
			}
			if _, err := Backward(sq.Dsq, om, fwd, bck, true); err != nil {
				continue
			}
			for i := 1; i <= sq.L(); i += 7 {
				checkRows(t, fmt.Sprintf("%s vs %s row %d", name, sq.Name, i), fwd.row(i-1), bck.row(i),
					om.FB.TF, om.FB.RF[sq.Dsq[i-1]], fwd.Q, fwd.X[i-1][XB], bck.X[i][XE], om.M < 100)
			}
		}
		sr.Close()
	}
}

func TestZeroCarryRandomRows(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for trial := 0; trial < 2000; trial++ {
		M := 1 + rng.Intn(300)
		Q := (M + 3) / 4
		Q = max(Q, 2)
		value := func() float32 {
			switch rng.Intn(6) {
			case 0:
				return 0
			case 1:
				return float32(1e-30 * rng.Float64())
			}
			return float32(rng.Float64() * 3)
		}
		row := func(n int) []vec {
			r := make([]vec, n)
			for j := range r {
				for z := range r[j] {
					r[j][z] = value()
				}
			}
			return r
		}
		tf, rf, dpp, cur := row(8*Q), row(Q), row(3*Q), row(3*Q)
		for q := 7 * Q; q < 8*Q; q++ { // D->D: zero, tiny, or close to one
			for z := 0; z < 4; z++ {
				switch rng.Intn(4) {
				case 0:
					tf[q][z] = 0
				case 1:
					tf[q][z] = float32(1e-20 * rng.Float64())
				case 2:
					tf[q][z] = float32(0.9 + 0.1*rng.Float64())
				default:
					tf[q][z] = float32(rng.Float64())
				}
			}
		}
		checkRows(t, fmt.Sprintf("trial %d (Q=%d)", trial, Q), dpp, cur, tf, rf, Q, value(), value(), rng.Intn(2) == 0)
	}
}
