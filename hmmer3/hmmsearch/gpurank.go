package hmmsearch

import (
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/prio"
)

// A GPU search keeps many queries in flight (gpuSearchQueriesAtOnce).
// Served first come, first served, at every launch, they all advance a
// little at a time: every query's MSV filter ends late and together, the
// cores idle until then, and the largest model, which has the most host
// work after its filters, starts that work as late as the smallest. So
// their filter launches wait for a device's lanes by rank (filterGates),
// the largest model first, the first in the file among equals.
// $HMMGO_GPU_RANK=off ranks them all alike, for A/B runs; so does
// $HMMGO_GPU_DOMAINS=gpu unless $HMMGO_GPU_RANK=on, since with every
// envelope on the device ranking made the run slower.
//
// Measured on an H200 with 16 cores (docs/BENCHMARKS.md, 2026-11-29):
// the 24 CUDAMPF models 0.02-0.19 s faster in 4 of 5 pairs (of about
// 3 s; the fifth a tie). Ranking the queries' host work for the cores
// too was as fast on the 24 models but slower on the 1,000-model run in
// 5 of 5 pairs.

// queryRank is the rank of query number nquery, a model of m nodes.
func queryRank(m, nquery int) int64 { return int64(m)<<32 - int64(nquery) }

// The filter families whose launches are ranked.
const (
	msvGate = iota
	biasGate
	vitGate
	nGates
)

// filterGates admit a device's filter launches, as many of a family at
// once as it has lanes (gpudb.LanesPerKernel), by rank.
type filterGates [nGates]*prio.Slots

func newFilterGates() filterGates {
	var g filterGates
	for k := range g {
		g[k] = prio.New(gpudb.LanesPerKernel)
	}
	return g
}

// enter waits for the family's gate and returns its release.
func (g *filterGates) enter(family int, rank int64) func() {
	s := g[family]
	s.Acquire(rank)
	return s.Release
}
