//go:build !unix

package viterbi

// cpuSeconds is not measured here; benchmarks report wall-clock GCUPS only.
func cpuSeconds() float64 { return 0 }
