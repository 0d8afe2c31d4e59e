//go:build hmmgo_gpu_pending

package pairhmm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// fakeRuntime stands in for a CUDA device: buffers are host memory and the
// kernels are executed by the Go transcription of their schedule
// (simulateGroupKernel) or, in double, by the CPU recurrence. It tests the
// host side of the backend: packing, length bins, task offsets, chunking,
// the double pass and the CPU fallback for long reads.
type fakeRuntime struct{ launches int }

type fakeBuf struct {
	data []byte
	off  int
}

func (b *fakeBuf) Free()                             {}
func (b *fakeBuf) Sub(off int) GPUBuffer             { return &fakeBuf{b.data, b.off + off} }
func (b *fakeBuf) bytes() []byte                     { return b.data[b.off:] }
func (f *fakeRuntime) Name() string                  { return "fake" }
func (f *fakeRuntime) NewStream() (GPUStream, error) { return &fakeStream{f}, nil }
func (f *fakeRuntime) Alloc(n int) (GPUBuffer, error) {
	return &fakeBuf{data: make([]byte, n)}, nil
}

type fakeModule struct{ group, rows int }
type fakeFunc struct {
	fakeModule
	double bool
}

func (f *fakeRuntime) Compile(src string, opts []string) (GPUModule, error) {
	var m fakeModule
	for _, o := range opts {
		fmt.Sscanf(o, "-DPH_GROUP=%d", &m.group)
		fmt.Sscanf(o, "-DPH_ROWS=%d", &m.rows)
	}
	if !strings.Contains(src, "pairhmm_float") || m.group == 0 || m.rows == 0 {
		return nil, fmt.Errorf("bad compile request %v", opts)
	}
	return m, nil
}

func (m fakeModule) Function(name string) (GPUFunction, error) {
	return fakeFunc{m, name == "pairhmm_double"}, nil
}

type fakeStream struct{ rt *fakeRuntime }

func (s *fakeStream) CopyToDevice(dst GPUBuffer, src []byte) error {
	copy(dst.(*fakeBuf).bytes(), src)
	return nil
}
func (s *fakeStream) CopyFromDevice(dst []byte, src GPUBuffer) error {
	copy(dst, src.(*fakeBuf).bytes())
	return nil
}
func (s *fakeStream) Synchronize() error { return nil }

func (s *fakeStream) Launch(fn GPUFunction, grid, block int, args ...any) error {
	s.rt.launches++
	f := fn.(fakeFunc)
	arr := func(i int) []byte { return args[i].(*fakeBuf).bytes() }
	i32 := func(i, k int) int { return int(int32(binary.LittleEndian.Uint32(arr(i)[4*k:]))) }
	ntasks := int(args[aTaskHap+1].(int32))
	if grid*(block/f.group) < ntasks {
		return fmt.Errorf("grid %d x %d groups does not cover %d tasks", grid, block/f.group, ntasks)
	}
	out := args[len(args)-1].(*fakeBuf).bytes()
	for t := 0; t < ntasks; t++ {
		ri, hi := i32(aTaskRead, t), i32(aTaskHap, t)
		off, n := i32(aReadOff, ri), i32(aReadLen, ri)
		if n > f.group*f.rows {
			return fmt.Errorf("read of %d bases sent to the %dx%d kernel", n, f.group, f.rows)
		}
		r := Read{Bases: make([]byte, n)}
		for k := 0; k < n; k++ {
			r.Bases[k] = "ACGTN"[arr(aBase)[off+k]]
		}
		r.BaseQuals, r.InsQuals = arr(aQual)[off:off+n], arr(aIns)[off:off+n]
		r.DelQuals, r.GCPQuals = arr(aDel)[off:off+n], arr(aGCP)[off:off+n]
		ho, hn := i32(aHapOff, hi), i32(aHapLen, hi)
		hap := arr(aHap)[ho : ho+hn]
		var p preparedRead
		p.prepare(&r)
		if f.double {
			var sc scratch
			sc.grow(hn + 1)
			v := forward(p.doubleRows(), hap, initial64, sc.m64, sc.x64, sc.y64)
			binary.LittleEndian.PutUint64(out[8*t:], math.Float64bits(v))
			continue
		}
		v := simulateGroupKernel(p.rows32, hap, f.group, f.rows)
		binary.LittleEndian.PutUint32(out[4*t:], math.Float32bits(v))
	}
	return nil
}

func TestGPUBackendWithFakeDevice(t *testing.T) {
	groups := loadGroups(t, testutil.SharedData(t, "PairHMM/10s.in"))
	rng := rand.New(rand.NewPCG(9, 9))
	// long reads for the CPU fallback, unrelated pairs for the double and
	// rescaled passes
	haps := [][]byte{synthHap(rng, 700), synthHap(rng, 900)}
	var reads []Read
	for _, n := range []int{600, 511, 512, 300, 100, 30} {
		reads = append(reads, synthRead(rng, haps[0], n, 20, 50, n != 511 && n != 100))
	}
	groups = append(groups, Group{Reads: reads, Haplotypes: haps})
	want, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	rts := []GPURuntime{&fakeRuntime{}, &fakeRuntime{}}
	gpu, err := NewGPU(rts, GPUOptions{ChunkPairs: 700})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ComputeGroups(groups, Options{Backend: gpu})
	if err != nil {
		t.Fatal(err)
	}
	for g := range want {
		for i := range want[g] {
			if math.Float64bits(got[g][i]) != math.Float64bits(want[g][i]) {
				t.Errorf("group %d pair %d: gpu %v, cpu %v", g, i, got[g][i], want[g][i])
			}
		}
	}
	t.Logf("%s: %d + %d launches", gpu.Name(), rts[0].(*fakeRuntime).launches, rts[1].(*fakeRuntime).launches)
}
