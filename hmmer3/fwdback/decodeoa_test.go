package fwdback

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/internal/simd"
)

// TestDecodeOARowLevels runs DecodeAlign's row kernel at every level on
// rows of wild values against the Go form (decodeOARowGo), with and
// without the row sum and the next row's decoding, and checks every
// output vector bit for bit (any NaN matching any NaN), the inputs it
// must not write, and guard vectors past each row. Profiles have zero
// transitions everywhere, in a few vectors (as real ones) or none, so
// that the kernels' plain path (no masks) and masked path both run.
func TestDecodeOARowLevels(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	const guard = 2
	var plain, masked int
	for trial := 0; trial < 400; trial++ {
		M := 1 + rng.Intn(160)
		if trial%20 == 0 {
			M = 500 + rng.Intn(2500)
		}
		om, fwd, _ := randomPostCase(rng, M, 2)
		Q := fwd.Q
		if keep := []float64{1, 0.05, 0}[trial%3]; keep < 1 {
			// Only a fraction keep of the vectors keep their zeros.
			for q := 0; q < Q; q++ {
				if rng.Float64() >= keep {
					for _, j := range []int{7 * q, 7*q + 1, 7*q + 2, 7*q + 3, 7*q + 4, 7*q + 5, 7*q + 6, 7*Q + q} {
						om.FB.TF[j] = vec{0.5, 0.25, 1e-30, 3}
					}
				}
			}
		}
		ox := NewMatrix()
		ox.grow(om.M, 1, true)
		ox.setMasks(om.FB.TF)
		for _, p := range ox.plain {
			if p != 0 {
				plain++
			} else {
				masked++
			}
		}
		wild := func(n int) []vec {
			vs := make([]vec, n+guard)
			for j := range vs {
				for z := range vs[j] {
					vs[j][z] = wildFloat(rng)
				}
			}
			return vs
		}
		dpp, dpc, ppr, acc, nf, nb := wild(3*Q), wild(3*Q), wild(3*Q), wild(3*Q), wild(3*Q), wild(3*Q)
		xB, scale := wildFloat(rng), wildFloat(rng)
		sums, next := trial%4 < 2, trial%5 < 3
		what := fmt.Sprintf("trial %d (M=%d sums=%v next=%v)", trial, M, sums, next)
		type rows struct{ dpc, acc, nb []vec }
		run := func(l simd.Level) (rows, vec) {
			r := rows{slices.Clone(dpc), slices.Clone(acc), slices.Clone(nb)}
			var a, f, b []vec
			if sums {
				a = r.acc[:3*Q]
			}
			if next {
				f, b = nf[:3*Q], r.nb[:3*Q]
			}
			var xEv vec
			in := [][]vec{slices.Clone(dpp), slices.Clone(ppr), slices.Clone(nf)}
			withLevel(l, func() {
				xEv = decodeOARow(dpp[:3*Q], r.dpc[:3*Q], ppr[:3*Q], ox.mask, Q, xB, &ox.ddAll, ox.plain, a, f, b, scale)
			})
			for j, v := range [][]vec{dpp, ppr, nf} {
				if !slices.Equal(flatBits(v), flatBits(in[j])) {
					t.Fatalf("%s: %s wrote input %d", what, l, j)
				}
			}
			return r, xEv
		}
		want, wantE := run(simd.Generic)
		for _, l := range simd.Available() {
			got, gotE := run(l)
			for name, p := range map[string][2][]vec{"OA row": {got.dpc, want.dpc}, "sums": {got.acc, want.acc}, "next row": {got.nb, want.nb}} {
				for j := range p[1] {
					for z := 0; z < 4; z++ {
						if !sameF(p[0][j][z], p[1][j][z]) {
							t.Fatalf("%s: %s %s vector %d lane %d: %g, Go %g", what, l, name, j, z, p[0][j][z], p[1][j][z])
						}
					}
				}
			}
			for z := 0; z < 4; z++ {
				if !sameF(gotE[z], wantE[z]) {
					t.Fatalf("%s: %s E vector lane %d: %g, Go %g", what, l, z, gotE[z], wantE[z])
				}
			}
		}
	}
	if plain < 1000 || masked < 1000 {
		t.Fatalf("%d plain and %d masked vectors: both paths should run", plain, masked)
	}
}

// flatBits is vs as raw bits, so that a NaN equals itself.
func flatBits(vs []vec) []uint32 {
	bs := make([]uint32, 0, 4*len(vs))
	for _, f := range flat(vs) {
		bs = append(bs, math.Float32bits(f))
	}
	return bs
}

// TestDecodeAlignWithoutNull2: DecodeAlign without null2 (an envelope
// whose null2 the trace ensemble set) leaves the matrices of the calls
// Decoding and OptimalAccuracy, row 0 of the posteriors included, at
// every level.
func TestDecodeAlignWithoutNull2(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for trial := 0; trial < 120; trial++ {
		M, L := 1+rng.Intn(300), 1+rng.Intn(30)
		om, fwd, bck := randomPostCase(rng, M, L)
		for _, l := range simd.Available() {
			var wantErr, gotErr error
			wpp, wox := cloneMatrix(bck), cloneMatrix(fwd)
			gpp, gox := cloneMatrix(bck), cloneMatrix(fwd)
			var wsc, gsc float32
			withLevel(l, func() {
				if wantErr = Decoding(om, wox, wpp, wpp); wantErr == nil {
					wsc = OptimalAccuracy(om, wpp, wox)
				}
				gsc, gotErr = DecodeAlign(om, gox, gpp, nil)
			})
			what := fmt.Sprintf("trial %d (M=%d L=%d) %s", trial, M, L, l)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("%s: error %v, calls %v", what, gotErr, wantErr)
			}
			if d := diffMatrix(gpp, wpp); d != "" {
				t.Fatalf("%s: posterior matrix differs: %s", what, d)
			}
			if wantErr != nil {
				continue
			}
			if d := diffMatrix(gox, wox); d != "" {
				t.Fatalf("%s: optimal accuracy matrix differs: %s", what, d)
			}
			if !sameF(gsc, wsc) {
				t.Fatalf("%s: score %g, calls %g", what, gsc, wsc)
			}
		}
	}
}
