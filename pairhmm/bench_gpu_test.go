package pairhmm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// equalBatch returns groups of 64 reads of readLen against 16 haplotypes
// of hapLen, about cells DP cells in all: 64 distinct groups (reads are
// copies of haplotype windows with errors, qualities as HaplotypeCaller
// passes them) repeated, which the backend packs like any others.
func equalBatch(readLen, hapLen int, cells int64) []Group {
	rng := rand.New(rand.NewPCG(uint64(readLen), uint64(hapLen)))
	const nr, nh = 64, 16
	templates := make([]Group, 64)
	for i := range templates {
		base := synthHap(rng, hapLen)
		haps := make([][]byte, nh)
		for h := range haps {
			haps[h] = append([]byte(nil), base...)
			haps[h][rng.IntN(hapLen)] = "ACGT"[rng.IntN(4)]
		}
		reads := make([]Read, nr)
		for r := range reads {
			reads[r] = synthRead(rng, haps[r%nh], readLen, 18, 41, true)
			for k := range reads[r].InsQuals {
				reads[r].InsQuals[k], reads[r].DelQuals[k], reads[r].GCPQuals[k] = 45, 45, 10
			}
		}
		templates[i] = Group{Reads: reads, Haplotypes: haps}
	}
	per := templates[0].Cells()
	groups := make([]Group, max(1, int(cells/per)))
	for i := range groups {
		groups[i] = templates[i%len(templates)]
	}
	return groups
}

// benchCells is the size of a benchmark batch: HMMGO_BENCH_CELLS, else
// 2.5e11 cells (about a tenth of a second of an H100's work).
func benchCells() int64 {
	if v, err := strconv.ParseFloat(os.Getenv("HMMGO_BENCH_CELLS"), 64); err == nil && v > 0 {
		return int64(v)
	}
	return 2.5e11
}

// runGPUBench times Compute on groups: the float kernels by events (per
// chunk, summed) and the whole call (packing, copies both ways, kernels,
// double pass, log10 conversion) by the wall clock. The first 64 groups'
// results are checked against the CPU once.
func runGPUBench(b *testing.B, g *GPU, groups []Group) {
	var cells int64
	out := make([][]float64, len(groups))
	for i := range groups {
		cells += groups[i].Cells()
		out[i] = make([]float64, groups[i].Pairs())
	}
	if err := g.Compute(groups, out); err != nil { // warm-up: buffers, clocks
		b.Fatal(err)
	}
	check := groups[:min(64, len(groups))]
	if g.variant.fused { // the CPU's fused kernel is the slow portable one
		check = groups[:min(4, len(groups))]
	}
	want, err := ComputeGroups(check, Options{Backend: NewCPU(CPUOptions{Arith: g.opt.Arith})})
	if err != nil {
		b.Fatal(err)
	}
	for i := range check {
		for k := range want[i] {
			if out[i][k] != want[i][k] {
				b.Fatalf("group %d pair %d: GPU %v, CPU %v", i, k, out[i][k], want[i][k])
			}
		}
	}
	var kernel, wall time.Duration
	for b.Loop() {
		before := g.Stats().KernelTime
		start := time.Now()
		if err := g.Compute(groups, out); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		kernel += g.Stats().KernelTime - before
	}
	n := float64(b.N) * float64(cells)
	b.ReportMetric(n/kernel.Seconds()/1e12, "TCUPS-kernel")
	b.ReportMetric(n/wall.Seconds()/1e12, "TCUPS-e2e")
	b.ReportMetric(float64(cells)/1e9, "Gcells")
}

// BenchmarkGPUEqual: peak throughput on equal-length batches.
//
//	pairhmm.test -test.run '^$' -test.bench GPUEqual -test.benchtime 3x
func BenchmarkGPUEqual(b *testing.B) {
	g := realGPU(b)
	for _, sz := range [][2]int{{100, 300}, {150, 300}, {250, 500}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			runGPUBench(b, g, equalBatch(sz[0], sz[1], benchCells()))
		})
	}
}

// BenchmarkGPUVariants: the kernel variants (gpuVariants) side by side on
// the equal-length batches, one backend per variant, each in GKL's and
// (name+fused) the fused arithmetic.
//
//	pairhmm.test -test.run '^$' -test.bench GPUVariants -test.benchtime 3x
func BenchmarkGPUVariants(b *testing.B) {
	devs := usableGPUs(b)
	for _, sz := range [][2]int{{100, 300}, {150, 300}, {250, 500}} {
		groups := equalBatch(sz[0], sz[1], benchCells())
		for _, v := range gpuVariants {
			for _, arith := range []Arith{ArithGKL, ArithFused} {
				v.fused = arith == ArithFused
				b.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], v.label()), func(b *testing.B) {
					g, err := newGPUOnDevices(devs[:1], GPUOptions{Variant: v.name, Arith: arith})
					if err != nil {
						b.Fatal(err)
					}
					defer g.Close()
					runGPUBench(b, g, groups)
				})
			}
		}
	}
}

// BenchmarkGPUVariantBins: every variant on the equal-length batches in
// both arithmetics, each backend compiled for only the bin its table gives
// the batch's reads (one NVRTC compilation, not one per bin): the kernels
// are those the variant runs there. A variant that compiles the bin
// exactly as one already run is skipped (one left out by -test.bench does
// not count), so a pattern can pick variants by name. HMMGO_BENCH_SHAPES
// adds batches (as "80x300,600x1200"):
//
//	pairhmm.test -test.run '^$' -test.bench 'GPUVariantBins//^(tuned|tuned2)(\+fused)?$' -test.benchtime 3x
func BenchmarkGPUVariantBins(b *testing.B) {
	devs := usableGPUs(b)
	sizes := [][2]int{{100, 300}, {150, 300}, {250, 500}}
	for _, s := range strings.Split(os.Getenv("HMMGO_BENCH_SHAPES"), ",") {
		var sz [2]int
		if _, err := fmt.Sscanf(s, "%dx%d", &sz[0], &sz[1]); err == nil {
			sizes = append(sizes, sz)
		}
	}
	for _, sz := range sizes {
		groups := equalBatch(sz[0], sz[1], benchCells())
		seen := map[string]bool{}
		for _, v := range gpuVariants {
			table := v.binTable()
			bin := table[gpuBin(table, sz[0])]
			for _, arith := range []Arith{ArithFused, ArithGKL} {
				v.fused = arith == ArithFused
				key := bin.String() + " " + strings.Join(kernelOptions(bin, v), " ")
				if seen[key] {
					continue
				}
				b.Run(fmt.Sprintf("%dx%d/%s/%s", sz[0], sz[1], v.label(), bin), func(b *testing.B) {
					seen[key] = true
					g, err := newGPUOnDevices(devs[:1], GPUOptions{Variant: v.name, Arith: arith, configs: []gpuConfig{bin}})
					if err != nil {
						b.Fatal(err)
					}
					defer g.Close()
					runGPUBench(b, g, groups)
					reportResources(b, g) // after the timed loop, which resets metrics
				})
			}
		}
	}
}

// BenchmarkGPUConfigs compares kernel configurations (threads per pair x
// rows per thread) on one read length, each as the only length bin, to
// tune gpuConfigs.
func BenchmarkGPUConfigs(b *testing.B) {
	devs := usableGPUs(b)
	for _, c := range []struct {
		readLen int
		cfgs    []gpuConfig
	}{
		{100, []gpuConfig{{4, 25}, {8, 13}, {16, 7}, {32, 4}, {16, 8}}},
		{150, []gpuConfig{{8, 19}, {16, 10}, {32, 5}, {4, 38}}},
	} {
		groups := equalBatch(c.readLen, 300, benchCells()/2)
		for _, cfg := range c.cfgs {
			b.Run(fmt.Sprintf("%dx300/%s", c.readLen, cfg), func(b *testing.B) {
				g, err := newGPUOnDevices(devs[:1], GPUOptions{configs: []gpuConfig{cfg}})
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				runGPUBench(b, g, groups)
			})
		}
	}
}

// longBatch returns groups of 6 reads of readLen against 3 haplotypes of
// hapLen (the shape of bench/pairhmm_gpu.sh's long600x1200 set, qualities
// 10-30), about cells DP cells in all.
func longBatch(readLen, hapLen int, cells int64) []Group {
	rng := rand.New(rand.NewPCG(uint64(readLen), 7))
	templates := make([]Group, 32)
	for i := range templates {
		base := synthHap(rng, hapLen)
		haps := make([][]byte, 3)
		for h := range haps {
			haps[h] = append([]byte(nil), base...)
			haps[h][rng.IntN(hapLen)] = "ACGT"[rng.IntN(4)]
		}
		reads := make([]Read, 6)
		for r := range reads {
			reads[r] = synthRead(rng, haps[r%3], readLen, 10, 30, true)
		}
		templates[i] = Group{Reads: reads, Haplotypes: haps}
	}
	groups := make([]Group, max(1, int(cells/templates[0].Cells())))
	for i := range groups {
		groups[i] = templates[i%len(templates)]
	}
	return groups
}

// BenchmarkGPULong compares configurations for reads longer than the
// 32x16 bin takes (and 500-base reads, which it takes), each as the only
// bin, with the float and double kernels' registers and local memory
// (spills) per thread.
//
//	pairhmm.test -test.run '^$' -test.bench GPULong -test.benchtime 2x
func BenchmarkGPULong(b *testing.B) {
	devs := usableGPUs(b)
	for _, c := range []struct {
		readLen, hapLen int
		cfgs            []gpuConfig
	}{
		{500, 2000, []gpuConfig{{32, 16}, {32, 20}}},
		{600, 1200, []gpuConfig{{32, 19}, {32, 20}, {32, 24}, {32, 28}, {32, 32}}},
	} {
		groups := longBatch(c.readLen, c.hapLen, benchCells()/5)
		for _, cfg := range c.cfgs {
			b.Run(fmt.Sprintf("%dx%d/%s", c.readLen, c.hapLen, cfg), func(b *testing.B) {
				g, err := newGPUOnDevices(devs[:1], GPUOptions{configs: []gpuConfig{cfg}})
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				runGPUBench(b, g, groups)
				reportResources(b, g) // after the timed loop, which resets metrics
			})
		}
	}
}

// reportResources reports the registers and local memory per thread of
// the first configuration's kernels.
func reportResources(b *testing.B, g *GPU) {
	for _, k := range []struct {
		name string
		f    gpuFunction
	}{{"float", g.devs[0].float[0]}, {"double", g.devs[0].double[0]}} {
		f, ok := k.f.(*cuda.Function)
		if !ok {
			return
		}
		regs, _ := f.Attribute(cuda.FuncNumRegs)
		local, _ := f.Attribute(cuda.FuncLocalSizeBytes)
		b.ReportMetric(float64(regs), k.name+"-regs")
		b.ReportMetric(float64(local), k.name+"-local-B")
	}
}
