package pairhmm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// BenchmarkCPU reports GCUPS (read length x haplotype length per pair,
// summed, per second) on 10s and 1m for each float kernel, on one thread
// (per core) and on all cores.
//
//	go test -run - -bench CPU ./pairhmm
func BenchmarkCPU(b *testing.B) {
	for _, ds := range datasets[1:] {
		groups := loadGroups(b, testutil.SharedData(b, ds.input))
		var cells int64
		for g := range groups {
			cells += groups[g].Cells()
		}
		names := kernels()
		for _, k := range fusedLaneKernels.available() {
			names = append(names, k.name+"+fused")
		}
		for _, k := range names {
			kernel, arith := k, ArithGKL
			if base, ok := strings.CutSuffix(k, "+fused"); ok {
				kernel, arith = base, ArithFused
			}
			for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
				b.Run(fmt.Sprintf("%s/%s/threads=%d", ds.name, k, threads), func(b *testing.B) {
					cpu := NewCPU(CPUOptions{Threads: threads, Kernel: kernel, Arith: arith})
					for b.Loop() {
						if _, err := ComputeGroups(groups, Options{Backend: cpu}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cells)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GCUPS")
				})
			}
		}
	}
}
