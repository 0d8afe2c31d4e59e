//go:build unix

package viterbi

import "syscall"

// cpuSeconds is the process's CPU time, user and system: on a shared
// machine cells per CPU second are steadier than per wall second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
