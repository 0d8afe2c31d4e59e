package pairhmm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The CUDA source cannot be compiled here (no CUDA), but it is plain C++
// apart from a few device features. testdata/cudaemu supplies those
// (coroutine threads with emulated warp shuffles, bounds-checked global
// reads), so the machine's C++ compiler builds pairhmm.cu itself, once per
// length bin with the options the backend gives NVRTC, and the fake
// device runs the real kernels through it. This catches errors in the
// kernel source and its exactness before any GPU time is spent.

// emulator is the C++ build of pairhmm.cu for one kernel variant.
type emulator struct {
	once sync.Once
	path string
	err  error
}

var (
	emuMu    sync.Mutex
	emulated = map[string]*emulator{}
)

func buildEmulator(t *testing.T, v gpuVariant) string {
	t.Helper()
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("no C++ compiler (%s): the emulated-kernel test needs one", cxx)
	}
	emuMu.Lock()
	e := emulated[v.label()]
	if e == nil {
		e = &emulator{}
		emulated[v.label()] = e
	}
	emuMu.Unlock()
	e.once.Do(func() {
		dir, err := os.MkdirTemp("", "pairhmm-emu-"+v.label())
		if err != nil {
			e.err = err
			return
		}
		var inc strings.Builder
		var table strings.Builder
		for i, c := range v.binTable() {
			fmt.Fprintf(&inc, "namespace k%d {\n", i)
			var names []string
			for _, o := range kernelOptions(c, v) {
				if def, ok := strings.CutPrefix(o, "-D"); ok {
					name, val, _ := strings.Cut(def, "=")
					fmt.Fprintf(&inc, "#define %s %s\n", name, val)
					names = append(names, name)
				}
			}
			fmt.Fprintf(&inc, "#define pairhmm_float emu_float_%d\n#define pairhmm_double emu_double_%d\n#include \"pairhmm.cu\"\n", i, i)
			for _, n := range append(names, "pairhmm_float", "pairhmm_double") {
				fmt.Fprintf(&inc, "#undef %s\n", n)
			}
			fmt.Fprintf(&inc, "}\n")
			fmt.Fprintf(&table, "\t{%d, %d, k%d::emu_float_%d, k%d::emu_double_%d},\n", c.group, c.rows, i, i, i, i)
		}
		fmt.Fprintf(&inc, "static EmuKernel emu_kernels[] = {\n%s\t{0, 0, nullptr, nullptr},\n};\n", table.String())
		files := map[string]string{"kernels.inc": inc.String(), "pairhmm.cu": CUDASource}
		for _, n := range []string{"emu.h", "emu_main.cpp"} {
			b, err := os.ReadFile(filepath.Join("testdata", "cudaemu", n))
			if err != nil {
				e.err = err
				return
			}
			files[n] = string(b)
		}
		for n, s := range files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
				e.err = err
				return
			}
		}
		e.path = filepath.Join(dir, "emu")
		out, err := exec.Command(cxx, "-std=c++17", "-O1", "-Wall", "-Wno-unused-function", "-Wno-unknown-pragmas", "-o", e.path,
			filepath.Join(dir, "emu_main.cpp")).CombinedOutput()
		if err != nil {
			e.err = fmt.Errorf("compiling pairhmm.cu (variant %s) as C++: %v\n%s", v.label(), err, out)
		} else if len(bytes.TrimSpace(out)) > 0 {
			e.err = fmt.Errorf("warnings compiling pairhmm.cu (variant %s) as C++:\n%s", v.label(), out)
		}
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.path
}

// emulatedLaunch runs one kernel launch through the emulator built for
// variant v.
func emulatedLaunch(emu string, v gpuVariant) func(f fakeFunc, grid, block int, args []any) error {
	return func(f fakeFunc, grid, block int, args []any) error {
		// The module's options say how it was compiled: as v compiles
		// this configuration (forConfig).
		if w := v.forConfig(f.cfg); f.variant.vec != w.vec || f.variant.unroll != w.unroll || f.variant.fused != w.fused {
			return fmt.Errorf("%s kernel of variant %s launched on the emulator of %s", f.cfg, f.variant.label(), v.label())
		}
		var in bytes.Buffer
		put := func(v any) { binary.Write(&in, binary.LittleEndian, v) }
		double := int32(0)
		if f.double {
			double = 1
		}
		put([]int32{double, int32(f.cfg.group), int32(f.cfg.rows), int32(grid), int32(block), int32(len(args))})
		for _, a := range args {
			switch v := a.(type) {
			case devPtr:
				b := v.buf.(*fakeBuf).data[v.off:]
				put(int32(0))
				put(int64(len(b)))
				in.Write(b)
			case int32:
				put(int32(1))
				put(v)
			case float32:
				put(int32(2))
				put(v)
			case float64:
				put(int32(3))
				put(v)
			default:
				return fmt.Errorf("argument of type %T", a)
			}
		}
		cmd := exec.Command(emu)
		cmd.Stdin = &in
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("emulated %s kernel (double %v): %v: %s", f.cfg, f.double, err, errb.String())
		}
		res := args[len(args)-1].(devPtr)
		copy(res.buf.(*fakeBuf).data[res.off:], out.Bytes())
		return nil
	}
}

// TestCUDASourceEmulated compiles pairhmm.cu with the C++ compiler and
// runs its kernels through the whole backend: reads filling every bin
// exactly, one base short, one base past the previous bin, and short;
// unrelated pairs for the double kernels. Every raw sum must be the CPU's,
// in both arithmetics (the fused one against the portable fused kernel).
func TestCUDASourceEmulated(t *testing.T) {
	for _, v := range gpuVariants {
		t.Run(v.name, func(t *testing.T) { testCUDASourceEmulated(t, v) })
		v.fused = true
		t.Run(v.label(), func(t *testing.T) { testCUDASourceEmulated(t, v) })
	}
}

func testCUDASourceEmulated(t *testing.T, v gpuVariant) {
	emu := buildEmulator(t, v)
	rng := rand.New(rand.NewPCG(12, 5))
	var groups []Group
	prev := 0
	for _, c := range v.binTable() {
		haps := [][]byte{synthHap(rng, 1+rng.IntN(30)), synthHap(rng, 100+rng.IntN(60))}
		var reads []Read
		for _, n := range []int{c.maxLen(), c.maxLen() - 1, prev + 1, 1 + rng.IntN(c.maxLen())} {
			reads = append(reads, synthRead(rng, haps[1], n, 3, 45, true))
		}
		reads = append(reads, synthRead(rng, haps[1], c.maxLen(), 30, 45, false)) // unrelated: double pass
		groups = append(groups, Group{Reads: reads, Haplotypes: haps})
		prev = c.maxLen()
	}
	arith := ArithGKL
	if v.fused {
		arith = ArithFused
	}
	want, err := ComputeGroups(groups, Options{Backend: NewCPU(CPUOptions{Arith: arith})})
	if err != nil {
		t.Fatal(err)
	}
	rt := &fakeRuntime{exec: emulatedLaunch(emu, v)}
	gpu, err := newGPU([]gpuRuntime{rt}, GPUOptions{Variant: v.name, Arith: arith})
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Close()
	got, err := ComputeGroups(groups, Options{Backend: gpu})
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "emulated CUDA", got, want)
	st := gpu.Stats()
	if st.DoublePairs == 0 {
		t.Errorf("no pair reached the double kernels: %+v", st)
	}
	finite := 0
	for _, g := range got {
		for _, v := range g {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				finite++
			}
		}
	}
	t.Logf("%d launches, %d pairs (%d finite), %d through the double kernels", rt.launches, st.Pairs, finite, st.DoublePairs)
}
