package msvfilter

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// TestMSVSegmentedOnCPU runs msv_seg_kernel (every non-empty target
// segmented, whatever its length, and those longer than 100 with the
// others in plain blocks after them) on the CPU shim for models of 1 to 47
// nodes, with xB guessed and chained, one and two rows a step: every
// score must be DPScore's bit for bit. The targets run from 1 to 5,000
// residues (every remainder mod 4 and mod 32, lengths around the warm-up
// and the segments), with hits spread over a long target so that xB
// rises in one segment and lifts later ones (the J state across
// segments), hits that overflow late in a target, a high-bias profile
// where HMMER's cap binds on xB, and chainProfile's rising xB.
func TestMSVSegmentedOnCPU(t *testing.T) {
	amino := alphabet.New(alphabet.Amino)
	Ms := []int{1, 2, 5, 10, 11, 16, 20, 24, 25, 31, 32, 47}
	if testing.Short() {
		Ms = []int{1, 10, 24}
	}
	for n, M := range Ms {
		t.Run(fmt.Sprint("M=", M), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(int64(71 + n)))
			Kp := amino.Kp
			var om *oprofile.MSVProfile
			if n%2 == 0 {
				om = randomProfile(rng, M, Kp)
			} else {
				h := testmodels.RandomHMM(rng, amino, M)
				o := profileOf(h)
				om = &o.MSV
			}
			h := testmodels.RandomHMM(rng, amino, M)
			real := &profileOf(h).MSV
			high := highBiasProfile(rng, M, Kp)
			chain, chainDsqs := chainProfile(rng, M, Kp)
			s := shapeForNodes(M, Kp, M)
			shapes := []gpuShape{s}
			if n%3 == 0 {
				// One row a step with xB chained (MSV_SPEC off).
				r := s
				r.MRows, r.Spec = 1, 2
				shapes = append(shapes, r)
			}
			// Every target segmented, then those longer than 100
			// (the others in plain blocks of the same launch).
			for _, s := range shapes {
				for _, above := range []int{0, 100} {
					checkShimSeg(t, s, om, Kp, segTargets(rng, om, Kp), s.segWarm(), above)
					checkShimSeg(t, s, real, Kp, segTargets(rng, real, Kp), s.segWarm(), above)
					checkShimSeg(t, s, high, Kp, msvTargets(rng, high, Kp), s.segWarm(), above)
					checkShimSeg(t, s, chain, Kp, chainDsqs, s.segWarm(), above/4)
				}
			}
		})
	}
}

// segTargets are TestMSVSegmentedOnCPU's targets for profile om:
// msvTargets, lengths around the segments' word and warp sizes, and
// long targets with a few hits of parts of the model spread over them
// (and, in some, one of the whole model near the end).
func segTargets(rng *rand.Rand, om *oprofile.MSVProfile, Kp int) [][]byte {
	M := om.M
	random := func(L int) []byte {
		d := make([]byte, L)
		for i := range d {
			d[i] = byte(rng.Intn(20))
			if rng.Intn(50) == 0 {
				d[i] = byte(rng.Intn(Kp))
			}
		}
		return d
	}
	dsqs := msvTargets(rng, om, Kp)
	for _, L := range []int{31, 32, 33, M + 3, 4*M + 1, 63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 258, 400 + rng.Intn(400), 5000} {
		dsqs = append(dsqs, random(L))
	}
	for range 12 {
		L := 300 + rng.Intn(3000)
		d := random(L)
		for range 1 + rng.Intn(6) {
			from := 1 + rng.Intn(M)
			to := min(M, from+rng.Intn(12))
			at := rng.Intn(L - (to - from + 1))
			for k := from; k <= to; k++ {
				d[at+k-from] = consensus(om, k)
			}
		}
		if rng.Intn(3) == 0 && L > M {
			at := L - M - rng.Intn(L/4)
			for k := 1; k <= M; k++ {
				d[at+k-1] = consensus(om, k)
			}
		}
		dsqs = append(dsqs, d)
	}
	return dsqs
}

// checkShimSeg runs msv_seg_kernel of shape s on the CPU over the
// non-empty dsqs, those longer than above segmented with warm rows
// before each segment and the others in plain blocks after them, and
// fails on any score that is not DPScore's.
func checkShimSeg(t *testing.T, s gpuShape, om *oprofile.MSVProfile, Kp int, dsqs [][]byte, warm, above int) {
	t.Helper()
	var idx, seg, others []int
	for i, d := range dsqs {
		if len(d) > 0 {
			idx = append(idx, i)
			if len(d) > above {
				seg = append(seg, i)
			} else {
				others = append(others, i)
			}
		}
	}
	got := shimMSVKernel(t, s, 2, om, Kp, dsqs, idx, gpudb.PackSegments(dsqs, seg, others, warm))
	bad := dpMismatches(om, dsqs, idx, got)
	for _, m := range bad[:min(3, len(bad))] {
		t.Errorf("M=%d bias %d %+v warm %d: segmented %s", om.M, om.Bias, s, warm, m)
	}
	if len(bad) > 3 {
		t.Errorf("M=%d %+v: %d of %d targets differ", om.M, s, len(bad), len(idx))
	}
}

// TestSegRowsFor checks the default segmentation length against its
// definition: at most n targets longer, and either segMinRows or more
// than n targets at least as long.
func TestSegRowsFor(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, size := range []int{0, 1, 10, 1000, 20000} {
		dsqs := make([][]byte, size)
		var rest []int
		for i := range dsqs {
			dsqs[i] = make([]byte, int(math.Exp(rng.NormFloat64()*0.8+5.7)))
			if rng.Intn(3) > 0 {
				rest = append(rest, i)
			}
		}
		for _, n := range []int{0, 1, 5, 100, 4224, 1 << 20} {
			rows := segRowsFor(dsqs, rest, n)
			above, atLeast := 0, 0
			for _, i := range rest {
				if len(dsqs[i]) > rows {
					above++
				}
				if len(dsqs[i]) >= rows {
					atLeast++
				}
			}
			if rows < segMinRows || above > n || (rows > segMinRows && atLeast <= n) {
				t.Errorf("%d targets, n = %d: length %d, %d longer, %d at least as long", len(rest), n, rows, above, atLeast)
			}
		}
	}
}

// TestSegPassNodes checks that a pass that segments by default runs
// M = 25..32 on one thread a target (one launch with the segments).
func TestSegPassNodes(t *testing.T) {
	for _, M := range []int{25, 28, 32} {
		g := &GPU{}
		if n := g.msvNodes(M, PassSize{}); n != segPassNodes || shapeForNodes(M, 21, n).T != 1 {
			t.Errorf("M=%d: %d nodes a thread by default, want %d (T = 1)", M, n, segPassNodes)
		}
	}
}
