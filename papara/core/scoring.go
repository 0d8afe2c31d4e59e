package core

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Params are PaPaRa's alignment scores, "-p open:extend:match:match_cgap".
// PaPaRa maximises; the gap penalties are waived on CGAP columns, where a
// matched residue also gets MatchCGap added.
type Params struct {
	GapOpen, GapExtend, Match, MatchCGap int
}

// DefaultParams are PaPaRa 2.5's defaults, "-p -3:-1:2:-3".
var DefaultParams = Params{GapOpen: -3, GapExtend: -1, Match: 2, MatchCGap: -3}

// Check rejects scores PaPaRa cannot use: its kernel recognises CGAP
// columns by a negative match increment, so Match+MatchCGap must be < 0
// (PaPaRa aborts on an assertion otherwise).
func (p Params) Check() error {
	if p.Match+p.MatchCGap >= 0 {
		return fmt.Errorf("scores %d:%d:%d:%d: PaPaRa needs match + match_cgap < 0", p.GapOpen, p.GapExtend, p.Match, p.MatchCGap)
	}
	return nil
}

// Scoring selects the scoring scheme.
type Scoring int

const (
	// ScoringPaPaRa is PaPaRa 2.5's scheme (maximised, -p scores).
	ScoringPaPaRa Scoring = iota
	// ScoringPaper is Equation 1 of Alachiotis, Berger & Stamatakis (2012),
	// minimised: gap open 4, extension 1, mismatch 3, CGAP 3, insertion 3,
	// gap penalties waived on CGAP columns.
	ScoringPaper
)

// Query is a read ready for alignment: its residues as c-states.
type Query struct {
	Name    string
	CStates []uint8
}

// BlockWidth is the number of branches in a block of the work queue: 32
// lanes of 8 bits in a 256-bit vector (the inter-reference layout of the
// paper, which used 8 lanes of 16 bits in SSE registers).
const BlockWidth = 32

// Job is what the scoring phase reads.
type Job struct {
	Model    *Model
	Params   Params
	Scoring  Scoring
	Branches *Branches
	Queries  []Query

	planMu sync.Mutex
	plan   *scoringPlan // the CPU kernels' shared tables
}

// Cells is the number of DP cells the scoring phase computes.
func (j *Job) Cells() int64 {
	var q int64
	for _, x := range j.Queries {
		q += int64(len(x.CStates))
	}
	return q * int64(j.Branches.Len) * int64(j.Branches.N)
}

// Block is a unit of the scoring work: the consecutive branches [Start,
// End), End-Start <= BlockWidth, against the reads [Q0, Q1). Q1 == 0 means
// every read of the job.
type Block struct{ Start, End, Q0, Q1 int }

// Reads returns the block's range of reads in job.
func (b Block) Reads(job *Job) (q0, q1 int) {
	if b.Q1 == 0 {
		return 0, len(job.Queries)
	}
	return b.Q0, b.Q1
}

// Queue hands out the blocks of branches to every scorer, CPU or GPU,
// from one list, so faster scorers simply take more.
type Queue struct {
	mu     sync.Mutex
	blocks []Block
	next   int
}

// NewQueue splits n branches into blocks of BlockWidth, each against
// every read.
func NewQueue(n int) *Queue {
	q := &Queue{}
	for s := 0; s < n; s += BlockWidth {
		q.blocks = append(q.blocks, Block{Start: s, End: min(s+BlockWidth, n)})
	}
	return q
}

// UnitCells is about how many DP cells one block of the job queue holds:
// some 0.1 s of one CPU core. A hybrid run ends when the slowest scorer
// finishes its last block, so a CPU block must stay short next to the
// whole run however many reads there are; with the 2,101 rpsS reads a
// block of 32 branches already holds 7.5e9 cells, with 50 times as many
// reads it would take a core some 10 s. (A variable so that tests can cut
// small jobs into many blocks.)
var UnitCells = 4e9

// NewJobQueue splits the job's branches into blocks of BlockWidth and its
// reads into consecutive ranges of about equal cells, so that no block
// holds much more than UnitCells cells. Blocks come branch block by branch
// block, each with every read range.
func NewJobQueue(job *Job) *Queue {
	q := &Queue{}
	chunks := ReadChunks(job, UnitCells)
	for s := 0; s < job.Branches.N; s += BlockWidth {
		for _, c := range chunks {
			q.blocks = append(q.blocks, Block{Start: s, End: min(s+BlockWidth, job.Branches.N), Q0: c[0], Q1: c[1]})
		}
	}
	return q
}

// ReadChunks cuts the job's reads into consecutive ranges [q0, q1) whose
// cells against a block of BlockWidth branches are about equal and about
// maxCells at most; a read is never split, so a read longer than that is
// a range of its own.
func ReadChunks(job *Job, maxCells float64) [][2]int {
	n := len(job.Queries)
	if n == 0 {
		return nil
	}
	var res int64
	for _, x := range job.Queries {
		res += int64(len(x.CStates))
	}
	perRes := float64(BlockWidth) * float64(job.Branches.Len)
	k := max(1, int(float64(res)*perRes/maxCells+0.999))
	target := float64(res) / float64(k)
	var out [][2]int
	start, acc := 0, 0
	for i, x := range job.Queries {
		// cut before this read when that leaves the range nearer the target
		if acc > 0 && float64(acc)+float64(len(x.CStates))/2 > target {
			out = append(out, [2]int{start, i})
			start, acc = i, 0
		}
		acc += len(x.CStates)
	}
	return append(out, [2]int{start, n})
}

// Take removes up to n blocks from the queue; none when it is empty.
func (q *Queue) Take(n int) []Block {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := min(n, len(q.blocks)-q.next)
	b := append([]Block(nil), q.blocks[q.next:q.next+k]...)
	q.next += k
	return b
}

// PutBack returns blocks a failed scorer could not finish, for the other
// scorers to take.
func (q *Queue) PutBack(blocks []Block) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.blocks = append(q.blocks, blocks...)
}

// Len is the number of blocks not taken yet.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.blocks) - q.next
}

// Results keeps the best branch of every query. Scores are "higher is
// better" keys (the paper scheme, which minimises, stores negated scores);
// ties go to the lowest branch index, as in PaPaRa, so the outcome does not
// depend on which scorer saw a branch first.
type Results struct {
	Score  []int32
	Branch []int32
}

// NewResults makes an empty result set for n queries.
func NewResults(n int) *Results {
	r := &Results{Score: make([]int32, n), Branch: make([]int32, n)}
	r.reset()
	return r
}

func (r *Results) reset() {
	for i := range r.Score {
		r.Score[i] = -1 << 31
		r.Branch[i] = -1
	}
}

// Offer records score for query q at branch b if it beats the best so far.
func (r *Results) Offer(q, b int, score int32) {
	if score > r.Score[q] || (score == r.Score[q] && int32(b) < r.Branch[q]) {
		r.Score[q], r.Branch[q] = score, int32(b)
	}
}

// Merge folds other into r.
func (r *Results) Merge(other *Results) {
	for q := range r.Score {
		if other.Branch[q] >= 0 {
			r.Offer(q, int(other.Branch[q]), other.Score[q])
		}
	}
}

// A Scorer computes the scores of the queries against blocks of branches
// and offers them to a Results. The CPU scorer takes one block at a time; a
// GPU scorer (another package) takes many and runs beside the CPU scorers
// on the same Queue.
type Scorer interface {
	Name() string
	// Take is how many blocks the scorer would take from the queue at
	// once; ScoreAll asks before every take. While other scorers work on
	// the same queue, ScoreAll gives a scorer that takes several blocks at
	// most half of the blocks left, so that the fast scorer does not end
	// the run holding a large last take while the others wait.
	Take() int
	// Score scores the reads of every block (Block.Reads) against its
	// branches.
	Score(job *Job, blocks []Block, res *Results) error
}

// WorkerStats reports what one scorer did.
type WorkerStats struct {
	Name    string
	Cells   int64
	Elapsed time.Duration // wall time
	CPU     time.Duration // CPU time of the worker's thread (0 if unknown)
	// Err is why the scorer stopped early; its blocks went back to the
	// queue and the other scorers finished them.
	Err error
}

// GCUPS is giga cell updates per second of wall time.
func (w WorkerStats) GCUPS() float64 {
	if w.Elapsed <= 0 {
		return 0
	}
	return float64(w.Cells) / w.Elapsed.Seconds() / 1e9
}

// CPUGCUPS is giga cell updates per second of the worker's CPU time: the
// speed of one core, undisturbed by other processes (0 if unknown).
func (w WorkerStats) CPUGCUPS() float64 {
	if w.CPU <= 0 {
		return 0
	}
	return float64(w.Cells) / w.CPU.Seconds() / 1e9
}

// ScoreAll runs the scorers concurrently on one queue of the job's
// branches until it is empty and returns the merged results. A scorer that
// fails (say, a GPU running out of memory) puts its blocks back and stops;
// the run fails only when every scorer has failed. progress, if not nil,
// is called now and then with the fraction of blocks taken.
func ScoreAll(job *Job, scorers []Scorer, progress func(done float64)) (*Results, []WorkerStats, error) {
	if len(scorers) == 0 {
		return nil, nil, errors.New("no scorer")
	}
	// Every scorer runs on an OS thread of its own; a GPU scorer beside one
	// CPU scorer per core must not wait for a P (it mostly sleeps while its
	// device computes, so the cores stay with the CPU scorers).
	if n := len(scorers); runtime.GOMAXPROCS(0) < n {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	q := NewJobQueue(job)
	total := q.Len()
	// residues before each read, for the cells of a block
	prefix := make([]int64, len(job.Queries)+1)
	for i, x := range job.Queries {
		prefix[i+1] = prefix[i] + int64(len(x.CStates))
	}
	stats := make([]WorkerStats, len(scorers))
	locals := make([]*Results, len(scorers))
	for i, s := range scorers {
		stats[i].Name = s.Name()
		locals[i] = NewResults(len(job.Queries))
	}
	var pmu sync.Mutex
	lastReport := time.Now()
	var working atomic.Int32 // scorers in their loop
	work := func(i int) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer working.Add(-1)
		s, st := scorers[i], &stats[i]
		// Each call writes into scratch results, merged only when the call
		// succeeds, so a failing scorer leaves nothing half done behind.
		scratch := NewResults(len(job.Queries))
		start, cpu0 := time.Now(), threadCPUTime()
		defer func() {
			st.Elapsed += time.Since(start)
			if cpu0 > 0 {
				st.CPU += threadCPUTime() - cpu0
			}
		}()
		for {
			n := s.Take()
			if n > 1 && working.Load() > 1 {
				n = min(n, max(1, q.Len()/2))
			}
			blocks := q.Take(n)
			if len(blocks) == 0 {
				return
			}
			scratch.reset()
			if err := s.Score(job, blocks, scratch); err != nil {
				st.Err = fmt.Errorf("scorer %s: %w", s.Name(), err)
				q.PutBack(blocks)
				return
			}
			locals[i].Merge(scratch)
			for _, b := range blocks {
				q0, q1 := b.Reads(job)
				st.Cells += (prefix[q1] - prefix[q0]) * int64(b.End-b.Start) * int64(job.Branches.Len)
			}
			if progress != nil {
				pmu.Lock()
				if time.Since(lastReport) > 2*time.Second {
					lastReport = time.Now()
					progress(1 - float64(q.Len())/float64(total))
				}
				pmu.Unlock()
			}
		}
	}
	// Rounds: a scorer that fails puts its blocks back, possibly after the
	// others have emptied the queue, so the survivors go again.
	for q.Len() > 0 {
		var wg sync.WaitGroup
		alive := 0
		for i := range scorers {
			if stats[i].Err == nil {
				alive++
			}
		}
		if alive == 0 {
			return nil, stats, stats[0].Err
		}
		working.Store(int32(alive))
		for i := range scorers {
			if stats[i].Err == nil {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					work(i)
				}(i)
			}
		}
		wg.Wait()
	}
	res := NewResults(len(job.Queries))
	for _, l := range locals {
		res.Merge(l)
	}
	return res, stats, nil
}

// CPUScorers returns n CPU scorers (n <= 0: one per CPU).
func CPUScorers(n int) []Scorer {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	s := make([]Scorer, n)
	for i := range s {
		s[i] = &CPUScorer{}
	}
	return s
}
