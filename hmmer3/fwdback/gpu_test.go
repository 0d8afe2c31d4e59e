package fwdback_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func optimized(h *hmm.HMM) *oprofile.Profile {
	bg := profile.NewBackground(h.Alph)
	return oprofile.Convert(profile.Config(h, bg, 100), h)
}

// reference is fwdback.Forward on every core, each target with its
// length model (lengths[i], or its own length when lengths is nil).
func reference(om *oprofile.Profile, dsqs [][]byte, lengths []int) ([]float32, []error) {
	sc := make([]float32, len(dsqs))
	errs := make([]error, len(dsqs))
	var wg sync.WaitGroup
	var next sync.Mutex
	i := 0
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := *om
			mx := fwdback.NewMatrix()
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= len(dsqs) {
					return
				}
				L := len(dsqs[j])
				if lengths != nil {
					L = lengths[j]
				}
				p.ReconfigRestLength(L)
				sc[j], errs[j] = fwdback.Forward(dsqs[j], &p, mx, false)
			}
		}()
	}
	wg.Wait()
	return sc, errs
}

// same compares bit for bit, and range errors where the CPU has them.
func same(t *testing.T, what string, dsqs [][]byte, want []bool, got []float32, gotErr []error, ref []float32, refErr []error) {
	t.Helper()
	bad := 0
	for i := range dsqs {
		if want != nil && !want[i] {
			continue
		}
		if math.Float32bits(got[i]) != math.Float32bits(ref[i]) || errors.Is(gotErr[i], fwdback.ErrRange) != errors.Is(refErr[i], fwdback.ErrRange) {
			bad++
			if bad <= 5 {
				t.Errorf("%s: target %d (L=%d): GPU %v (%v), CPU %v (%v)", what, i, len(dsqs[i]), got[i], gotErr[i], ref[i], refErr[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d targets differ", what, bad, len(dsqs))
	}
}

func compare(t *testing.T, g *fwdback.GPU, what string, om *oprofile.Profile, dsqs [][]byte, lengths []int) {
	t.Helper()
	got, gotErr, err := g.ForwardScores(om, dsqs, lengths)
	if err != nil {
		t.Fatalf("%s (M=%d): %v", what, om.M, err)
	}
	ref, refErr := reference(om, dsqs, lengths)
	same(t, fmt.Sprintf("%s (M=%d, %s)", what, om.M, g.LastShape), dsqs, nil, got, gotErr, ref, refErr)
}

// homologOf strings together the most likely residue of each match
// state, several times: high scores, many rescaled rows.
func homologOf(rng *rand.Rand, h *hmm.HMM, reps int) []byte {
	var d []byte
	for r := 0; r < reps; r++ {
		d = append(d, testmodels.RandomDsq(rng, h.Alph, rng.Intn(40))...)
		for k := 1; k <= h.M; k++ {
			best := 0
			for x, p := range h.Mat[k] {
				if p > h.Mat[k][best] {
					best = x
				}
			}
			if rng.Intn(8) > 0 {
				d = append(d, byte(best))
			}
		}
	}
	return d
}

func deletionHeavy(h *hmm.HMM) *hmm.HMM {
	for k := 1; k < h.M; k++ {
		t := &h.T[k]
		t[hmm.TMM], t[hmm.TMI], t[hmm.TMD] = 0.6, 0.05, 0.35
		t[hmm.TDM], t[hmm.TDD] = 0.05, 0.95
	}
	return h
}

// sample keeps about budget model cells' worth of targets (every k-th),
// unless HMMGO_FWD_FULL is set: the CPU reference is the slow side.
func sample(dsqs [][]byte, M int, budget int) [][]byte {
	if os.Getenv("HMMGO_FWD_FULL") != "" {
		return dsqs
	}
	total := 0
	for _, d := range dsqs {
		total += len(d)
	}
	k := max(1, total*M/budget)
	var out [][]byte
	for i := 0; i < len(dsqs); i += k {
		out = append(out, dsqs[i])
	}
	return out
}

func TestGPUMatchesCPU(t *testing.T) {
	ctx := testutil.GPUContext(t)
	g := fwdback.NewGPU(ctx)
	dir := testutil.Testdata(t, "hmmer3")
	amino, dna := alphabet.New(alphabet.Amino), alphabet.New(alphabet.DNA)
	rng := rand.New(rand.NewSource(11))

	prot := testmodels.ReadDsqs(t, filepath.Join(dir, "prot.fa"), amino)
	for _, L := range []int{0, 1, 2, 3, 4, 5, 7, 1000, 20000} {
		prot = append(prot, testmodels.RandomDsq(rng, amino, L))
	}
	nuc := testmodels.ReadDsqs(t, filepath.Join(dir, "synth_dna.fa"), dna)
	for _, h := range testmodels.ReadModels(t, filepath.Join(dir, "models", "*.hmm.gz")) {
		if h.Alph.Type == alphabet.DNA {
			compare(t, g, h.Name, optimized(h), nuc, nil)
		} else {
			compare(t, g, h.Name, optimized(h), prot, nil)
		}
	}

	// Random models across the M=100 switch and past every placement
	// threshold, with random targets of lengths 0..20000 and homologs.
	for _, M := range []int{1, 2, 3, 4, 5, 8, 10, 16, 31, 32, 33, 50, 64, 99, 100, 101, 129, 200, 257, 300, 400, 600} {
		h := testmodels.RandomHMM(rng, amino, M)
		if M == 64 || M == 257 {
			h = deletionHeavy(h)
		}
		dsqs := [][]byte{{}, testmodels.RandomDsq(rng, amino, 20000)}
		for len(dsqs) < 300 {
			if rng.Intn(5) == 0 {
				dsqs = append(dsqs, homologOf(rng, h, 1+rng.Intn(4)))
			} else {
				dsqs = append(dsqs, testmodels.RandomDsq(rng, amino, rng.Intn(1500)))
			}
		}
		om := optimized(h)
		compare(t, g, fmt.Sprintf("random%s", map[bool]string{true: " deletion-heavy"}[M == 64 || M == 257]), om, dsqs, nil)
		if M == 33 || M == 129 {
			lengths := make([]int, len(dsqs))
			for i := range lengths {
				lengths[i] = len(dsqs[i]) + rng.Intn(2000)
			}
			compare(t, g, "foreign lengths", om, dsqs, lengths)
			om.ReconfigUnihit(om.L)
			compare(t, g, "unihit", om, dsqs, nil)
		}
	}

	// Every kernel variant, forced.
	for _, pl := range []fwdback.Placement{fwdback.PlaceShared, fwdback.PlaceStateShared, fwdback.PlaceGlobal} {
		g.Placement = pl
		for _, M := range []int{20, 150} {
			h := testmodels.RandomHMM(rng, amino, M)
			dsqs := prot
			compare(t, g, "placement "+pl.String(), optimized(h), dsqs, nil)
		}
	}
	g.Placement = fwdback.PlaceAuto

	// A resident database, whole and a subset (the pipeline's survivors).
	db := gpudb.New(ctx, prot)
	defer db.Free()
	h := testmodels.RandomHMM(rng, amino, 77)
	om := optimized(h)
	ref, refErr := reference(om, prot, nil)
	got, gotErr, err := g.ForwardScoresDB(om, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "resident database", prot, nil, got, gotErr, ref, refErr)
	sel := make([]bool, len(prot))
	for i := range sel {
		sel[i] = i%3 == 1
	}
	if got, gotErr, err = g.ForwardScoresDB(om, db, sel, nil); err != nil {
		t.Fatal(err)
	}
	same(t, "resident subset", prot, sel, got, gotErr, ref, refErr)

	// The CUDAMPF models against a real proteome.
	proteome := testmodels.ReadDsqs(t, testutil.GPUData(t, "pyhmmer/seqs/938293.PRJEB85.HG003687.faa"), amino)
	n := 0
	for _, h := range testmodels.ReadModels(t, filepath.Join(testutil.GPUData(t, "CUDAMPF/query_models"), "*.hmm.gz")) {
		dsqs := sample(proteome, h.M, 150_000_000)
		n += len(dsqs)
		compare(t, g, h.Name, optimized(h), dsqs, nil)
	}
	t.Logf("CUDAMPF models: %d targets compared", n)
}

// TestGPUThroughput measures the Forward kernel (HMMGO_GPU_BENCH=residues)
// on synthetic targets over a resident database and prints GCUPS from
// kernel time. HMMGO_FWD_PLACEMENTS=all also runs every placement that
// fits, not just the automatic choice.
func TestGPUThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_GPU_BENCH"))
	if n == 0 {
		t.Skip("set HMMGO_GPU_BENCH=<residues> to measure GPU throughput")
	}
	ctx := testutil.GPUContext(t)
	g := fwdback.NewGPU(ctx)
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, total := testmodels.RandomDatabase(rng, amino, n)
	db := gpudb.New(ctx, dsqs)
	defer db.Free()
	places := []fwdback.Placement{fwdback.PlaceAuto}
	if os.Getenv("HMMGO_FWD_PLACEMENTS") == "all" {
		places = append(places, fwdback.PlaceShared, fwdback.PlaceStateShared, fwdback.PlaceGlobal)
	}
	// Forward+Backward with special rows (the domain-definition input) on
	// a subset: the rows take 48 bytes per residue.
	var sub [][]byte
	subTotal := 0
	for _, d := range dsqs {
		if subTotal >= 5_000_000 {
			break
		}
		sub = append(sub, d)
		subTotal += len(d)
	}
	fmt.Printf("%d targets, %d residues resident; GCUPS from kernel time\n", len(dsqs), total)
	fmt.Printf("fwd+bwd rows: Parsers over %d targets, %d residues, 2 x M x residues cells (host time includes packing)\n", len(sub), subTotal)
	fmt.Printf("%-6s %-8s %10s %10s %8s  %s\n", "M", "place", "kernel_ms", "host_ms", "GCUPS", "shape")
	for _, M := range []int{50, 100, 200, 400, 800, 1200, 1600, 2000, 2500} {
		om := optimized(testmodels.RandomHMM(rng, amino, M))
		for _, pl := range places {
			g.Placement = pl
			if _, _, err := g.ForwardScoresDB(om, db, nil, nil); err != nil { // compile, allocate
				if strings.Contains(err.Error(), "does not fit") {
					continue
				}
				t.Fatal(err)
			}
			g.KernelTime = 0
			t0 := time.Now()
			if _, _, err := g.ForwardScoresDB(om, db, nil, nil); err != nil {
				t.Fatal(err)
			}
			wall := time.Since(t0)
			fmt.Printf("%-6d %-8s %10.2f %10.2f %8.1f  %s\n", M, pl, g.KernelTime.Seconds()*1e3, (wall-g.KernelTime).Seconds()*1e3,
				float64(total)*float64(M)/g.KernelTime.Seconds()/1e9, g.LastShape)
		}
		g.Placement = fwdback.PlaceAuto
		if _, err := g.Parsers(om, sub, nil); err != nil {
			t.Fatal(err)
		}
		g.KernelTime = 0
		t0 := time.Now()
		if _, err := g.Parsers(om, sub, nil); err != nil {
			t.Fatal(err)
		}
		wall := time.Since(t0)
		fmt.Printf("%-6d %-8s %10.2f %10.2f %8.1f  %s\n", M, "fwd+bwd", g.KernelTime.Seconds()*1e3, (wall-g.KernelTime).Seconds()*1e3,
			2*float64(subTotal)*float64(M)/g.KernelTime.Seconds()/1e9, g.LastShape)
	}
}
