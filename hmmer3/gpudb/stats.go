package gpudb

import (
	"sync/atomic"
	"time"
)

// LaunchStats counts a kernel family's launches and the host time around
// them, for benchmarks that look for the fixed costs of many small
// launches (a worker's tasks): Held is the time a launch held its
// device's buffers (copies, launch, wait, copy back), Subset the time
// spent packing, uploading and freeing per-call target subsets.
type LaunchStats struct {
	launches, heldNs, subsetNs atomic.Int64
}

// Held records one launch that took the buffers at start.
func (s *LaunchStats) Held(start time.Time) {
	s.launches.Add(1)
	s.heldNs.Add(int64(time.Since(start)))
}

// Subset records subset work begun at start.
func (s *LaunchStats) Subset(start time.Time) { s.subsetNs.Add(int64(time.Since(start))) }

// Snapshot returns the counts so far.
func (s *LaunchStats) Snapshot() (launches int64, held, subset time.Duration) {
	return s.launches.Load(), time.Duration(s.heldNs.Load()), time.Duration(s.subsetNs.Load())
}

// Layouts counts the full layouts packed and uploaded (DB.Layout) by the
// process, and their time.
var Layouts LaunchStats
