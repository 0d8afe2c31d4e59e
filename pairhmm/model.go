package pairhmm

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// The constants and tables below reproduce the numbers GATK's native
// pair-HMM (Intel GKL, the implementation HaplotypeCaller uses on x86)
// builds at start-up, in both precisions. They are computed here the same
// way, step by step, because the likelihoods depend on their last bits.

// MaxQual is the largest quality accepted. GKL reads every quality through
// "q & 127", so a quality of 128 or more would silently alias a low one;
// we refuse those instead (Phred+33 text tops out at 93 anyway).
const MaxQual = 127

// minAccepted is GKL's MIN_ACCEPTED (1e-28 as a float): a float result
// below it, still scaled by the initial constant, is recomputed in double.
const minAccepted = float32(1e-28)

// Scaled initial constants: the first row of the deletion matrix starts at
// initial/hapLen, so that products of many small probabilities stay away
// from underflow for as long as possible.
var (
	initial32 = float32(math.Ldexp(1, 120))
	initial64 = math.Ldexp(1, 1020)
	// log10Initial32 is log10f(2^120) rounded to float, as GKL subtracts it
	// in single precision.
	log10Initial32 = float32(math.Log10(float64(initial32)))
	log10Initial64 = math.Log10(initial64)
)

// jacobian log table of GATK's approximateLog10SumLog10: log10(1+10^-x)
// sampled every 1e-4 up to 8.
const (
	jacobianTolerance = 8.0
	jacobianStep      = 0.0001
	jacobianSize      = int(jacobianTolerance/jacobianStep) + 1
)

// tables holds the quality-derived probabilities of one precision.
type tables[T float32 | float64] struct {
	ph2pr    [MaxQual + 1]T // 10^(-q/10)
	jacobian []T
	// matchToMatch[max*(max+1)/2+min], the probability of staying in the
	// match state given the insertion and deletion open qualities.
	matchToMatch []T
	// The double table costs about 0.3 s of 160-bit arithmetic to fill, and
	// only the double pass (a few pairs in ten thousand) needs it, so its
	// entries are computed when first used.
	lazy   bool
	mu     sync.Mutex
	filled []bool
}

var (
	tables32Once, tables64Once sync.Once
	tab32                      *tables[float32]
	tab64                      *tables[float64]
)

func tables32() *tables[float32] {
	tables32Once.Do(func() {
		t := &tables[float32]{}
		for q := range t.ph2pr {
			// GKL: powf(10.f, -((float)q)/10.f); the exponent is a float
			// quotient, the power is rounded once to float.
			e := -float32(q) / 10
			t.ph2pr[q] = float32(math.Pow(10, float64(e)))
		}
		t.jacobian = jacobianTable[float32]()
		// Rounding to float hides the last-ulp differences of Go's math.
		t.matchToMatch = matchToMatchTable(t.jacobian, func(y float64) float64 { return math.Pow(10, y) }, math.Log1p)
		tab32 = t
	})
	return tab32
}

func tables64() *tables[float64] {
	tables64Once.Do(func() {
		t := &tables[float64]{}
		for q := range t.ph2pr {
			t.ph2pr[q] = exp10(-float64(q) / 10)
		}
		t.jacobian = jacobianTable[float64]()
		t.matchToMatch = make([]float64, (MaxQual+1)*(MaxQual+2)/2)
		t.filled = make([]bool, len(t.matchToMatch))
		t.lazy = true
		tab64 = t
	})
	return tab64
}

func jacobianTable[T float32 | float64]() []T {
	tab := make([]T, jacobianSize)
	for k := range tab {
		tab[k] = T(math.Log10(1 + math.Pow(10, -float64(k)*jacobianStep)))
	}
	return tab
}

// approxLog10SumLog10 is GATK's table-driven log10(10^a + 10^b), evaluated
// in the precision T as GKL does (the rounding index is a T product).
func approxLog10SumLog10[T float32 | float64](jac []T, a, b T) T {
	small, big := a, b
	if small > big {
		small, big = big, small
	}
	if math.IsInf(float64(small), 0) || math.IsInf(float64(big), 0) {
		return big
	}
	diff := big - small
	if diff >= jacobianTolerance {
		return big
	}
	scaled := T(diff * T(1/jacobianStep))
	// fastRound: diff >= 0, so round half up by truncating d+0.5.
	ind := int(scaled + 0.5)
	return big + jac[ind]
}

// matchToMatchTable fills the triangular table for qualities 0..MaxQual.
func matchToMatchTable[T float32 | float64](jac []T, pow10, ln1p func(float64) float64) []T {
	tab := make([]T, (MaxQual+1)*(MaxQual+2)/2)
	for hi, off := 0, 0; hi <= MaxQual; hi++ {
		for lo := 0; lo <= hi; lo++ {
			tab[off+lo] = matchToMatchEntry(jac, hi, lo, pow10, ln1p)
		}
		off += hi + 1
	}
	return tab
}

// matchToMatchEntry is one entry: GKL computes it in double from a
// T-precision log-sum and then rounds to T; INV_LN10 is the truncated
// 0.434294 of the original code, which matters in the last bits.
func matchToMatchEntry[T float32 | float64](jac []T, hi, lo int, pow10, ln1p func(float64) float64) T {
	const invLn10 = 0.434294
	s := float64(approxLog10SumLog10(jac, T(-0.1)*T(hi), T(-0.1)*T(lo)))
	l := ln1p(-math.Min(1, pow10(s))) * invLn10
	return T(pow10(l))
}

// matchToMatchProb looks up the probability for one pair of open qualities.
func (t *tables[T]) matchToMatchProb(ins, del uint8) T {
	lo, hi := int(ins), int(del)
	if lo > hi {
		lo, hi = hi, lo
	}
	i := hi*(hi+1)/2 + lo
	if !t.lazy {
		return t.matchToMatch[i]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.filled[i] {
		t.matchToMatch[i] = matchToMatchEntry(t.jacobian, hi, lo, exp10, math.Log1p)
		t.filled[i] = true
	}
	return t.matchToMatch[i]
}

// fullMatchToMatch returns the whole table (for the GPU, which needs every
// entry up front). The lazy double table's missing entries (about 0.3 s
// of 160-bit arithmetic on one core) are computed on all cores and kept.
func (t *tables[T]) fullMatchToMatch() []T {
	out := make([]T, len(t.matchToMatch))
	if !t.lazy {
		copy(out, t.matchToMatch)
		return out
	}
	t.mu.Lock()
	copy(out, t.matchToMatch)
	done := append([]bool(nil), t.filled...)
	t.mu.Unlock()
	// Rows of the triangle grow with hi: goroutines take rows from the
	// longest down, one at a time, so they finish together.
	var next atomic.Int64
	next.Store(MaxQual)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for hi := int(next.Add(-1) + 1); hi >= 0; hi = int(next.Add(-1) + 1) {
				for lo := 0; lo <= hi; lo++ {
					if i := hi*(hi+1)/2 + lo; !done[i] {
						out[i] = matchToMatchEntry(t.jacobian, hi, lo, exp10, math.Log1p)
					}
				}
			}
		}()
	}
	wg.Wait()
	t.mu.Lock()
	copy(t.matchToMatch, out)
	for i := range t.filled {
		t.filled[i] = true
	}
	t.mu.Unlock()
	return out
}
