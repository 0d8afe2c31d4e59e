package viterbi

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/internal/lenorder"
)

// Scorer computes HMMER2 Viterbi scores for batches of sequences. It is
// the seam between the search pipeline and a compute back end: the CPU
// lane kernel here, or a GPU kernel that streams length-sorted batches
// to the device. Scores are P7Viterbi()'s integers (bits times 1000);
// hits are then realigned on the CPU for their traceback.
type Scorer interface {
	// Score sets out[i] to the Viterbi score of seqs[i] (residue codes).
	Score(seqs [][]byte, out []int32) error
	// Close releases the back end.
	Close() error
}

// CPUScorer scores batches with the lane kernel on several goroutines.
type CPUScorer struct {
	p       *plan7.Profile
	t       *laneTables
	workers int
	rows    func(t *laneTables, s *laneState, n int)
	pool    sync.Pool
}

// groupSize is how many length-sorted sequences one goroutine takes at
// a time: enough for lanes to refill many times, few enough to balance.
const groupSize = 16 * Lanes

// NewCPUScorer prepares a scorer for profile p with the given number of
// goroutines (0 or less: one per CPU).
func NewCPUScorer(p *plan7.Profile, workers int) *CPUScorer {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	c := &CPUScorer{p: p, t: newLaneTables(p), workers: workers, rows: rowsKernel}
	c.pool.New = func() any { return newLaneState(c.t) }
	return c
}

// Close does nothing for the CPU scorer.
func (c *CPUScorer) Close() error { return nil }

// Score implements Scorer. Sequences are sorted by decreasing length
// (ClawHMMER's trick, so that lanes finish together), cut into groups,
// and the groups are shared out among the goroutines.
func (c *CPUScorer) Score(seqs [][]byte, out []int32) error {
	order := lenorder.LongestFirst(len(seqs), func(i int) int { return len(seqs[i]) })
	var next atomic.Int64
	ngroups := (len(order) + groupSize - 1) / groupSize
	var wg sync.WaitGroup
	for w := 0; w < min(c.workers, ngroups); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := c.pool.Get().(*laneState)
			defer c.pool.Put(st)
			for {
				g := int(next.Add(1)) - 1
				if g >= ngroups {
					return
				}
				idx := order[g*groupSize : min((g+1)*groupSize, len(order))]
				c.scoreGroup(st, seqs, idx, out)
			}
		}()
	}
	wg.Wait()
	return nil
}

// scoreGroup runs the sequences idx through the lanes; a lane whose
// sequence ends takes the next one at once, so lanes never wait for
// each other except at the end of the group. The kernel runs as many
// rows at a time as the shortest remaining sequence allows.
func (c *CPUScorer) scoreGroup(st *laneState, seqs [][]byte, idx []int, out []int32) {
	t := c.t
	cmove := t.xsc[plan7.XTC][plan7.Move]
	var cur [Lanes]int // index into idx, or -1 for an idle lane
	nextSeq := 0
	active := 0
	load := func(w int) {
		for nextSeq < len(idx) && len(seqs[idx[nextSeq]]) == 0 {
			out[idx[nextSeq]] = negInf + cmove
			nextSeq++
		}
		if nextSeq == len(idx) {
			cur[w] = -1
			return
		}
		cur[w] = nextSeq
		st.reset(w, t, seqs[idx[nextSeq]])
		nextSeq++
		active++
	}
	for w := 0; w < Lanes; w++ {
		load(w)
	}
	for active > 0 {
		n := -1
		busy := 0
		for w := 0; w < Lanes; w++ {
			if cur[w] >= 0 {
				if left := len(st.seq[w]) - int(st.pos[w]); n < 0 || left < n {
					n, busy = left, w
				}
			}
		}
		// Idle lanes shadow a busy one so that every lane reads valid
		// residues; their results are never used.
		for w := 0; w < Lanes; w++ {
			if cur[w] < 0 {
				st.seq[w], st.base[w], st.pos[w] = st.seq[busy], st.base[busy], st.pos[busy]
			}
		}
		c.rows(t, st, n)
		for w := 0; w < Lanes; w++ {
			if cur[w] >= 0 && int(st.pos[w]) == len(st.seq[w]) {
				out[idx[cur[w]]] = st.x.xc[w] + cmove
				active--
				load(w)
			}
		}
	}
}
