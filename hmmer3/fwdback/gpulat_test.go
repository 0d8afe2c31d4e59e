package fwdback_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestGPUBatchLatency measures ForwardBatch in the regime hmmsearch gives
// it: one or a few queries, each with ~1,500 Viterbi survivors of the
// synthetic length mix, so the device holds about a warp per SM and a
// launch lasts as long as its longest target. For each M and each row walk
// (fwd.cu's FWD_PIPE, $HMMGO_FWD_LAT_PIPES) it prints the best kernel time
// (CUDA events) and ForwardBatch wall time of $HMMGO_FWD_LAT_REPS runs, the
// time per step of the longest target (kernel ns / (its length x Q)) in ns
// and SM cycles, GCUPS, the kernel's registers and local memory, and
// whether every score has the bits of the first walk's. HMMGO_FWD_LAT=1
// turns it on; HMMGO_FWD_LAT_M, _N (targets a query), _QUERIES set the
// grid.
func TestGPUBatchLatency(t *testing.T) {
	if os.Getenv("HMMGO_FWD_LAT") == "" {
		t.Skip("set HMMGO_FWD_LAT=1 to measure the batched Forward's latency")
	}
	ints := func(name, def string) []int {
		s := os.Getenv(name)
		if s == "" {
			s = def
		}
		var out []int
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, n)
		}
		return out
	}
	Ms := ints("HMMGO_FWD_LAT_M", "100,150,400,1000,2405")
	pipes := ints("HMMGO_FWD_LAT_PIPES", "0,4")
	Ns := ints("HMMGO_FWD_LAT_N", "1500")
	queries := ints("HMMGO_FWD_LAT_QUERIES", "1,8")
	reps := ints("HMMGO_FWD_LAT_REPS", "3")[0]

	ctx := testutil.GPUContext(t)
	g := fwdback.NewGPU(ctx)
	clockGHz := float64(ctx.Device().ClockKHz) / 1e6
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(5))
	fmt.Printf("fwdlat: SM clock %.3f GHz; steps = longest target x Q; best of %d\n", clockGHz, reps)
	fmt.Printf("fwdlat: %5s %4s %3s %5s %4s %9s %9s %5s %8s %7s %7s %4s %5s %-4s %s\n",
		"M", "Q", "qry", "tgts", "pipe", "kern_ms", "wall_ms", "maxL", "ns_step", "cyc", "GCUPS", "regs", "local", "same", "shape")
	for _, M := range Ms {
		for _, N := range Ns {
			for _, nq := range queries {
				var jobs []fwdback.BatchJob
				maxL, residues := 0, 0
				for k := 0; k < nq; k++ {
					h := testmodels.RandomHMM(rng, amino, M)
					dsqs := make([][]byte, N)
					for i := range dsqs {
						L := testmodels.ProteinLength(rng)
						dsqs[i] = testmodels.RandomDsq(rng, amino, L)
						maxL, residues = max(maxL, L), residues+L
					}
					jobs = append(jobs, fwdback.BatchJob{OM: optimized(h), Targets: dsqs})
				}
				Q := oprofile.NumVecF(M)
				var first []fwdback.BatchResult
				for _, pipe := range pipes {
					g.MultiPipe = pipe
					regs, local, place, err := g.MultiKernelRegs(Q, pipe)
					if err != nil {
						t.Fatal(err)
					}
					best, bestWall := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
					var res []fwdback.BatchResult
					for r := 0; r <= reps; r++ { // run 0 warms up
						t0 := time.Now()
						if res, err = g.ForwardBatch(jobs); err != nil {
							t.Fatal(err)
						}
						if r > 0 {
							best, bestWall = min(best, g.LastKernel), min(bestWall, time.Since(t0))
						}
					}
					same := "yes"
					if first == nil {
						first = res
					} else if !sameBits(first, res) {
						same = "NO"
						t.Errorf("M=%d pipe %d: scores differ from pipe %d's", M, pipe, pipes[0])
					}
					ns := float64(best) / float64(maxL*Q)
					fmt.Printf("fwdlat: %5d %4d %3d %5d %4d %9.2f %9.2f %5d %8.1f %7.0f %7.2f %4d %5d %-4s %s (%s)\n",
						M, Q, nq, N, pipe, best.Seconds()*1e3, bestWall.Seconds()*1e3, maxL, ns, ns*clockGHz,
						float64(residues)*float64(M)/best.Seconds()/1e9, regs, local, same, g.LastShape, place)
				}
			}
		}
	}
}

func sameBits(a, b []fwdback.BatchResult) bool {
	for j := range a {
		for i := range a[j].Scores {
			if math.Float32bits(a[j].Scores[i]) != math.Float32bits(b[j].Scores[i]) || (a[j].Errs[i] == nil) != (b[j].Errs[i] == nil) {
				return false
			}
		}
	}
	return true
}
