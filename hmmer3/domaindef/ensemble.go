package domaindef

import (
	"math"
	"sort"

	"github.com/hmmgo/hmmgo/easel"
)

// segPair is one domain of one sampled trace: sample index, sequence
// coordinates i..j and model coordinates k..m (P7_SPCOORD).
type segPair struct {
	idx        int
	i, j, k, m int
	prob       float32
}

// Clustering parameters (p7_domaindef_Create's defaults).
const (
	minOverlap   = float32(0.8)
	maxDiagDiff  = 4
	minPosterior = float32(0.25)
	minEndpointP = float32(0.02)
)

// linked is HMMER's single-linkage criterion for two sampled domains
// (link_spsamples, of_smaller): enough sequence overlap, enough model
// overlap (computed without the +1, a quirk kept on purpose) and nearby
// diagonals at the start or the end.
func linked(h1, h2 *segPair) bool {
	nov := min(h1.j, h2.j) - max(h1.i, h2.i) + 1
	n := min(h1.j-h1.i+1, h2.j-h2.i+1)
	if float32(nov)/float32(n) < minOverlap {
		return false
	}
	nov = min(h1.m, h2.m) - max(h1.k, h2.k)
	n = min(h1.m-h1.k+1, h2.m-h2.k+1)
	if float32(nov)/float32(n) < minOverlap {
		return false
	}
	if abs((h1.i-h1.k)-(h2.i-h2.k)) <= maxDiagDiff {
		return true
	}
	return abs((h1.j-h1.m)-(h2.j-h2.m)) <= maxDiagDiff
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// cluster groups the sampled domains of nsamples traces and returns one
// consensus domain per well-supported cluster, sorted by start
// (p7_spensemble_Cluster).
func cluster(sp []segPair, nsamples int) []segPair {
	assignment, nc := easel.SingleLinkage(len(sp), func(a, b int) bool { return linked(&sp[a], &sp[b]) })
	var sigc []segPair
	var epc []int
	for c := 0; c < nc; c++ {
		// Posterior probability of the cluster: the number of distinct
		// samples with a member (consecutive members of one sample count once).
		ninc, last := 0, -1
		for h := range sp {
			if assignment[h] == c {
				if sp[h].idx != last {
					ninc++
				}
				last = sp[h].idx
			}
		}
		if float32(ninc)/float32(nsamples) < minPosterior {
			continue
		}
		first := true
		var imin, imax, jmin, jmax, kmin, kmax, mmin, mmax int
		for h := range sp {
			if assignment[h] != c {
				continue
			}
			p := &sp[h]
			if first {
				imin, imax, jmin, jmax, kmin, kmax, mmin, mmax = p.i, p.i, p.j, p.j, p.k, p.k, p.m, p.m
				first = false
				continue
			}
			imin, imax = min(imin, p.i), max(imax, p.i)
			jmin, jmax = min(jmin, p.j), max(jmax, p.j)
			kmin, kmax = min(kmin, p.k), max(kmax, p.k)
			mmin, mmax = min(mmin, p.m), max(mmax, p.m)
		}
		threshold := int(float32(math.Ceil(float64(float32(ninc) * minEndpointP))))
		endpoint := func(lo, hi int, get func(*segPair) int, leftmost bool) int {
			n := hi - lo + 1
			if cap(epc) < n {
				epc = make([]int, n)
			}
			epc = epc[:n]
			for z := range epc {
				epc[z] = 0
			}
			for h := range sp {
				if assignment[h] == c {
					epc[get(&sp[h])-lo]++
				}
			}
			if leftmost {
				for b := lo; b <= hi; b++ {
					if epc[b-lo] >= threshold {
						return b
					}
				}
			} else {
				for b := hi; b >= lo; b-- {
					if epc[b-lo] >= threshold {
						return b
					}
				}
			}
			return lo + easel.IArgMax(epc)
		}
		bi := endpoint(imin, imax, func(p *segPair) int { return p.i }, true)
		bk := endpoint(kmin, kmax, func(p *segPair) int { return p.k }, true)
		bj := endpoint(jmin, jmax, func(p *segPair) int { return p.j }, false)
		bm := endpoint(mmin, mmax, func(p *segPair) int { return p.m }, false)
		if bi > bj || bk > bm {
			continue
		}
		sigc = append(sigc, segPair{idx: c, i: bi, j: bj, k: bk, m: bm, prob: float32(ninc) / float32(nsamples)})
	}
	// glibc's qsort is a stable merge sort for arrays this small.
	sort.SliceStable(sigc, func(a, b int) bool { return sigc[a].i < sigc[b].i })
	return sigc
}

// removeDominated drops clusters that overlap a more probable one by 80%
// of the shorter (region_trace_ensemble's clean-up).
func removeDominated(sigc []segPair) []segPair {
	dominated := make([]bool, len(sigc))
	for d := range sigc {
		for d2 := d + 1; d2 < len(sigc); d2++ {
			nov := min(sigc[d].j, sigc[d2].j) - max(sigc[d].i, sigc[d2].i) + 1
			if nov == 0 {
				break
			}
			n := min(sigc[d].j-sigc[d].i+1, sigc[d2].j-sigc[d2].i+1)
			if float64(float32(nov)/float32(n)) >= 0.8 {
				if sigc[d].prob > sigc[d2].prob {
					dominated[d2] = true
				} else {
					dominated[d] = true
				}
			}
		}
	}
	out := sigc[:0]
	for d := range sigc {
		if !dominated[d] {
			out = append(out, sigc[d])
		}
	}
	return out
}
