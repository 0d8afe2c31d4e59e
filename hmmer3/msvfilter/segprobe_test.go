package msvfilter

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestSegmentedMSVProbe (HMMGO_MSVSEG_PROBE=residues) estimates on the
// device what the segmented MSV pass (TestSegmentedMSVSimulation) would
// take, with today's msv_kernel: for TestGPUThroughput's database and
// models it times Scores (SSV and the MSV pass), msv_kernel over the
// undecided targets whole, and for each segment length msv_kernel over
// the segments each fixpoint round runs (as a database of its own: the
// rows are those the round walks, the scores meaningless), plus a round
// with nothing to do (one 4-residue target: the launch's cost). The sum
// over rounds is a best case for the pass (every round's dirty segments
// packed into fresh warp blocks, no state loads or stores). A probe, not
// a check.
func TestSegmentedMSVProbe(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_MSVSEG_PROBE"))
	if n == 0 {
		t.Skip("set HMMGO_MSVSEG_PROBE=<residues> to time the segmented MSV pass's rounds")
	}
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	var dsqs [][]byte
	for total := 0; total < n; {
		L := int(math.Exp(rng.NormFloat64()*0.6+5.6)) + 1
		dsqs = append(dsqs, testmodels.RandomDsq(rng, amino, L))
		total += L
	}
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	// best is the least msv_kernel time of three ForceMSV passes over rows.
	best := func(om *oprofile.MSVProfile, rows [][]byte) time.Duration {
		d := gpudb.New(ctx, rows)
		defer d.Free()
		g.ForceMSV = true
		defer func() { g.ForceMSV = false }()
		out := make([]float32, len(rows))
		b := time.Duration(math.MaxInt64)
		for range 4 {
			g.KernelTime = 0
			if err := g.Scores(om, amino.Kp, d, out); err != nil {
				t.Fatal(err)
			}
			b = min(b, g.KernelTime)
		}
		return b
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.4f", d.Seconds()*1e3) }
	for _, M := range intList(t, os.Getenv("HMMGO_MSVSEG_M"), []int{10, 25, 40}) {
		h := testmodels.RandomHMM(rng, amino, M)
		o := oprofile.Convert(profile.Config(h, profile.NewBackground(amino), 100), h)
		om := &o.MSV
		out := make([]float32, len(dsqs))
		var total, ssv time.Duration = math.MaxInt64, 0
		for range 4 {
			g.KernelTime, g.SSVKernelTime = 0, 0
			if err := g.Scores(om, amino.Kp, db, out); err != nil {
				t.Fatal(err)
			}
			if g.KernelTime < total {
				total, ssv = g.KernelTime, g.SSVKernelTime
			}
		}
		rest := undecidedBySSV(om, dsqs)
		var whole [][]byte
		res, longest := 0, 0
		for _, i := range rest {
			whole = append(whole, dsqs[i])
			res += len(dsqs[i])
			longest = max(longest, len(dsqs[i]))
		}
		fmt.Printf("M=%d: %d undecided (%d residues, longest %d); Scores %s ms (SSV %s, pass %s); msv_kernel on them whole %s; all %d targets %s; empty round %s\n",
			M, len(rest), res, longest, ms(total), ms(ssv), ms(total-ssv), ms(best(om, whole)), len(dsqs), ms(best(om, dsqs)), ms(best(om, [][]byte{dsqs[0][:4]})))
		for _, lseg := range intList(t, os.Getenv("HMMGO_MSVSEG_LSEG"), []int{128, 256, 512}) {
			runs := make([]segRun, len(rest))
			parallel(len(rest), func(j int) { runs[j] = segmentTarget(dsqs[rest[j]], om, lseg, M) })
			var rounds [][][]byte
			for j, r := range runs {
				for k, ran := range r.ran {
					for len(rounds) <= k {
						rounds = append(rounds, nil)
					}
					for _, fr := range ran {
						rounds[k] = append(rounds[k], dsqs[rest[j]][fr[0]:fr[1]])
					}
				}
			}
			var sum time.Duration
			line := fmt.Sprintf("  lseg %d: %d rounds:", lseg, len(rounds))
			for _, segs := range rounds {
				d := best(om, segs)
				sum += d
				line += fmt.Sprintf(" %s (%d segs)", ms(d), len(segs))
			}
			fmt.Printf("%s; sum %s ms\n", line, ms(sum))
		}
	}
}
