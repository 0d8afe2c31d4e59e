package gpu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/core"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// jobSpec describes a random PaPaRa job: a random tree over taxa tips, an
// alignment of cols columns evolved along it (substitutions and gap runs,
// so that CGAP columns occur), and reads cut from the tips with errors.
type jobSpec struct {
	model      *core.Model
	taxa, cols int
	readLens   []int   // one read per length
	iupac      float64 // DNA: chance of an ambiguity code per read residue
	params     core.Params
	scoring    core.Scoring
	seed       uint64
}

func randomJob(t testing.TB, s jobSpec) *core.Job {
	t.Helper()
	rng := rand.New(rand.NewPCG(s.seed, 77))
	alpha := "ACGT"
	if s.model.Protein {
		alpha = "ARNDCQEGHILKMFPSTWYV"
	}
	// tree: join random pairs until three subtrees remain (unrooted top)
	nodes := make([]string, s.taxa)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("t%d", i)
	}
	bl := func() string {
		if rng.IntN(10) == 0 {
			return ":0" // zero-length branches happen
		}
		return fmt.Sprintf(":%.3f", 0.01+rng.Float64()*0.4)
	}
	for len(nodes) > 3 {
		i, j := rng.IntN(len(nodes)), rng.IntN(len(nodes)-1)
		if j >= i {
			j++
		}
		joined := "(" + nodes[i] + bl() + "," + nodes[j] + bl() + ")"
		nodes[i] = joined
		nodes = append(nodes[:j], nodes[j+1:]...)
	}
	tree, err := newick.Parse("random.nwk", []byte("("+nodes[0]+bl()+","+nodes[1]+bl()+","+nodes[2]+bl()+");"))
	if err != nil {
		t.Fatal(err)
	}
	// alignment: a root sequence, mutated per tip, with shared gap runs
	root := make([]byte, s.cols)
	for i := range root {
		root[i] = alpha[rng.IntN(len(alpha))]
	}
	gapCol := make([]float64, s.cols) // per column: chance of a gap
	for c := 0; c < s.cols; {
		run := 1 + rng.IntN(8)
		p := 0.02
		switch rng.IntN(6) {
		case 0:
			p = 0.9
		case 1:
			p = 0.5
		}
		for k := 0; k < run && c < s.cols; k++ {
			gapCol[c] = p
			c++
		}
	}
	aln := &alignio.Alignment{File: "random.fa"}
	var ungapped []string
	for i := 0; i < s.taxa; i++ {
		row := make([]byte, s.cols)
		var res []byte
		for c := range row {
			switch {
			case rng.Float64() < gapCol[c]:
				row[c] = '-'
			case rng.IntN(6) == 0:
				row[c] = alpha[rng.IntN(len(alpha))]
			default:
				row[c] = root[c]
			}
			if row[c] != '-' {
				res = append(res, row[c])
			}
		}
		aln.Rows = append(aln.Rows, alignio.Record{Name: fmt.Sprintf("t%d", i), Seq: row})
		ungapped = append(ungapped, string(res))
	}
	var reads []alignio.Record
	for i, n := range s.readLens {
		src := ungapped[rng.IntN(len(ungapped))]
		for len(src) < n+1 {
			src += src
		}
		start := rng.IntN(len(src) - n)
		seq := []byte(src[start : start+n])
		for j := range seq {
			switch {
			case rng.IntN(12) == 0:
				seq[j] = alpha[rng.IntN(len(alpha))]
			case !s.model.Protein && rng.Float64() < s.iupac:
				seq[j] = "RYSWKMBDHV"[rng.IntN(10)]
			}
		}
		reads = append(reads, alignio.Record{Name: fmt.Sprintf("r%d", i), Seq: seq})
	}
	prep, err := core.Prepare(&core.Input{Model: s.model, Tree: tree, Alignment: aln, Reads: reads})
	if err != nil {
		t.Fatal(err)
	}
	return &core.Job{Model: s.model, Params: s.params, Scoring: s.scoring, Branches: prep.Ref.Branches, Queries: prep.Queries}
}

// lengths returns n read lengths drawn from [lo, hi].
func lengths(seed uint64, n, lo, hi int) []int {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]int, n)
	for i := range out {
		out[i] = lo + rng.IntN(hi-lo+1)
	}
	return out
}

// cpuResults scores job on the CPU (the reference the GPU must equal).
func cpuResults(t testing.TB, job *core.Job) *core.Results {
	t.Helper()
	res, _, err := core.ScoreAll(job, core.CPUScorers(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sameResults(t testing.TB, what string, job *core.Job, got, want *core.Results) {
	t.Helper()
	bad := 0
	for q := range want.Score {
		if got.Score[q] != want.Score[q] || got.Branch[q] != want.Branch[q] {
			if bad < 5 {
				t.Errorf("%s: read %d (%d residues): score %d at branch %d, CPU %d at branch %d", what, q,
					len(job.Queries[q].CStates), got.Score[q], got.Branch[q], want.Score[q], want.Branch[q])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d reads differ from the CPU", what, bad, len(want.Score))
	}
}

// pairScores scores every read against single branches (blocks of one
// branch at even and odd positions), so that every (read, branch) score is
// compared, not only the best.
func pairScores(t testing.TB, s core.Scorer, job *core.Job, branches []int) [][]int32 {
	t.Helper()
	out := make([][]int32, len(branches))
	for i, e := range branches {
		res := core.NewResults(len(job.Queries))
		if err := s.Score(job, []core.Block{{Start: e, End: e + 1}}, res); err != nil {
			t.Fatal(err)
		}
		for q, b := range res.Branch {
			if int(b) != e {
				t.Fatalf("read %d: best branch %d in a block of branch %d", q, b, e)
			}
		}
		out[i] = res.Score
	}
	return out
}

func describeJob(job *core.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d branches x %d columns, %d reads", job.Model.Name, job.Branches.N, job.Branches.Len, len(job.Queries))
	return b.String()
}
