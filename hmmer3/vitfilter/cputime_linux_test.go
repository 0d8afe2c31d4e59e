package vitfilter

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the CPU time of the calling thread
// (CLOCK_THREAD_CPUTIME_ID). The benchmarks report it beside wall time
// because the development machine is shared: a thread that waits for a
// core accumulates wall time only.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// lockThread pins the benchmark goroutine to its thread so threadCPU
// measures it alone.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
