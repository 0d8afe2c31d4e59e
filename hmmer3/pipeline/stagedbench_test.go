package pipeline_test

import (
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/seqio"
)

// replayFilters is an accelerator whose MSV scores are given: the
// benchmark below measures the staged search's own passes over a large
// database, as a GPU search pays them per query, without any filter.
type replayFilters struct {
	msv []float32
	pipeline.CPUAccelerator
}

func (r replayFilters) MSV(*oprofile.Profile) ([]float32, error) { return r.msv, nil }

// withLengths adds the targets' lengths, as the GPU search gives them.
type withLengths struct {
	replayFilters
	lens []int32
}

func (w withLengths) Lengths() []int32 { return w.lens }
func (r replayFilters) Forward(*oprofile.Profile, []bool) (pipeline.ForwardResult, error) {
	return pipeline.ForwardResult{}, nil
}
func (r replayFilters) Parsers(*oprofile.Profile, []bool) ([]fwdback.Parser, error) {
	return nil, nil
}

// BenchmarkStagedPasses: one query's host passes over 485,000 targets
// (the record database's count) whose MSV scores all fall below F1.
func BenchmarkStagedPasses(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	abc := alphabet.New(alphabet.Amino)
	seqs := make([]*seqio.Sequence, 485_000)
	res := make([]byte, 4000)
	for i := range seqs {
		L := 20 + int(rng.ExpFloat64()*340)
		if L >= len(res) {
			L = len(res) - 1
		}
		seqs[i] = &seqio.Sequence{Name: "t", Dsq: res[:L]}
	}
	h := testmodels.RandomHMM(rng, abc, 150)
	cfg := pipeline.DefaultConfig()
	cfg.CPUs = 2
	m, err := pipeline.NewModel(h, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	acc := replayFilters{msv: make([]float32, len(seqs)), CPUAccelerator: pipeline.CPUAccelerator{Seqs: seqs}}
	for i := range acc.msv {
		acc.msv[i] = -50 // far below any MSV threshold
	}
	lens := make([]int32, len(seqs))
	for i, sq := range seqs {
		lens[i] = int32(sq.L())
	}
	for _, c := range []struct {
		name string
		acc  pipeline.Accelerator
	}{{"sequences", acc}, {"lengths", withLengths{acc, lens}}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, _, err := pipeline.SearchStaged(m, seqs, nil, &cfg, c.acc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
