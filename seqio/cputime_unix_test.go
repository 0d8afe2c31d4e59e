//go:build unix

package seqio

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time. Benchmarks report
// throughput per CPU second as well as per wall second, because on a
// shared machine the wall clock also counts other programs' turns.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
