package msvfilter

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/internal/testmodels"
)

// TestSegmentedMSVSimulation (HMMGO_MSVSEG_SIM=residues) simulates, on
// the CPU, the MSV pass cut into segments solved by a monotone fixpoint
// (docs/gpu-ssvwin.md, "Segmented MSV"): every row update is
// nondecreasing in its entering state (cells and xB), so segments
// started from lower bounds and re-run from their predecessors' end
// states converge to the exact values. It counts the rounds each query
// needs on TestGPUThroughput's database (targets SSV leaves undecided
// only), checks every result against msvDP, and prints the rows the
// longest segment of each round walks and the residues each round runs.
// A go/no-go estimate for the GPU, not a check CI runs.
func TestSegmentedMSVSimulation(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HMMGO_MSVSEG_SIM"))
	if n == 0 {
		t.Skip("set HMMGO_MSVSEG_SIM=<residues> to simulate the segmented MSV pass")
	}
	amino := alphabet.New(alphabet.Amino)
	rng := rand.New(rand.NewSource(1))
	dsqs, _ := testmodels.RandomDatabase(rng, amino, n)
	Ms := intList(t, os.Getenv("HMMGO_MSVSEG_M"), []int{10, 25, 40})
	seeds, _ := strconv.Atoi(os.Getenv("HMMGO_MSVSEG_SEEDS"))
	seeds = max(seeds, 1)
	for _, M := range Ms {
		// Model 0 is TestGPUThroughput's for this M (its rng, drawn after
		// the database, one model per M in list order); others seeded.
		bench := testmodels.RandomHMM(rng, amino, M)
		for seed := range seeds {
			h := bench
			if seed > 0 {
				h = testmodels.RandomHMM(rand.New(rand.NewSource(int64(100*M+seed))), amino, M)
			}
			o := profileOf(h)
			om := &o.MSV
			rest := undecidedBySSV(om, dsqs)
			res, longest := 0, 0
			for _, i := range rest {
				res += len(dsqs[i])
				longest = max(longest, len(dsqs[i]))
			}
			fmt.Printf("M=%d seed %d: %d of %d targets undecided (%d residues, longest %d)\n", M, seed, len(rest), len(dsqs), res, longest)
			for _, lseg := range intList(t, os.Getenv("HMMGO_MSVSEG_LSEG"), []int{128, 256, 512}) {
				for _, warm := range []int{0, M} {
					simulateSegments(t, om, dsqs, rest, lseg, warm)
				}
			}
		}
	}
}

// undecidedBySSV is the targets Scores sends to the MSV pass.
func undecidedBySSV(om *oprofile.MSVProfile, dsqs [][]byte) []int {
	undecided := make([]bool, len(dsqs))
	parallel(len(dsqs), func(i int) {
		p := *om
		p.TJB = p.TJBFor(len(dsqs[i]))
		_, ok := ssv(dsqs[i], &p)
		undecided[i] = !ok && len(dsqs[i]) > 0
	})
	var rest []int
	for i, u := range undecided {
		if u {
			rest = append(rest, i)
		}
	}
	return rest
}

func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	w := runtime.NumCPU()
	for c := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += w {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// msvState is the MSV program's state between rows, in msv_kernel's
// form: the cells and xB (the running max of e - K over earlier rows,
// from max(base - tjbm, 0)).
type msvState struct {
	cells []uint8 // cells[k], k = 0..M (0 is the begin column)
	xB    int
}

func (s msvState) clone() msvState { return msvState{slices.Clone(s.cells), s.xB} }

// atLeast reports whether s >= o componentwise.
func (s msvState) atLeast(o msvState) bool {
	if s.xB < o.xB {
		return false
	}
	for k := range s.cells {
		if s.cells[k] < o.cells[k] {
			return false
		}
	}
	return true
}

// raise sets s to the componentwise max of s and o and reports a change.
func (s *msvState) raise(o msvState) bool {
	changed := false
	if o.xB > s.xB {
		s.xB, changed = o.xB, true
	}
	for k := range s.cells {
		if o.cells[k] > s.cells[k] {
			s.cells[k], changed = o.cells[k], true
		}
	}
	return changed
}

// msvRows runs the rows of dsq from st (in place) and returns the best
// cell e over them (kernel form: xB' = max(xB, e - K)).
func msvRows(dsq []byte, om *oprofile.MSVProfile, K int, st *msvState, tmp []uint8) int {
	bias := int(om.Bias)
	emax := 0
	prev, cur := st.cells, tmp
	for _, x := range dsq {
		rbv := om.RBV[x]
		e := 0
		cur[0] = 0
		for k := 1; k <= om.M; k++ {
			v := max(int(prev[k-1]), st.xB)
			c := int(satU8(int(satU8(v+bias)) - int(rbv[k])))
			cur[k] = uint8(c)
			e = max(e, c)
		}
		st.xB = max(st.xB, e-K)
		emax = max(emax, e)
		prev, cur = cur, prev
	}
	if &prev[0] != &st.cells[0] {
		copy(st.cells, prev)
	}
	return emax
}

// segRun is one target's segmented solution: rounds run (1 = no
// re-run), and per round the rows of its longest segment run and the
// rows run in all.
type segRun struct {
	rounds     int
	maxRows    []int
	rowsInAll  []int
	exact      bool
	whole      bool // not cut (at most lseg rows)
	segments   int
	dirtyByRnd []int
	ran        [][][2]int // per round, the rows [from, to) each run segment walked
}

func (r *segRun) note(round, from, to int) {
	for len(r.ran) <= round {
		r.ran = append(r.ran, nil)
	}
	r.ran[round] = append(r.ran[round], [2]int{from, to})
}

// segmentTarget solves one target in segments of lseg rows, each
// starting warm rows early in round 1 (from zero cells and the initial
// xB: lower bounds), then Jacobi rounds: segment s's entering state is
// raised to segment s-1's end cells and the max of all earlier
// segments' end xB; segments whose entering state rose run again.
func segmentTarget(dsq []byte, om *oprofile.MSVProfile, lseg, warm int) segRun {
	L, M := len(dsq), om.M
	p := *om
	p.TJB = p.TJBFor(L)
	tjbm := int(uint8(p.TJB + p.TBM))
	K := int(p.TEC) + tjbm
	xB0 := int(satU8(int(p.Base) - tjbm))
	// S segments of equal length (to one row), none longer than lseg.
	S := max(1, (L+lseg-1)/lseg)
	var starts []int
	for s := range S {
		starts = append(starts, s*L/S)
	}
	end := func(s int) int {
		if s+1 < S {
			return starts[s+1]
		}
		return L
	}
	tmp := make([]uint8, M+1)
	enter := make([]msvState, S)
	exit := make([]msvState, S)
	emax := make([]int, S)
	run := segRun{whole: S == 1, segments: S}
	// Round 1.
	rows, most := 0, 0
	for s := range S {
		st := msvState{make([]uint8, M+1), xB0}
		a := starts[s]
		if s > 0 && warm > 0 {
			w := max(0, a-warm)
			msvRows(dsq[w:a], om, K, &st, tmp)
			rows += a - w
			most = max(most, end(s)-w)
			run.note(0, w, end(s))
		} else {
			most = max(most, end(s)-a)
			run.note(0, a, end(s))
		}
		enter[s] = st.clone()
		emax[s] = msvRows(dsq[a:end(s)], om, K, &st, tmp)
		exit[s] = st
		rows += end(s) - a
	}
	run.rounds = 1
	run.maxRows = append(run.maxRows, most)
	run.rowsInAll = append(run.rowsInAll, rows)
	run.dirtyByRnd = append(run.dirtyByRnd, S)
	for {
		var dirty []int
		bestXB := 0
		next := make([]msvState, S)
		for s := 1; s < S; s++ {
			bestXB = max(bestXB, exit[s-1].xB)
			in := enter[s].clone()
			raised := in.raise(msvState{exit[s-1].cells, bestXB})
			next[s] = in
			if raised {
				dirty = append(dirty, s)
			}
		}
		if len(dirty) == 0 {
			break
		}
		rows, most = 0, 0
		for _, s := range dirty {
			enter[s] = next[s]
			st := enter[s].clone()
			emax[s] = msvRows(dsq[starts[s]:end(s)], om, K, &st, tmp)
			exit[s] = st
			rows += end(s) - starts[s]
			most = max(most, end(s)-starts[s])
			run.note(run.rounds, starts[s], end(s))
		}
		run.rounds++
		run.maxRows = append(run.maxRows, most)
		run.rowsInAll = append(run.rowsInAll, rows)
		run.dirtyByRnd = append(run.dirtyByRnd, len(dirty))
	}
	e := slices.Max(emax)
	var got float32
	if e+int(p.Bias) >= 255 {
		got = float32(math.Inf(1))
	} else {
		got = finalScore(max(e-int(p.TEC), 0), &p)
	}
	want := msvDP(dsq, &p)
	run.exact = math.Float32bits(got) == math.Float32bits(want)
	return run
}

// simulateSegments runs segmentTarget on every undecided target and
// prints the query's rounds and, per round, the longest segment's rows
// and the residues run.
func simulateSegments(t *testing.T, om *oprofile.MSVProfile, dsqs [][]byte, rest []int, lseg, warm int) {
	runs := make([]segRun, len(rest))
	parallel(len(rest), func(j int) { runs[j] = segmentTarget(dsqs[rest[j]], om, lseg, warm) })
	hist := map[int]int{}
	rounds := 0
	for j, r := range runs {
		if !r.exact {
			t.Errorf("M=%d lseg %d warm %d: target %d (L=%d) not exact", om.M, lseg, warm, rest[j], len(dsqs[rest[j]]))
		}
		if !r.whole {
			hist[r.rounds]++
		}
		rounds = max(rounds, r.rounds)
	}
	maxRows := make([]int, rounds)
	inAll := make([]int, rounds)
	cut := 0
	for _, r := range runs {
		if !r.whole {
			cut++
		}
		for i := range r.rounds {
			maxRows[i] = max(maxRows[i], r.maxRows[i])
			inAll[i] += r.rowsInAll[i]
		}
	}
	var keys []int
	for k := range hist {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var hs []string
	for _, k := range keys {
		hs = append(hs, fmt.Sprintf("%d:%d", k, hist[k]))
	}
	var per []string
	for i := range rounds {
		per = append(per, fmt.Sprintf("%d/%.2fM", maxRows[i], float64(inAll[i])/1e6))
	}
	fmt.Printf("  lseg %4d warm %3d: %5d targets cut, rounds %d (cut targets by rounds %s); per round longest rows/residues %s\n",
		lseg, warm, cut, rounds, strings.Join(hs, " "), strings.Join(per, " "))
}
