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

// filterGates admit a device's filter launches by rank, a number of a
// family at once: no more than it has lanes (gpudb.LanesPerKernel).
type filterGates [nGates]*prio.Slots

// filterLaunchesAtOnce is two: a launch over the whole database fills
// the device by itself (a persistent grid), so more at once only share
// it, and every query's filters end later while the cores wait for
// their first survivors. The second overlaps one launch's host passes
// with the other's kernel. Measured on H200 hosts with 16 cores, the 24
// CUDAMPF models (docs/BENCHMARKS.md): with four the cores were 3 of 16
// busy until +0.8-1.0 s; two lanes a family ($HMMGO_GPU_LANES=2) took
// 2.63-2.69 s against 2.86-2.90 s, and these gates alone at two 2.69-
// 2.89 s against 2.75-2.90 s, faster in 4 of 4 pairs; the 1,000-model
// run was unchanged. A worker's blocks keep all their lanes
// (gpuSearch.launches).
const filterLaunchesAtOnce = 2

// newFilterGates admits n launches of a family at once (0: one per lane).
func newFilterGates(n int) filterGates {
	if n <= 0 || n > gpudb.LanesPerKernel {
		n = gpudb.LanesPerKernel
	}
	var g filterGates
	for k := range g {
		g[k] = prio.New(n)
	}
	return g
}

// enter waits for the family's gate and returns its release.
func (g *filterGates) enter(family int, rank int64) func() {
	s := g[family]
	s.Acquire(rank)
	return s.Release
}
