//go:build !unix

package hmmsearch

// cpuTimes is not available here; the report prints zero CPU time.
func cpuTimes() (user, sys float64) { return 0, 0 }
