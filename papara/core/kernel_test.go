package core

import (
	"fmt"
	"testing"
)

// scoreWith runs one CPU scorer over all branches of job.
func scoreWith(t *testing.T, job *Job, portable bool) *Results {
	t.Helper()
	save := haveAVX2Override
	if portable {
		haveAVX2Override = 1
	}
	defer func() { haveAVX2Override = save; forgetPlan(job) }()
	forgetPlan(job)
	res := NewResults(len(job.Queries))
	s := &CPUScorer{}
	q := NewQueue(job.Branches.N)
	for b := q.Take(1); len(b) > 0; b = q.Take(1) {
		if err := s.Score(job, b, res); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// TestKernelsAgree scores random branches and reads with every kernel and
// compares each best score with PaPaRa's scalar aligner (alignPaPaRa) on
// the chosen branch, and the fast kernels with the portable one.
func TestKernelsAgree(t *testing.T) {
	paramSets := []Params{
		DefaultParams,
		{GapOpen: -5, GapExtend: -2, Match: 3, MatchCGap: -4},
		{GapOpen: -1, GapExtend: 0, Match: 1, MatchCGap: -2},
		{GapOpen: 2, GapExtend: 1, Match: 2, MatchCGap: -3},    // positive gaps: 32-bit lanes
		{GapOpen: -3, GapExtend: -1, Match: -1, MatchCGap: -3}, // negative match: portable rule
		{GapOpen: -40, GapExtend: -9, Match: 60, MatchCGap: -70},
	}
	for _, m := range []*Model{DNA, Protein} {
		for pi, pr := range paramSets {
			// read lengths around the 8-bit (126) and 16-bit limits
			for _, readLen := range []int{12, 90, 260} {
				name := fmt.Sprintf("%s/p%d/len%d", m.Name, pi, readLen)
				t.Run(name, func(t *testing.T) {
					job := syntheticJob(m, 45, 97, 6, readLen, int64(pi*100+readLen))
					job.Params = pr
					fast := scoreWith(t, job, false)
					slow := scoreWith(t, job, true)
					var a aligner
					for qi, q := range job.Queries {
						if fast.Score[qi] != slow.Score[qi] || fast.Branch[qi] != slow.Branch[qi] {
							t.Fatalf("read %d: fast kernel (%d at %d) and portable kernel (%d at %d) disagree",
								qi, fast.Score[qi], fast.Branch[qi], slow.Score[qi], slow.Branch[qi])
						}
						sc, _ := a.alignPaPaRa(job.Branches, int(fast.Branch[qi]), m, q.CStates, pr, nil)
						if int32(sc) != fast.Score[qi] {
							t.Fatalf("read %d: kernel score %d, scalar aligner %d", qi, fast.Score[qi], sc)
						}
					}
					// Every (read, branch) pair, not only the best ones. With a
					// negative match score PaPaRa's kernel takes a lane with a
					// negative match increment for CGAP and its scalar aligner
					// does not, so the two may differ off the best branch (PaPaRa
					// stops with an error when they differ on it).
					if pr.Match < 0 {
						return
					}
					for qi, q := range job.Queries {
						for e := 0; e < job.Branches.N; e += 7 {
							one := &Job{Model: m, Params: pr, Branches: job.Branches, Queries: []Query{q}}
							r := NewResults(1)
							s := &CPUScorer{}
							if err := s.Score(one, []Block{{Start: e, End: e + 1}}, r); err != nil {
								t.Fatal(err)
							}
							forgetPlan(one)
							sc, _ := a.alignPaPaRa(job.Branches, e, m, q.CStates, pr, nil)
							if int32(sc) != r.Score[0] {
								t.Fatalf("read %d branch %d: kernel %d, scalar aligner %d", qi, e, r.Score[0], sc)
							}
						}
					}
				})
			}
		}
	}
}

// TestLaneClasses checks which integer width reads get.
func TestLaneClasses(t *testing.T) {
	job := syntheticJob(DNA, 3, 50, 0, 0, 1)
	for _, n := range []int{10, 126, 127, 5000, 17000} {
		job.Queries = append(job.Queries, Query{CStates: make([]uint8, n)})
	}
	for i := range job.Queries {
		for j := range job.Queries[i].CStates {
			job.Queries[i].CStates[j] = 1
		}
	}
	p := newScoringPlan(job, true)
	want := [3][]int{{0, 1}, {2, 3}, {4}}
	if fmt.Sprint(p.class) != fmt.Sprint(want) {
		t.Errorf("classes %v, want %v", p.class, want)
	}
	if p.bias8 != -125 {
		t.Errorf("bias %d, want -125", p.bias8)
	}
}

// failing is a scorer that gives up after its first block, as a GPU might.
type failing struct {
	calls  int
	failed chan struct{}
}

func (f *failing) Name() string { return "failing" }
func (f *failing) Take() int    { return 3 }
func (f *failing) Score(job *Job, blocks []Block, res *Results) error {
	f.calls++
	res.Offer(0, blocks[0].Start, 1<<30) // a partial, wrong result must be dropped
	if f.failed != nil {
		close(f.failed)
	}
	return fmt.Errorf("device lost")
}

// gated is a CPU scorer that starts only once the failing one has failed,
// so that the failure happens while blocks are left.
type gated struct {
	CPUScorer
	open chan struct{}
}

func (g *gated) Score(job *Job, blocks []Block, res *Results) error {
	<-g.open
	return g.CPUScorer.Score(job, blocks, res)
}

// TestScoreAllSurvivesAFailingScorer checks that the blocks of a scorer
// that fails go back to the queue and the other scorers finish them.
func TestScoreAllSurvivesAFailingScorer(t *testing.T) {
	job := syntheticJob(DNA, 200, 40, 5, 20, 4)
	want, _, err := ScoreAll(job, CPUScorers(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &failing{failed: make(chan struct{})}
	g1, g2 := &gated{open: f.failed}, &gated{open: f.failed}
	got, stats, err := ScoreAll(job, []Scorer{f, g1, g2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Score, got.Branch) != fmt.Sprint(want.Score, want.Branch) {
		t.Error("results differ from a CPU-only run")
	}
	if stats[0].Err == nil || f.calls != 1 {
		t.Errorf("failure not recorded: %v, %d calls", stats[0].Err, f.calls)
	}
	if _, _, err := ScoreAll(job, []Scorer{&failing{}}, nil); err == nil {
		t.Error("a run whose only scorer fails must fail")
	}
}

// TestJobQueue checks that the job queue covers every (read, branch) pair
// once, in blocks of about UnitCells cells.
func TestJobQueue(t *testing.T) {
	job := syntheticJob(DNA, 70, 100, 300, 40, 5)
	save := UnitCells
	defer func() { UnitCells = save }()
	UnitCells = 2e5 // a read of 40 residues and a block: 1.28e5 cells
	chunks := ReadChunks(job, UnitCells)
	if len(chunks) < 100 {
		t.Fatalf("%d read chunks", len(chunks))
	}
	seen := make([]int, len(job.Queries)*job.Branches.N)
	q := NewJobQueue(job)
	for _, b := range q.Take(1 << 30) {
		q0, q1 := b.Reads(job)
		if q0 >= q1 || b.End-b.Start > BlockWidth || b.Start%BlockWidth != 0 {
			t.Fatalf("bad block %+v", b)
		}
		var res int
		for qi := q0; qi < q1; qi++ {
			res += len(job.Queries[qi].CStates)
			for e := b.Start; e < b.End; e++ {
				seen[qi*job.Branches.N+e]++
			}
		}
		if q1-q0 > 1 && float64(res*BlockWidth*job.Branches.Len) > 2*UnitCells {
			t.Errorf("block %+v holds %d residues", b, res)
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("read %d, branch %d scored %d times", i/job.Branches.N, i%job.Branches.N, n)
		}
	}
	// One read per chunk at most when a read alone exceeds the target.
	if c := ReadChunks(job, 1); len(c) != len(job.Queries) {
		t.Errorf("%d chunks for %d reads", len(c), len(job.Queries))
	}
	if c := ReadChunks(job, 1e18); len(c) != 1 || c[0] != [2]int{0, len(job.Queries)} {
		t.Errorf("one chunk expected, got %v", c)
	}
}

// TestScoreAllInRanges scores a job cut into many read ranges, with both
// scoring schemes, and compares with whole blocks.
func TestScoreAllInRanges(t *testing.T) {
	for _, scoring := range []Scoring{ScoringPaPaRa, ScoringPaper} {
		job := syntheticJob(DNA, 50, 60, 40, 30, 6)
		job.Scoring = scoring
		want := NewResults(len(job.Queries))
		s := &CPUScorer{}
		if err := s.Score(job, NewQueue(job.Branches.N).Take(1<<30), want); err != nil {
			t.Fatal(err)
		}
		save := UnitCells
		UnitCells = 1e5
		got, stats, err := ScoreAll(job, CPUScorers(3), nil)
		UnitCells = save
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Score, got.Branch) != fmt.Sprint(want.Score, want.Branch) {
			t.Errorf("scoring %d: results differ between read ranges and whole blocks", scoring)
		}
		var cells int64
		for _, st := range stats {
			cells += st.Cells
		}
		if cells != job.Cells() {
			t.Errorf("%d cells counted, want %d", cells, job.Cells())
		}
	}
}

// greedy takes many blocks at a time, as a GPU scorer does.
type greedy struct {
	CPUScorer
	takes []int
	took  chan struct{} // closed after the first take, if not nil
}

func (g *greedy) Take() int { return 1000 }
func (g *greedy) Score(job *Job, blocks []Block, res *Results) error {
	g.takes = append(g.takes, len(blocks))
	if g.took != nil && len(g.takes) == 1 {
		close(g.took)
	}
	return g.CPUScorer.Score(job, blocks, res)
}

// TestTakeRule: alone, a greedy scorer gets what it asks for; beside
// another scorer at most half of the blocks left.
func TestTakeRule(t *testing.T) {
	job := syntheticJob(DNA, 640, 20, 3, 10, 7) // 20 blocks
	g := &greedy{}
	if _, _, err := ScoreAll(job, []Scorer{g}, nil); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(g.takes) != "[20]" {
		t.Errorf("alone: takes %v, want [20]", g.takes)
	}
	// The CPU scorer holds its first block until the greedy one has taken.
	g = &greedy{took: make(chan struct{})}
	if _, _, err := ScoreAll(job, []Scorer{g, &gated{open: g.took}}, nil); err != nil {
		t.Fatal(err)
	}
	// (Whether it takes again depends on how fast the CPU scorer empties
	// the queue meanwhile: only the first take is the rule's.)
	if len(g.takes) == 0 || g.takes[0] > 10 {
		t.Errorf("beside a CPU scorer: takes %v, want at most half of the 20 blocks first", g.takes)
	}
}
