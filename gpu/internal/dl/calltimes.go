package dl

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Call timing: when enabled (EnableTimes, before the first library is
// opened), every dlopen and every Call is timed and summed per function,
// so that a command's --verbose can show which driver or NVRTC calls its
// start-up spends its time in. Disabled, a call pays one atomic load.

var timing atomic.Bool

// CallTime is the count and total duration of one function's calls.
type CallTime struct {
	Name  string // e.g. "cuInit", "dlopen libcuda.so.1"
	Calls int64
	Total time.Duration
}

type callStat struct {
	name  string
	calls atomic.Int64
	nanos atomic.Int64
}

var stats = struct {
	sync.Mutex
	byName map[string]*callStat
}{byName: map[string]*callStat{}}

// EnableTimes starts timing calls. Procs resolved earlier are timed too.
func EnableTimes() { timing.Store(true) }

// statFor returns the counter of a name, creating it.
func statFor(name string) *callStat {
	stats.Lock()
	defer stats.Unlock()
	s := stats.byName[name]
	if s == nil {
		s = &callStat{name: name}
		stats.byName[name] = s
	}
	return s
}

func (s *callStat) add(d time.Duration) {
	s.calls.Add(1)
	s.nanos.Add(int64(d))
}

// Times returns the timed functions that were called, longest total first.
func Times() []CallTime {
	stats.Lock()
	defer stats.Unlock()
	var out []CallTime
	for _, s := range stats.byName {
		if n := s.calls.Load(); n > 0 {
			out = append(out, CallTime{Name: s.name, Calls: n, Total: time.Duration(s.nanos.Load())})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Name < out[j].Name
	})
	return out
}
