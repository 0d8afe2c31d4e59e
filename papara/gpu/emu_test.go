package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// There is no GPU here or in CI, but papara.cu is plain C++ apart from a
// few device features, which testdata/emu/emu.h supplies (the threads of a
// group as coroutines that meet at every shuffle, bounds-checked global
// reads, the DPX functions and prmt as the CUDA and PTX documents define
// them). So the machine's C++ compiler builds papara.cu itself, once per
// configuration with the options NVRTC gets, and the fake device runs the
// real kernel through it: its logic and exactness are checked before any
// GPU time is spent.

var (
	emuOnce sync.Once
	emuPath string
	emuIdx  map[config]int
	emuErr  error
)

// emuConfigs are the configurations the emulated tests launch.
func emuConfigs(t *testing.T) []config {
	seen := map[config]bool{}
	for _, spec := range scorerCases(true) {
		for c := range newJobData(randomJob(t, spec)).used {
			seen[c] = true
		}
	}
	var list []config
	for c := range seen {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool { return compareConfigs(list[i], list[j]) < 0 })
	return list
}

func buildEmulator(t *testing.T) (string, map[config]int) {
	t.Helper()
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("no C++ compiler (%s): the emulated-kernel test needs one", cxx)
	}
	configs := emuConfigs(t)
	emuOnce.Do(func() {
		dir, err := os.MkdirTemp("", "papara-emu")
		if err != nil {
			emuErr = err
			return
		}
		// every macro papara.cu defines, to undefine between configurations
		var macros []string
		for _, m := range regexp.MustCompile(`(?m)^#define (\w+)`).FindAllStringSubmatch(cudaSource, -1) {
			macros = append(macros, m[1])
		}
		var inc, table strings.Builder
		emuIdx = map[config]int{}
		for i, c := range configs {
			emuIdx[c] = i
			fmt.Fprintf(&inc, "namespace k%d {\n", i)
			for _, o := range c.options() {
				name, val, _ := strings.Cut(strings.TrimPrefix(o, "-D"), "=")
				fmt.Fprintf(&inc, "#define %s %s\n", name, val)
			}
			fmt.Fprintf(&inc, "#define papara_score emu_kernel_%d\n#include \"papara.cu\"\n#undef papara_score\n", i)
			for _, m := range macros {
				fmt.Fprintf(&inc, "#undef %s\n", m)
			}
			fmt.Fprintf(&inc, "}\n")
			fmt.Fprintf(&table, "\t{%d, k%d::emu_kernel_%d},\n", c.g, i, i)
		}
		fmt.Fprintf(&inc, "static EmuKernel emu_kernels[] = {\n%s\t{0, nullptr},\n};\n", table.String())
		files := map[string]string{"kernels.inc": inc.String(), "papara.cu": cudaSource}
		for _, n := range []string{"emu.h", "emu_main.cpp"} {
			b, err := os.ReadFile(filepath.Join("testdata", "emu", n))
			if err != nil {
				emuErr = err
				return
			}
			files[n] = string(b)
		}
		for n, s := range files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
				emuErr = err
				return
			}
		}
		emuPath = filepath.Join(dir, "emu")
		out, err := exec.Command(cxx, "-std=c++17", "-O1", "-Wall", "-Wno-unused-function", "-Wno-unknown-pragmas",
			"-o", emuPath, filepath.Join(dir, "emu_main.cpp")).CombinedOutput()
		if err != nil {
			emuErr = fmt.Errorf("compiling papara.cu as C++: %v\n%s", err, out)
		} else if len(bytes.TrimSpace(out)) > 0 {
			emuErr = fmt.Errorf("warnings compiling papara.cu as C++:\n%s", out)
		}
	})
	if emuErr != nil {
		t.Fatal(emuErr)
	}
	return emuPath, emuIdx
}

// emulatedLaunch runs one launch through the emulator.
func emulatedLaunch(emu string, idx map[config]int) func(c config, gridX, gridY int, args []any) error {
	return func(c config, gridX, gridY int, args []any) error {
		i, ok := idx[c]
		if !ok {
			return fmt.Errorf("configuration %s not in the emulator", c)
		}
		var in bytes.Buffer
		put := func(v any) { binary.Write(&in, binary.LittleEndian, v) }
		put([]int32{int32(i), int32(gridX), int32(gridY)})
		for _, a := range args {
			switch v := a.(type) {
			case ptr:
				b := argBytes(v)
				put(int32(0))
				put(int64(len(b)))
				in.Write(b)
			case int32:
				put(int32(1))
				put(v)
			}
		}
		cmd := exec.Command(emu)
		cmd.Stdin = &in
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("emulated %s kernel: %v: %s", c, err, errb.String())
		}
		copy(argBytes(args[14]), out.Bytes())
		return nil
	}
}

// TestCUDASourceEmulated runs papara.cu, compiled as C++, through the
// whole scorer on every mode and the bins of the small cases, against the
// CPU: alone, hybrid, and pair by pair.
func TestCUDASourceEmulated(t *testing.T) {
	emu, idx := buildEmulator(t)
	for _, spec := range scorerCases(true) {
		t.Run(caseName(spec), func(t *testing.T) {
			job := randomJob(t, spec)
			dev := &fakeDevice{exec: emulatedLaunch(emu, idx)}
			s := newScorer(dev)
			defer s.Close()
			checkScorer(t, s, job)
			st := s.Stats()
			t.Logf("%s: %d launches of %s", describeJob(job), st.Launches, configList(dev.kernels))
		})
	}
}
