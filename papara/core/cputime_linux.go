package core

import (
	"syscall"
	"time"
)

// threadCPUTime is the CPU time the calling OS thread has used. The
// scoring workers lock their goroutine to a thread, so this measures a
// worker's own work even on a machine shared with other jobs.
func threadCPUTime() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
