//go:build unix

package hmmsearch

import "syscall"

// cpuTimes returns the process's user and system CPU seconds so far, as
// HMMER's stopwatch reads them with times().
func cpuTimes() (user, sys float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime), tv(ru.Stime)
}
