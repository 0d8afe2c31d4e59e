package fwdback

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU is the CPU time of the calling thread (RUSAGE_THREAD). The
// benchmarks report it beside wall time because the development machine
// is shared: a thread that waits for a core accumulates wall time only.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// lockThread pins the benchmark goroutine to its thread so threadCPU
// measures it alone.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
