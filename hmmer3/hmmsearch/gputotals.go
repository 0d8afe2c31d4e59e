package hmmsearch

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
)

// printTotals ends a GPU run's stage-time report ($HMMGO_STAGE_TIMES)
// with the device's share of the wall time: each kernel family's launches,
// the time they held the device's buffers and the kernels' own time
// (CUDA events; launches on different streams overlap, so the sum may
// exceed the wall), the layouts, NVRTC's compilations, and the driver
// and NVRTC functions that took longest in all (cuda.CallTimes, timed
// from the start when stage times are on), such as cuMemFree, which
// waits for every stream of the device.
func (g *gpuSearch) printTotals(w io.Writer, wall time.Duration) {
	if g.awaitKernels() != nil {
		return
	}
	line := func(name string, s *gpudb.LaunchStats, kernel time.Duration) string {
		n, held, sub := s.Snapshot()
		return fmt.Sprintf("%s %d launches held %.3f kernels %.3f subsets %.3f", name, n, held.Seconds(), kernel.Seconds(), sub.Seconds())
	}
	for _, k := range g.gpus {
		fmt.Fprintf(w, "hmmgo hmmsearch: device totals, GPU %d, seconds in a %.3f wall: %s; %s; %s; Forward kernels %.3f\n",
			k.dev.Ordinal, wall.Seconds(), line("MSV", &k.filter.Stats, k.filter.KernelTime),
			line("bias", &k.bias.Stats, k.bias.KernelTime), line("Viterbi", &k.vit.Stats, k.vit.KernelTime), k.fwd.KernelTime.Seconds())
	}
	if g.envelopes != nil {
		fmt.Fprintf(w, "hmmgo hmmsearch: envelopes: %v\n", g.envelopes)
	}
	lt := &gpudb.LaneTimes
	var parts []string
	for _, p := range []struct {
		name string
		s    *gpudb.Span
	}{{"waited for a lane", &lt.Wait}, {"held", &lt.Held}, {"uploads", &lt.Upload}, {"subset layouts", &lt.Layout}, {"kernels queued", &lt.Launch}, {"results (copy back and wait)", &lt.Results}} {
		c, d := p.s.Total()
		parts = append(parts, fmt.Sprintf("%s %.3f (%d)", p.name, d.Seconds(), c))
	}
	fmt.Fprintf(w, "hmmgo hmmsearch: device totals, all lanes, seconds summed (calls): %s\n", strings.Join(parts, "; "))
	n, held, _ := gpudb.Layouts.Snapshot()
	b := nvrtc.Stats()
	fmt.Fprintf(w, "hmmgo hmmsearch: device totals: %d layouts made in %.3f (%d planned by makedb); NVRTC %d compiles in %.3f (summed), %d from the disk cache, %d builds waited %.3f (summed)\n",
		n, held.Seconds(), gpudb.StoredLayouts.Load(), b.Compiles, b.CompileTime.Seconds(), b.CacheHits, b.Builds, b.BuildTime.Seconds())
	var calls []string
	for i, c := range cuda.CallTimes() {
		if i == 12 || c.Total < time.Millisecond {
			break
		}
		calls = append(calls, fmt.Sprintf("%s %.3f (%d)", c.Name, c.Total.Seconds(), c.Calls))
	}
	fmt.Fprintf(w, "hmmgo hmmsearch: slowest driver and NVRTC calls, seconds summed (calls): %s\n", strings.Join(calls, "; "))
}
