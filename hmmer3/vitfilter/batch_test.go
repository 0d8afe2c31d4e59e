package vitfilter

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/simd"
)

// forceMultiTarget sends every model size through the paired (AVX2)
// and four-target (AVX-512) kernels; the returned func restores the
// limits.
func forceMultiTarget() func() {
	p, q := pairMaxM, multiMaxM
	pairMaxM, multiMaxM = 1<<30, 1<<30
	return func() { pairMaxM, multiMaxM = p, q }
}

// batchLevel is a kernel level and, on AVX-512, the multi-target form
// that ScoreBatch is to use there.
type batchLevel struct {
	l  simd.Level
	mk multiKernel
}

// batchLevels lists every level this machine has, AVX-512 once per
// multi-target form (four targets of 8 lanes, two of 16).
func batchLevels() []batchLevel {
	var ls []batchLevel
	for _, l := range simd.Available() {
		if l >= simd.AVX512 {
			ls = append(ls, batchLevel{l, quadAVX512}, batchLevel{l, duoAVX512})
		} else {
			ls = append(ls, batchLevel{l, multiAVX512})
		}
	}
	return ls
}

// scoreBatchAt is scoreBatch at bl's level with bl's AVX-512 form.
func scoreBatchAt(bl batchLevel, om *oprofile.VitProfile, jobs []Job, out []float32) {
	defer func(mk multiKernel) { multiAVX512 = mk }(multiAVX512)
	multiAVX512 = bl.mk
	scoreBatch(bl.l, om, jobs, out)
}

func (bl batchLevel) String() string {
	if bl.l >= simd.AVX512 {
		return fmt.Sprintf("%s/form %d", bl.l, bl.mk)
	}
	return bl.l.String()
}

// TestBatchMatchesReference scores random job lists (lengths 0..300,
// each with its own special-state scores) through ScoreBatch with the
// paired and four-target kernels forced on for every model size, against the reference
// one job at a time.
func TestBatchMatchesReference(t *testing.T) {
	defer forceMultiTarget()()
	rng := rand.New(rand.NewSource(5))
	var inf, neg, fin int
	for trial := 0; trial < 400; trial++ {
		M := 1 + rng.Intn(80)
		if trial%8 == 0 {
			M = 1 + rng.Intn(1500)
		}
		p := randomProfile(rng, M, 29, trial%2 == 1)
		jobs := make([]Job, 1+rng.Intn(9))
		for i := range jobs {
			L := rng.Intn(300)
			if rng.Intn(4) == 0 {
				L = rng.Intn(5)
			}
			jobs[i].Dsq = randomSeq(rng, L, 29)
			jobs[i].XW = randomXW(rng, p.XW)
		}
		if trial%10 == 9 {
			// HMMER's int arithmetic for the specials: one job whose
			// scores the paired kernel's words cannot follow sends the
			// batch one job at a time.
			jobs[0].XW[1+rng.Intn(3)][0] = int16(rng.Intn(200) - 100)
		}
		for _, l := range batchLevels() {
			out := make([]float32, len(jobs))
			scoreBatchAt(l, p, jobs, out)
			for i := range jobs {
				want := refScore(jobs[i].Dsq, p, &jobs[i].XW)
				switch {
				case math.IsInf(float64(want), 1):
					inf++
				case math.IsInf(float64(want), -1):
					neg++
				default:
					fin++
				}
				if !same(out[i], want) {
					t.Fatalf("trial %d (M=%d), job %d of %d (L=%d): %s batch %v, reference %v", trial, M, i, len(jobs), len(jobs[i].Dsq), l, out[i], want)
				}
			}
		}
	}
	if inf == 0 || neg == 0 || fin == 0 {
		t.Errorf("an outcome is never exercised: %d scores, %d overflows, %d -inf", fin, inf, neg)
	}
}

// TestBatchLongDeletions is TestLongDeletions for the multi-target
// kernels: a
// path through node 1 (residue 0 only) that deletes across many lane
// boundaries to a good match at node M. Targets with and without
// residue 0 share the kernel, so one half needs the lazy-F passes on
// rows where the other does not.
func TestBatchLongDeletions(t *testing.T) {
	defer forceMultiTarget()()
	rng := rand.New(rand.NewSource(6))
	for trial := 0; trial < 200; trial++ {
		M := 20 + rng.Intn(400)
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
			p.RWV[x][1] = -20000
			p.RWV[x][M] = 3000
		}
		p.RWV[0][1] = 2000
		p.Stripe()
		jobs := make([]Job, 2+rng.Intn(6))
		for i := range jobs {
			K := 4
			if rng.Intn(2) == 0 {
				K = 3 // no residue 0: no deletion path
			}
			jobs[i].Dsq = randomSeq(rng, 1+rng.Intn(50), K)
			if K == 3 {
				for j := range jobs[i].Dsq {
					jobs[i].Dsq[j]++
				}
			}
			jobs[i].XW = p.XW
		}
		out := make([]float32, len(jobs))
		for _, l := range batchLevels() {
			scoreBatchAt(l, p, jobs, out)
			for i := range jobs {
				if want := refScore(jobs[i].Dsq, p, &jobs[i].XW); !same(out[i], want) {
					t.Fatalf("trial %d (M=%d), job %d: %s batch %v, reference %v", trial, M, i, l, out[i], want)
				}
			}
		}
	}
}

// randomXW gives a target's special-state scores: N, C and J moves of a
// few bits or less (target lengths from 1 to millions), E's loop and
// move of a multihit (both -ln 2 or anything down to -32768) or unihit
// (0 and -32768) configuration, loops 0: what oprofile produces.
func randomXW(rng *rand.Rand, xw [4][2]int16) [4][2]int16 {
	for s := 1; s < 4; s++ {
		xw[s][1] = int16(-5 - rng.Intn(6000))
		xw[s][0] = 0
	}
	switch rng.Intn(4) {
	case 0:
		xw[0][0], xw[0][1] = -32768, 0
	case 1:
		xw[0][0], xw[0][1] = int16(-rng.Intn(32769)), int16(-rng.Intn(32769))
	default:
		xw[0][0], xw[0][1] = -500, -500
	}
	return xw
}
