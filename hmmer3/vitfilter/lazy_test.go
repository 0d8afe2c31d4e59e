package vitfilter

import (
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// TestLazySkipBruteForce checks oprofile's lazy-F bounds
// (VitStripes.SkipLanes) against their definition, summed path by path.
func TestLazySkipBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 300; trial++ {
		M := 1 + rng.Intn(200)
		p := randomProfile(rng, M, 4, trial%3 == 0)
		for _, lanes := range []int{8, 16, 32} {
			Q := max(1, (M+lanes-1)/lanes)
			st := p.StripesFor(lanes)
			got, ok := st.SkipLanes, !st.LazyAlways
			wantOK := true
			for k := 1; k <= M; k++ {
				if p.T[k][oprofile.VDD] > 0 || p.T[k][oprofile.VDM] > 0 {
					wantOK = false
				}
			}
			var want [32]int16
			for z := 0; z < lanes; z++ {
				best := int64(-1 << 40)
				if j := z*Q + 1; z > 0 {
					for n := j + 1; n+1 <= M; n++ {
						sum := int64(0)
						for m := j; m < n; m++ {
							sum += int64(p.T[m][oprofile.VDD])
						}
						best = max(best, sum+int64(p.T[n+1][oprofile.VDM])-int64(p.T[n+1][oprofile.VBM]))
					}
				}
				if best > 32767 {
					wantOK = false
				}
				want[z] = int16(min(32767, max(best, -32768)))
			}
			if ok != wantOK {
				t.Fatalf("trial %d (M=%d, %d lanes): ok %v, want %v", trial, M, lanes, ok, wantOK)
			}
			if ok && got != want {
				t.Fatalf("trial %d (M=%d, %d lanes): skip %v, want %v", trial, M, lanes, got[:lanes], want[:lanes])
			}
		}
	}
}

// TestLazyBoundSharp builds profiles where one lane-crossing D path
// beats B by a few units, or loses by a few: only B and D enter M (no
// M->M, I->M), a match of residue 0 at node s just before a lane
// boundary (first node j of the next lane, in the 8-, 16- or 32-lane
// layout) opens a deletion path that reaches node j+1, and residue 1 matches
// well at node j+2, where that path competes with B. The path wins by
// margin = E(s) - MD - DD*(j-s); lazySkip's bound is exact here, so a
// bound lower by 2 or more changes scores.
func TestLazyBoundSharp(t *testing.T) {
	defer forceMultiTarget()()
	rng := rand.New(rand.NewSource(8))
	for trial := 0; trial < 600; trial++ {
		M := 20 + rng.Intn(300)
		p := randomProfile(rng, M, 4, false)
		lanes := []int{8, 16, 32}[trial%3]
		Q := (M + lanes - 1) / lanes
		z := 1 + rng.Intn(max(1, (M-3)/Q-1))
		j := z*Q + 1
		if Q < 2 || j+2 > M {
			continue
		}
		s := j - 1 - rng.Intn(min(Q, 3))
		X, md, dd := int16(2000+rng.Intn(4000)), int16(rng.Intn(50)), int16(rng.Intn(3))
		margin := int16(rng.Intn(7) - 3)
		for k := 1; k <= M; k++ {
			tk := &p.T[k]
			tk[oprofile.VBM], tk[oprofile.VMM], tk[oprofile.VIM], tk[oprofile.VDM] = -X, -32768, -32768, 0
			tk[oprofile.VMD], tk[oprofile.VDD] = -md, -dd
			for x := range p.RWV {
				p.RWV[x][k] = -3000
			}
		}
		p.T[M][oprofile.VMD], p.T[M][oprofile.VMI], p.T[M][oprofile.VII], p.T[M][oprofile.VDD] = -32768, -32768, -32768, -32768
		p.RWV[0][s] = margin + md + dd*int16(j-s)
		p.RWV[1][j+2] = 3000
		p.Stripe()
		jobs := make([]Job, 1+rng.Intn(4))
		for i := range jobs {
			jobs[i] = Job{Dsq: randomSeq(rng, 2+rng.Intn(40), 3), XW: p.XW}
		}
		out := make([]float32, len(jobs))
		for _, bl := range batchLevels() {
			l := bl.l
			scoreBatchAt(bl, p, jobs, out)
			for i := range jobs {
				want := refScore(jobs[i].Dsq, p, &jobs[i].XW)
				if got := scoreXW(l, jobs[i].Dsq, p, &jobs[i].XW); !same(got, want) {
					t.Fatalf("trial %d (M=%d L=%d margin %d): %s kernel %v, reference %v", trial, M, len(jobs[i].Dsq), margin, l, got, want)
				}
				if !same(out[i], want) {
					t.Fatalf("trial %d (M=%d L=%d margin %d), job %d: %s batch %v, reference %v", trial, M, len(jobs[i].Dsq), margin, i, bl, out[i], want)
				}
			}
		}
	}
}
