package msvfilter

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestMSVPassProbe (HMMGO_MSVPASS_PROBE=residues) asks what bounds the
// MSV pass on TestGPUThroughput's database and models (HMMGO_MSVPASS_M):
// the longest undecided targets' row chains or the work of all of them.
// It runs Scores' SSV pass as Scores does to find the undecided targets,
// prints their lengths, and times the pass's kernel (best of three) over
// all of them and over parts: the longest target alone, the longest warp
// block (32/T targets), the longest 8 blocks, and all but the longest
// block or the longest 1%. A probe, not a check.
func TestMSVPassProbe(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_MSVPASS_PROBE"))
	if n == 0 {
		t.Skip("set HMMGO_MSVPASS_PROBE=<residues> to probe the MSV pass")
	}
	ctx := testutil.GPUContext(t)
	g := NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, _ := testmodels.RandomDatabase(rng, amino, n)
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	for _, M := range intList(t, os.Getenv("HMMGO_MSVPASS_M"), []int{10, 16, 25, 32}) {
		h := testmodels.RandomHMM(rng, amino, M)
		o := profileOf(h)
		probePass(t, g, &o.MSV, amino.Kp, db)
	}
}

// probePass prints one model's undecided targets and its pass's times.
func probePass(t *testing.T, g *GPU, om *oprofile.MSVProfile, Kp int, db *gpudb.DB) {
	dsqs := db.Dsqs
	n := len(dsqs)
	out := make([]float32, n)
	s := shapeForNodes(om.M, Kp, ssvNodesFor(om.M))
	k, err := g.kernel(s)
	if err != nil {
		t.Fatal(err)
	}
	step, overlap := g.ssvWindows(s, om.M, db)
	layout, err := db.WindowLayout(s.T, step, overlap)
	if err != nil {
		t.Fatal(err)
	}
	maxw := make([]byte, 4*n)
	if err := g.launch(k, s, "ssv_kernel", ssvProfileWords(s, Kp, om), layout, nil, n, nil, maxw); err != nil {
		t.Fatal(err)
	}
	rest, _ := ssvScores(om, lensOf(dsqs), maxw, out, nil)
	byLen := slices.Clone(rest)
	slices.SortStableFunc(byLen, func(a, b int) int { return len(dsqs[b]) - len(dsqs[a]) })
	ps := passSize(dsqs, rest)
	fmt.Printf("probe M=%d: %d of %d targets undecided, %d residues, longest %d\n", om.M, ps.Targets, n, ps.Residues, ps.Longest)
	rank := func(r int) int { return len(dsqs[byLen[min(r, len(byLen)-1)]]) }
	fmt.Printf("probe M=%d: lengths at rank 1 %d, 32 %d, 256 %d, 1%% %d, 10%% %d, 50%% %d\n", om.M,
		rank(0), rank(31), rank(255), rank(len(byLen)/100), rank(len(byLen)/10), rank(len(byLen)/2))

	ms := shapeForNodes(om.M, Kp, msvNodesForPass(om.M, ps, g.ctx.Device().Multiprocessors))
	if ms.T == s.T {
		ms = s
	}
	km, err := g.kernel(ms)
	if err != nil {
		t.Fatal(err)
	}
	// timed is the least kernel time of three passes over idx (in
	// database order, as Scores gives them).
	timed := func(idx []int) time.Duration {
		idx = slices.Clone(idx)
		slices.Sort(idx)
		best := time.Duration(math.MaxInt64)
		for range 3 {
			g.KernelTime = 0
			if err := g.msvPass(km, ms, om, Kp, db, idx, out); err != nil {
				t.Fatal(err)
			}
			best = min(best, g.KernelTime)
		}
		return best
	}
	S := 32 / ms.T
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()*1e6) }
	all := timed(rest)
	one := timed(byLen[:1])
	block := timed(byLen[:min(S, len(byLen))])
	eight := timed(byLen[:min(8*S, len(byLen))])
	line := fmt.Sprintf("probe M=%d (pass T=%d, %d blocks): us all %s, longest alone %s (%.1f ns a row), longest block %s, longest 8 blocks %s",
		om.M, ms.T, (len(rest)+S-1)/S, us(all), us(one), one.Seconds()*1e9/float64(rank(0)), us(block), us(eight))
	if len(byLen) > S {
		line += ", all but the longest block " + us(timed(byLen[S:]))
	}
	if p := len(byLen) / 100; p > 0 {
		line += fmt.Sprintf(", all but the longest 1%% (%d) %s", p, us(timed(byLen[p:])))
	}
	fmt.Println(line)
}
