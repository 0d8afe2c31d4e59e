package nvrtc

import (
	"sync/atomic"
	"time"
)

// A many-model search pays NVRTC once per kernel shape; these counters
// say how much of a run that was, and how long the queries waited for it
// (a compile that the read-ahead started early costs no wait).
var counters struct {
	compiles, compileNs atomic.Int64 // NVRTC runs and their time
	cacheHits           atomic.Int64 // images read from the disk cache
	builds, buildNs     atomic.Int64 // Build calls and their time (compile or wait, then load)
}

// BuildStats is a snapshot of the process's compilations.
type BuildStats struct {
	Compiles    int64         // programs NVRTC compiled
	CompileTime time.Duration // summed over them (they run in parallel)
	CacheHits   int64         // programs read from the disk cache instead
	Builds      int64         // Build calls (compile or wait, then load into a context)
	BuildTime   time.Duration // time the callers of Build spent in it
}

// Stats returns the counts so far.
func Stats() BuildStats {
	return BuildStats{
		Compiles: counters.compiles.Load(), CompileTime: time.Duration(counters.compileNs.Load()),
		CacheHits: counters.cacheHits.Load(),
		Builds:    counters.builds.Load(), BuildTime: time.Duration(counters.buildNs.Load()),
	}
}
