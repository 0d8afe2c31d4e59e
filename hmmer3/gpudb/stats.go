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

// LaneTimes splits the host's time in the filters' lanes, summed over
// every lane of the process: in the 1,000-model run a lane was held
// 13.7 ms per MSV launch around 3.1 ms of kernel (docs/BENCHMARKS.md,
// 2026-11-27), and LaunchStats could not say where the rest went. Wait
// is the time Take waited for a free lane; Upload the host-to-device
// copies (Upload, UploadPacked: from pageable memory they return once
// the data is staged); Layout a subset's layout queued on the lane;
// Launch the kernel queued between its events; Results the copy back
// and the wait for the stream, which includes the kernel and what the
// stream still had queued before it. Held is each lane's time from Take
// to Give: what it holds beyond the parts is the callers' host work.
var LaneTimes struct {
	Wait, Held, Upload, Layout, Launch, Results Span
}

// Span sums durations.
type Span struct{ n, ns atomic.Int64 }

func (s *Span) since(start time.Time) { s.add(time.Since(start)) }

func (s *Span) add(d time.Duration) {
	s.n.Add(1)
	s.ns.Add(int64(d))
}

// Total returns how many durations were added and their sum.
func (s *Span) Total() (int64, time.Duration) { return s.n.Load(), time.Duration(s.ns.Load()) }
