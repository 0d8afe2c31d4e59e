package hmmsearch

import (
	"sync/atomic"

	"github.com/hmmgo/hmmgo/hmmer3/fwdback"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/seqio"
)

// Several GPUs can share a run in two ways. Split, each holds a share of
// the database and every query runs on all of them; dealt, each holds the
// whole database and every query runs on one. Split, each of a query's
// launches is a launch per device, with its own subset layout, uploads,
// copy-back and host passes, for half the kernel time: on two H200s
// (docs/BENCHMARKS.md, 2026-11-27) the lanes' waits quadrupled and two
// GPUs ran the 1,000 models in 0.85-0.93x of one GPU's time. Dealt, a
// query's stages cost what they cost on one GPU and the devices run
// different queries. hmmsearch --gpu deals its queries when the database
// fits every device comfortably; $HMMGO_GPU_SPLIT=db|queries chooses for
// benchmarks. Either way every score is the same kernels' on the same
// targets.

// splitEnv chooses the mode for benchmarks: "db" or "queries".
const splitEnv = "HMMGO_GPU_SPLIT"

// dealMaxShare: every device holds the database whole when its residues
// are at most this fraction of the smallest device's memory in bytes
// (the residues, the layouts of a few thread counts, each a packed copy,
// and the subsets and scratch of the queries in flight).
const dealMaxShare = 32

// dealMode reports whether the queries of a run over seqs are dealt.
func (g *gpuSearch) dealMode(seqs []*seqio.Sequence) bool {
	devs := g.devices()
	if len(devs) < 2 {
		return false
	}
	switch g.split {
	case "db":
		return false
	case "queries":
		return true
	}
	var residues uint64
	for _, sq := range seqs {
		residues += uint64(len(sq.Dsq))
	}
	for _, d := range devs {
		if residues > d.TotalMemory/dealMaxShare {
			return false
		}
	}
	return true
}

type dealState struct {
	running []atomic.Int32 // queries running on each device
}

// forQuery is the accelerator one query of the given rank runs on
// (queryRank: its filter launches wait for a lane in that order) and the
// function that ends its use. Split, that is g on every device; dealt, g
// on the device still in the run with the fewest queries running (the
// lowest number among equals), or on device 0, whose calls then go to the
// cores, when none is left.
func (g *gpuSearch) forQuery(rank int64) (pipeline.Accelerator, func()) {
	if g.deal == nil {
		return gpuOn{gpuSearch: g, use: g.parts, rank: rank, own: g.ownOrder(g.parts)}, func() {}
	}
	run := g.deal.running
	best := -1
	for d := range run {
		if !g.parts[d].down.Load() && (best < 0 || run[d].Load() < run[best].Load()) {
			best = d
		}
	}
	best = max(best, 0)
	run[best].Add(1)
	use := g.parts[best : best+1]
	return gpuOn{gpuSearch: g, use: use, rank: rank, own: g.ownOrder(use)}, func() { run[best].Add(-1) }
}

// gpuOn is g on some of its devices for a query of a rank (the recycled
// scores are g's). With own the query's targets are in the order of its
// one device (gpuorder.go).
type gpuOn struct {
	*gpuSearch
	use       []*gpuPart
	rank      int64
	own       bool
	callsDone func() // nil: not told
}

// Lengths implements pipeline.TargetLengths.
func (v gpuOn) Lengths() []int32 {
	if v.own {
		return v.use[0].lens
	}
	return v.lens
}

// CallsDone implements pipeline.CallsDone.
func (v gpuOn) CallsDone() {
	if v.callsDone != nil {
		v.callsDone()
	}
}

func (v gpuOn) MSV(om *oprofile.Profile) ([]float32, error) {
	sc, _, err := v.msv(v.use, om, v.rank, v.own, nil)
	return sc, err
}

// MSVAbove implements pipeline.MSVCandidates: the list comes from a
// query in its device's order (gpuorder.go).
func (v gpuOn) MSVAbove(om *oprofile.Profile, least func(L int) float32) ([]float32, []int, error) {
	return v.msv(v.use, om, v.rank, v.own, least)
}

func (v gpuOn) Viterbi(om *oprofile.Profile, want []bool) ([]float32, error) {
	return v.viterbi(v.use, om, want, v.rank, v.own)
}

func (v gpuOn) Bias(bg *profile.Background, want []bool) ([]float32, error) {
	return v.biasScores(v.use, bg, want, v.rank, v.own)
}

func (v gpuOn) Forward(om *oprofile.Profile, want []bool) (pipeline.ForwardResult, error) {
	return v.forwardOn(v.use, om, want, v.own)
}

func (v gpuOn) Parsers(om *oprofile.Profile, want []bool) ([]fwdback.Parser, error) {
	return v.parsers(v.use, om, want, v.own)
}

var (
	_ pipeline.BiasAccelerator = gpuOn{}
	_ pipeline.CallsDone       = gpuOn{}
	_ pipeline.MSVCandidates   = gpuOn{}
	_ pipeline.ScoreRecycler   = gpuOn{}
	_ pipeline.TargetLengths   = gpuOn{}
)
