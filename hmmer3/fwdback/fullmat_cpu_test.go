package fwdback

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// The full matrices fwd.cu and bwd.cu store for envelope rescoring
// (fmat, bmat), run on the CPU through the shim as in cudacpu_test.go:
// every cell of Forward's rows 0..L and Backward's rows 1..L bit for bit
// with Forward(.., true) and Backward(.., true), in every placement and
// row walk, for multihit targets with their own length model and for
// unihit envelopes (stretches of a target, down to one residue) scored
// with the whole target's length model, as domaindef's rescoring runs
// them.

// envelopes cuts n stretches out of targets of h, and gives each the
// length of the target it comes from. Homologous targets rescale rows in
// both directions and make Backward switch to its own scale factors.
func envelopes(rng *rand.Rand, h *hmm.HMM, n int) (dsqs [][]byte, lengths []int) {
	for len(dsqs) < n {
		var target []byte
		if rng.Intn(2) == 0 {
			target = homolog(rng, h, 1+rng.Intn(6))
		} else {
			target = testmodels.RandomDsq(rng, h.Alph, 1+rng.Intn(300))
		}
		if len(target) == 0 {
			continue
		}
		var a, b int
		switch rng.Intn(4) {
		case 0: // one residue
			a = rng.Intn(len(target))
			b = a + 1
		case 1: // the whole target
			a, b = 0, len(target)
		default:
			a = rng.Intn(len(target))
			b = a + 1 + rng.Intn(len(target)-a)
		}
		dsqs = append(dsqs, target[a:b])
		lengths = append(lengths, len(target))
	}
	return dsqs, lengths
}

// sameCells fails the test at the first cell of rows first..L where got
// (a kernel's matrix) and want (the CPU's) differ in a bit.
func sameCells(t *testing.T, what string, got, want []float32, Q, first, L int) {
	t.Helper()
	for j := first * 12 * Q; j < (L+1)*12*Q; j++ {
		if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
			row, q, s, z := j/(12*Q), j/12%Q, j/4%3, j%4
			t.Errorf("%s: row %d node %d state %d: %v (%08x), CPU %v (%08x)", what, row, z*Q+q+1, s,
				got[j], math.Float32bits(got[j]), want[j], math.Float32bits(want[j]))
			return
		}
	}
}

func TestFullMatricesOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(29))
	amino := alphabet.New(alphabet.Amino)
	own, rescaled := 0, 0
	ms := map[string][]int{"shared": {1, 3, 64}, "state-shared": {2, 101}, "global": {3, -100}, "global+profile": {230},
		"shared, chunks of 4": {6, 99}, "global, chunks of 16": {-130, 300}}
	for _, v := range shimBuilds {
		exe := buildShim(t, cc, v.shape(true))
		for _, M := range v.models(t, ms) {
			h, M := modelOfSize(rng, amino, M)
			for _, unihit := range []bool{false, true} {
				om := optimizedProfile(h)
				dsqs := randomTargets(rng, h, 20, 150)
				lengths := ownLengths(dsqs)
				if unihit {
					// domaindef: unihit with the whole target's length
					// model, each envelope its own length apart.
					om.ReconfigUnihit(om.L)
					dsqs, lengths = envelopes(rng, h, 40)
				}
				plan, err := newFwdPlan(om, lengths)
				if err != nil {
					t.Fatal(err)
				}
				var idx []int
				for i, d := range dsqs {
					if len(d) > 0 {
						idx = append(idx, i)
					}
				}
				// Two blocks of two warps: 32 targets at a time, so the 40
				// envelopes make the warps come back for more work.
				r, xoff, m := runShimMats(t, exe, plan, shimShape(plan, 2, 2, v.profShared, v.stateShared), dsqs, true, true)
				got := finishParsers(om, plan, dsqs, lengths, idx, xoff, r)
				for _, i := range idx {
					d := dsqs[i]
					what := fmt.Sprintf("%s M=%d unihit=%v target %d (L=%d of %d)", v.name, M, unihit, i, len(d), lengths[i])
					want := cpuMatrices(om, d, lengths[i], true)
					sameParser(t, what, got[i], want)
					n := (len(d) + 1) * 12 * plan.Q
					o := int(m.moff[i])
					sameCells(t, what+" forward", m.fm[o:o+n], flat(want.Fwd.dp), plan.Q, 0, len(d))
					sameCells(t, what+" backward", m.bm[o:o+n], flat(want.Bck.dp), plan.Q, 1, len(d))
					if want.Bck.HasOwnScales {
						own++
					}
					for _, x := range want.Fwd.X[1:] {
						if x[XScale] > 1 {
							rescaled++
							break
						}
					}
				}
			}
		}
	}
	if own == 0 || rescaled == 0 {
		t.Errorf("%d targets with rescaled Forward rows, %d with Backward's own scale factors: a path went untested", rescaled, own)
	}
}
