package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// Models whose D states are unreachable, through the kernel on the CPU:
// every D cell sums -INFTY twice and only HMMER2's clamps keep the D
// chain from wrapping around, in every state layout (D in registers,
// lean, in shared memory, multi-warp blocks).
func TestKernelSourceOnCPUDeadDeletes(t *testing.T) {
	t.Parallel()
	cc := shimCompiler(t)
	rng := rand.New(rand.NewSource(11))
	amino := plan7.NewAlphabet(plan7.Amino)
	for i, M := range []int{40, 70, 300, 1700} {
		mode := modes[i%len(modes)]
		p := deadDeleteProfile(rng, amino, M, mode)
		seqs := randomSeqs(rng, amino, 12, 60)
		var shapes []Shape
		for _, v := range []string{"auto", "lean64", "leanx", "dsmx1"} {
			shapes = append(shapes, shapeVariant(t, M, v))
		}
		// Two warps: at M = 40, C = 1 leaves 24 threads without a node.
		s := newShape(M, 32, 2, 64)
		s.TransShared, s.EmisShared = true, true
		shapes = append(shapes, s)
		for _, s := range shapes {
			sameScores(t, fmt.Sprintf("dead D %s M=%d %+v", mode, M, s), p, seqs, runShim(t, buildShim(t, cc, s), p, s, seqs, 2))
		}
	}
}
