package pairhmm

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// Tests named TestGPU* whose backend is realGPU need a GPU: they skip
// without one (saying why) and run on the GPU host through
// bench/pairhmm_gpu.sh. Every one compares the GPU's likelihoods with the
// CPU backend's, bit for bit.

var (
	gpuOnce  sync.Once
	gpuDevs  []*cuda.Device
	gpuWhy   string
	gpuFirst *GPU
	gpuErr   error
)

func usableGPUs(t testing.TB) []*cuda.Device {
	t.Helper()
	gpuOnce.Do(func() {
		devs, err := devices.Usable()
		if err != nil {
			gpuWhy = fmt.Sprintf("no usable GPU: %v", err)
			return
		}
		gpuDevs = devs
		gpuFirst, gpuErr = NewGPU(devs[:1], GPUOptions{})
	})
	if gpuWhy != "" {
		t.Skip(gpuWhy)
	}
	return gpuDevs
}

// realGPU is a backend on the first GPU, shared by the tests.
func realGPU(t testing.TB) *GPU {
	t.Helper()
	usableGPUs(t)
	if gpuErr != nil {
		t.Fatal(gpuErr)
	}
	return gpuFirst
}

// compareWithCPU: the CPU runs in the GPU backend's arithmetic.
func compareWithCPU(t *testing.T, what string, g *GPU, groups []Group) GPUStats {
	t.Helper()
	want, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Arith: g.opt.Arith})})
	if err != nil {
		t.Fatal(err)
	}
	before := g.Stats()
	got, err := ComputeGroups(groups, Options{Backend: g})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	sameBits(t, what, got, want)
	st := g.Stats()
	d := GPUStats{Pairs: st.Pairs - before.Pairs, Cells: st.Cells - before.Cells, DoublePairs: st.DoublePairs - before.DoublePairs,
		ScaledPairs: st.ScaledPairs - before.ScaledPairs, CPUPairs: st.CPUPairs - before.CPUPairs, Chunks: st.Chunks - before.Chunks,
		KernelTime: st.KernelTime - before.KernelTime}
	t.Logf("%s on %s: %d pairs (%d cells) in %d chunks, float kernels %v, %d double, %d rescaled, %d on the CPU",
		what, g.Name(), d.Pairs, d.Cells, d.Chunks, d.KernelTime, d.DoublePairs, d.ScaledPairs, d.CPUPairs)
	return d
}

// TestGPUSharedSets: tiny, 10s and 1m (1m includes the pair where
// gpuPairHMM returns -inf and GATK's double pass -85.2069).
func TestGPUSharedSets(t *testing.T) {
	g := realGPU(t)
	for _, ds := range datasets {
		groups := loadGroups(t, testutil.SharedData(t, ds.input))
		st := compareWithCPU(t, ds.name, g, groups)
		if st.KernelTime <= 0 {
			t.Errorf("%s: no kernel time measured", ds.name)
		}
	}
}

// syntheticGPUGroups: low qualities, long reads (up to and past the
// kernels' 1024), long haplotypes (1,000 to 5,000), unrelated pairs (double
// pass on the GPU, rescaled pass below the double range), every bin
// boundary.
func syntheticGPUGroups() []Group {
	rng := rand.New(rand.NewPCG(21, 3))
	var groups []Group
	add := func(readLens []int, hapLens []int, qlo, qhi int, related bool) {
		var haps [][]byte
		for _, n := range hapLens {
			haps = append(haps, synthHap(rng, n))
		}
		var reads []Read
		for i, n := range readLens {
			reads = append(reads, synthRead(rng, haps[i%len(haps)], n, qlo, qhi, related))
		}
		groups = append(groups, Group{Reads: reads, Haplotypes: haps})
	}
	var bounds []int
	for _, c := range allGPUConfigs() {
		bounds = append(bounds, c.maxLen(), c.maxLen()+1)
	}
	add(bounds, []int{150, 700}, 10, 40, true)
	add([]int{100, 80, 60, 40, 20}, []int{150, 160, 170}, 0, 15, true) // low qualities
	add([]int{300, 400, 500, 512, 513, 700, 1024, 1025, 1300}, []int{1000, 1200, 1500}, 20, 45, true)
	add([]int{150, 250, 100}, []int{3000, 5000}, 10, 40, true)
	add([]int{60, 90, 120}, []int{120, 200}, 20, 40, false)   // double pass
	add([]int{500, 450, 700}, []int{800, 900}, 40, 60, false) // rescaled pass
	for i := 0; i < 40; i++ {                                 // many small groups of realistic reads
		add([]int{151, 151, 150, 101, 100, 36}, []int{250 + i, 260, 300}, 6, 41, true)
	}
	return groups
}

func TestGPUSynthetic(t *testing.T) {
	g := realGPU(t)
	st := compareWithCPU(t, "synthetic", g, syntheticGPUGroups())
	if st.DoublePairs == 0 || st.ScaledPairs == 0 || st.CPUPairs == 0 {
		t.Errorf("a path was not exercised: %+v", st)
	}
}

// TestGPUSmallChunks forces many chunks through both streams, groups split
// by reads and by haplotypes, and buffers that grow.
func TestGPUSmallChunks(t *testing.T) {
	devs := usableGPUs(t)
	g, err := NewGPU(devs[:1], GPUOptions{ChunkPairs: 97, ChunkBytes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	groups := append(hostSideGroups(t, false), syntheticGPUGroups()...)
	st := compareWithCPU(t, "small chunks", g, groups)
	if st.Chunks < 10 {
		t.Errorf("only %d chunks", st.Chunks)
	}
	// The same backend again (the command reuses it chunk after chunk).
	compareWithCPU(t, "small chunks, second call", g, groups[:3])
}

// TestGPUAllDevices: every usable GPU at once (--gpu all).
func TestGPUAllDevices(t *testing.T) {
	devs := usableGPUs(t)
	g, err := NewGPU(devs, GPUOptions{ChunkPairs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	compareWithCPU(t, fmt.Sprintf("%d GPUs", len(devs)), g, syntheticGPUGroups())
}

// TestGPUFused: the fused arithmetic (PH_FUSED=1) in every kernel
// variant against the CPU's portable fused kernel, bit for bit, on the
// synthetic set (every bin, both precisions, the rescaled pass) and the
// shared sets.
func TestGPUFused(t *testing.T) {
	devs := usableGPUs(t)
	groups := syntheticGPUGroups()
	for _, ds := range datasets {
		groups = append(groups, loadGroups(t, testutil.SharedData(t, ds.input))...)
	}
	for _, v := range gpuVariants {
		t.Run(v.name, func(t *testing.T) {
			g, err := NewGPU(devs[:1], GPUOptions{Variant: v.name, Arith: ArithFused})
			if err != nil {
				t.Fatalf("variant %s: %v", v.name, err)
			}
			defer g.Close()
			st := compareWithCPU(t, "fused "+v.name, g, groups)
			if st.DoublePairs == 0 || st.ScaledPairs == 0 || st.CPUPairs == 0 {
				t.Errorf("a path was not exercised: %+v", st)
			}
		})
	}
}

// TestFusedOnFake runs TestGPUFused's synthetic part through the fake
// device (the simulated kernel schedule), before any GPU time.
func TestFusedOnFake(t *testing.T) {
	g, err := newGPU([]gpuRuntime{&fakeRuntime{}}, GPUOptions{ChunkPairs: 97, ChunkBytes: 20000, Arith: ArithFused})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	st := compareWithCPU(t, "fused on the fake device", g, syntheticGPUGroups())
	if st.DoublePairs == 0 || st.ScaledPairs == 0 || st.CPUPairs == 0 {
		t.Errorf("a path was not exercised: %+v", st)
	}
}

// TestSyntheticGPUSetOnFake runs the GPU tests' synthetic set through the
// fake device, so that the set itself (and what TestGPUSynthetic and
// TestGPUSmallChunks expect of it) is checked before any GPU time.
func TestSyntheticGPUSetOnFake(t *testing.T) {
	g, err := newGPU([]gpuRuntime{&fakeRuntime{}}, GPUOptions{ChunkPairs: 97, ChunkBytes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	st := compareWithCPU(t, "synthetic on the fake device", g, syntheticGPUGroups())
	if st.DoublePairs == 0 || st.ScaledPairs == 0 || st.CPUPairs == 0 || st.Chunks < 10 {
		t.Errorf("a path was not exercised: %+v", st)
	}
}

// TestGPUVariants: every kernel variant (gpuVariants) against the CPU, bit
// for bit, on the synthetic set (every bin, both precisions) and 10s.
func TestGPUVariants(t *testing.T) {
	devs := usableGPUs(t)
	groups := append(syntheticGPUGroups(), loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))...)
	for _, v := range gpuVariants {
		t.Run(v.name, func(t *testing.T) {
			g, err := NewGPU(devs[:1], GPUOptions{Variant: v.name})
			if err != nil {
				t.Fatalf("variant %s: %v", v.name, err)
			}
			defer g.Close()
			compareWithCPU(t, "variant "+v.name, g, groups)
		})
	}
}
