package vitfilter

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
)

// These tests run vit.cu and vit16.cu themselves on the CPU:
// testdata/cudacpu/shim.h with internal/cudacpu/emu.h stands in for the
// CUDA built-ins (each GPU thread a coroutine; shuffles and votes
// exchanged between them; DPX 16x2 adds wrapping as on the device), fed
// through the same packing and tables as gpu.go, and every score is
// compared with refScore. NVRTC and the device itself are gpu_test.go's.

// shims holds one executable per shape, each built once; builds of
// different shapes run at once (parallel tests).
var shims = cudacpu.Builds[gpuShape]{Name: "vitcpu"}

func TestMain(m *testing.M) {
	code := m.Run()
	shims.Remove()
	os.Exit(code)
}

// shimExe compiles the kernels for shape s once per test binary, or skips.
func shimExe(t *testing.T, s gpuShape) string {
	t.Helper()
	cc := cudacpu.Compiler(t, "vit.cu")
	return shims.Exe(t, s, func(dir string) (string, error) {
		files := map[string]string{"defs.h": s.defines(), "vit.cu": cudaSource, "vit16.cu": cuda16Source, "vit16p.cu": cuda16pSource}
		if err := cudacpu.ReadFiles(files, "testdata/cudacpu/shim.h", "testdata/cudacpu/driver.cc"); err != nil {
			return "", err
		}
		exe, err := cudacpu.Compile(cc, dir, "vitcpu", files, "-O1", "-fwrapv")
		if err != nil {
			return "", fmt.Errorf("compiling vit.cu with the CPU shim (%+v): %w", s, err)
		}
		return exe, nil
	})
}

// shimRaw runs one kernel (p nil: vit_kernel) over targets idx of dsqs
// and returns its raw results, indexed as dsqs.
func shimRaw(t *testing.T, p *dpxPlan, om *oprofile.VitProfile, Kp int, s gpuShape, dsqs [][]byte, idx []int, moves []int32) []int32 {
	t.Helper()
	packed := gpudb.Pack(dsqs, idx, s.T)
	kind := int32(0)
	kinds := map[string]int32{"vit16_kernel": 1, "vit16p_kernel": 2}
	emis, trans := emisWords(s, om, Kp), transWords(s, om)
	tbmmin, lim := int32(0), int32(0)
	if p != nil {
		kind, emis, trans, tbmmin, lim = kinds[p.kernel], p.emisWords(s, om, Kp), p.transWords(s, om), int32(p.tbmmin), int32(p.lim)
	}
	mv := make([]byte, 4*len(dsqs))
	for i, m := range moves {
		binary.LittleEndian.PutUint32(mv[4*i:], uint32(m))
	}
	var in cudacpu.Input
	in.Put([]int32{kind, int32(packed.NBlocks), int32(len(dsqs)), 2, int32(s.sharedBytes()),
		int32(om.Base), int32(om.XW[profile.XE][profile.Move]), int32(om.XW[profile.XE][profile.Loop]), int32(om.DDBound), tbmmin, lim})
	in.Arrays(emis, trans, packed.Res, packed.Table, mv)
	words := cudacpu.Words(t, cudacpu.Run(t, shimExe(t, s), fmt.Sprintf("kernel (%+v)", s), &in), len(dsqs))
	got := make([]int32, len(words))
	for i, w := range words {
		got[i] = int32(w)
	}
	return got
}

// shimCounts tallies what vit16_kernel did with the targets it ran.
type shimCounts struct{ dpx, handedBack, overflow, fallbackModels int }

// shimScores scores dsqs as GPU.Scores does under cfg (a DPX kernel
// where cfg.plan allows, the rest by vit_kernel), through the kernels on
// the CPU, and compares every score with refScore under the target's
// length.
func shimScores(t *testing.T, what string, cfg dpxConfig, om *oprofile.VitProfile, Kp int, dsqs [][]byte, c *shimCounts) {
	t.Helper()
	s := shapeFor(om.M, Kp)
	moves := make([]int32, len(dsqs))
	var all []int
	for i, d := range dsqs {
		moves[i] = int32(om.MoveFor(len(d), 1))
		if len(d) > 0 {
			all = append(all, i)
		}
	}
	got := make([]float32, len(dsqs))
	by16 := make([]bool, len(dsqs))
	redo := all
	if p, ok := cfg.plan(om, Kp); ok {
		raw := shimRaw(t, p, om, Kp, p.shape, dsqs, all, moves)
		redo = nil
		for _, i := range all {
			if raw[i] == rescoreCode || !p.fits(om, moves[i]) {
				redo = append(redo, i)
				continue
			}
			c.dpx++
			by16[i] = true
			if raw[i] == 0x7fffffff {
				c.overflow++
			}
			got[i] = wordScore(om, raw[i], moves[i])
		}
		c.handedBack += len(redo)
	} else {
		c.fallbackModels++
	}
	if len(redo) > 0 {
		raw := shimRaw(t, nil, om, Kp, s, dsqs, redo, moves)
		for _, i := range redo {
			got[i] = wordScore(om, raw[i], moves[i])
		}
	}
	bad := 0
	for _, i := range all {
		xw := om.XW
		for _, st := range []int{profile.XN, profile.XJ, profile.XC} {
			xw[st][profile.Move] = int16(moves[i])
		}
		if want := refScore(dsqs[i], om, &xw); !same(got[i], want) {
			if bad++; bad <= 3 {
				t.Errorf("%s (M=%d, %+v): target %d (L=%d): kernel %v (DPX kernel: %v), reference %v", what, om.M, s, i, len(dsqs[i]), got[i], by16[i], want)
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d of %d targets differ", what, bad, len(all))
	}
}

func (c shimCounts) String() string {
	return fmt.Sprintf("%d targets by the DPX kernels (%d overflows), %d handed back, %d models on vit_kernel only",
		c.dpx, c.overflow, c.handedBack, c.fallbackModels)
}
