package gpu_test

import (
	"fmt"

	"github.com/hmmgo/hmmgo/gpu/cuda"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi/gpu"
)

// How the kernel is specialised: small models share a warp between
// several sequences, larger ones take a warp per sequence (to 512
// nodes), then one warp a sequence runs the nodes strip after strip (to
// 5,120 nodes), the largest groups of warps with lean state, several
// groups in a block.
func ExampleShapeFor() {
	for _, M := range []int{1, 80, 142, 294, 2940, 4000, 6000} {
		s := gpu.ShapeFor(M)
		if s.Strip && s.W == 1 {
			fmt.Printf("M=%d: %d sequences per warp, one strip of 32 threads x %d nodes\n", M, s.NS, s.C)
		} else if s.Strip {
			fmt.Printf("M=%d: one sequence per warp, %d strips of 32 threads x %d nodes\n", M, s.W, s.C)
		} else if s.W == 1 {
			fmt.Printf("M=%d: %d sequences per warp, %d threads x %d nodes each\n", M, 32/s.T, s.T, s.C)
		} else {
			fmt.Printf("M=%d: one sequence per %d warps, %d sequences per block, %d threads x %d nodes\n", M, s.W, s.Block/s.G(), s.G(), s.C)
		}
	}
	// Output:
	// M=1: 32 sequences per warp, 1 threads x 1 nodes each
	// M=80: 4 sequences per warp, 8 threads x 10 nodes each
	// M=142: 2 sequences per warp, 16 threads x 9 nodes each
	// M=294: 2 sequences per warp, one strip of 32 threads x 10 nodes
	// M=2940: one sequence per warp, 6 strips of 32 threads x 16 nodes
	// M=4000: one sequence per warp, 9 strips of 32 threads x 14 nodes
	// M=6000: one sequence per 3 warps, 2 sequences per block, 96 threads x 63 nodes
}

// Scoring a batch on the GPU when there is one, as hmm2search --gpu does;
// the scores are those of the CPU scorer.
func ExampleNewScorer() {
	hmms, _ := plan7.ReadFile("../../../testdata/hmmer2/models/globin.hmm2")
	p := hmms[0].Logoddsify(true)
	seqs := [][]byte{p.HMM.Alph.Digitize([]byte("VLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKLRVDPVNFKLLSHCLLVTLAAHLPAEFTPAVHASLDKFLASVSTVLTSKYR"), nil)}
	scores := make([]int32, len(seqs))
	var sc viterbi.Scorer = viterbi.NewCPUScorer(p, 1)
	if cuda.Load() == nil {
		if devs, err := cuda.Devices(); err == nil && len(devs) > 0 {
			if ctx, err := devs[0].Context(); err == nil {
				if g, err := gpu.NewScorer([]*cuda.Context{ctx}, p); err == nil {
					sc = g
				}
			}
		}
	}
	defer sc.Close()
	sc.Score(seqs, scores)
	fmt.Printf("%.1f bits\n", plan7.Scorify(scores[0]))
	// Output:
	// 193.9 bits
}
