package pairhmm

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// CUDASource is the CUDA C++ source of the GPU kernels (pairhmm.cu),
// compiled at run time with NVRTC once per length bin (gpuConfigs), with
// the options of kernelOptions.
//
//go:embed pairhmm.cu
var CUDASource string

// gpuConfig is one compiled specialisation of the kernels: reads of up to
// group*rows bases, one group of threads per pair, rows DP rows per thread.
type gpuConfig struct{ group, rows int }

// maxLen is the longest read the configuration takes.
func (c gpuConfig) maxLen() int { return c.group * c.rows }

func (c gpuConfig) String() string { return fmt.Sprintf("%dx%d", c.group, c.rows) }

// staticSharedLimit is what a block may declare without opting in to more.
const staticSharedLimit = 48 << 10

// gpuVariant is a way of compiling the same kernels: the arithmetic, and
// so every result, is the same in all of them; they differ in the
// instructions around it (pairhmm.cu says how). HMMGO_PAIRHMM_KERNEL
// selects one by name, for benchmarking them against each other.
type gpuVariant struct {
	name   string
	vec    bool // 16-byte emission-table loads
	unroll int  // wavefront loop unrolled 1, 2, 4 or 8 times
	// rowsBins lists configurations (as "8x19,32x19") compiled as the
	// rows variant (vec false, unroll 1) instead, vec2Bins those compiled
	// as vec2 (vec, unroll 2), vec8Bins those compiled as vec unrolled 8
	// times: forConfig.
	rowsBins, vec2Bins, vec8Bins string
	// extraBins lists configurations added to the length bins (gpuConfigs)
	// for this variant, e.g. "4x25": binTable.
	extraBins string
	// maxWarps caps the warps per block (0: four) of the configurations
	// in warpsBins: smaller blocks waste fewer of an SM's warp slots when
	// registers, not shared memory, limit the blocks per SM.
	maxWarps  int
	warpsBins string
	// fused compiles the fused arithmetic (PH_FUSED=1, ArithFused): unlike
	// the fields above it changes the results. GPUOptions.Arith sets it.
	fused bool
}

// label names the variant with its arithmetic, e.g. "vec2+fused".
func (v gpuVariant) label() string {
	if v.fused {
		return v.name + "+fused"
	}
	return v.name
}

// forConfig is the variant configuration c is compiled with.
func (v gpuVariant) forConfig(c gpuConfig) gpuVariant {
	in := func(list string) bool { return list != "" && strings.Contains(","+list+",", ","+c.String()+",") }
	switch {
	case in(v.rowsBins):
		v.vec, v.unroll = false, 1
	case in(v.vec2Bins):
		v.vec, v.unroll = true, 2
	case in(v.vec8Bins):
		v.vec, v.unroll = true, 8
	}
	if !in(v.warpsBins) {
		v.maxWarps = 0
	}
	return v
}

// binTable is the variant's length bins: gpuConfigs with extraBins, each
// placed before the first configuration that holds as long a read (so a
// read goes to the extra one when both hold it).
func (v gpuVariant) binTable() []gpuConfig {
	if v.extraBins == "" {
		return gpuConfigs
	}
	table := append([]gpuConfig(nil), gpuConfigs...)
	for _, s := range strings.Split(v.extraBins, ",") {
		var c gpuConfig
		if _, err := fmt.Sscanf(s, "%dx%d", &c.group, &c.rows); err != nil {
			panic("pairhmm: bad extraBins " + v.extraBins)
		}
		i := 0
		for i < len(table) && table[i].maxLen() < c.maxLen() {
			i++
		}
		table = append(table[:i], append([]gpuConfig{c}, table[i:]...)...)
	}
	return table
}

// gpuVariants: "rows" is the first design (one shared-memory load per
// cell), kept to measure against. "tuned" is vec2 with the 152-base bin
// (8x19: 150/151-base reads) compiled as rows, which was faster there on
// an H100 in two runs (docs/BENCHMARKS.md: 150x300 batches, rows 1.705 /
// 1.680 TCUPS against vec2's 1.400 / 1.394, and 2.180 against 1.722 in the
// fused arithmetic). Measured later (tuned4): 8x19 pads its float table
// to 20 rows, so its vec blocks hold 3 warps, not 4, and in blocks of 2
// (or 1) warps vec is the faster by a third.
var gpuVariants = []gpuVariant{
	{name: "rows", unroll: 1},
	{name: "vec", vec: true, unroll: 1},
	{name: "vec2", vec: true, unroll: 2},
	{name: "tuned", vec: true, unroll: 2, rowsBins: "8x19"},
	// tuned2: reads of up to 100 bases on a 4x25 bin (no padding rows, 3
	// idle wavefront steps a pair instead of 8x13's 7) compiled as vec2,
	// 8x19 as rows, every other bin as vec with the wavefront loop
	// unrolled four times. Fused, on an H100 (2026-11-27T20:45Z,
	// docs/BENCHMARKS.md): 100x300 2.437 TCUPS (8x13 vec2: 2.282),
	// 250x500 2.577 (16x16 vec2: 2.412), 150x300 as tuned. Measured there
	// too and not kept: blocks of 1 or 2 warps on the bins other than
	// 8x19 (no change), 4x25 as rows (1.880), 8x19 as rows unrolled twice
	// (2.191 against 2.180), 32x8 for 250-base reads (2.201).
	{name: "tuned2", vec: true, unroll: 4, rowsBins: "8x19", vec2Bins: "4x25", extraBins: "4x25"},
	// tuned4, the fused arithmetic's default, and tuned4g, GKL's: every bin
	// (4x25 added) as vec unrolled four times, except 4x25, 8x19 and 16x16
	// (tuned4) or 16x16 (tuned4g) unrolled eight times; the bins whose float
	// table allows only 3 warps a block (4x20, 8x19, 32x19, 32x20) in blocks
	// of 2 (at ~190-250 registers a thread, the likely cause is that an SM
	// fits fewer warps in blocks of 3). On an H100 (2026-11-27T21:54Z and
	// T22:03Z, docs/BENCHMARKS.md), TCUPS fused / GKL's, of each bin's
	// kernel: 4x25 (100x300) unrolled 8x 2.594 / 2.051, 4x 2.510 / 2.146,
	// vec2 (tuned2) 2.435 / 1.995; 8x19 (150x300) unrolled 8x in 2-warp
	// blocks 2.560 / 1.977, 4x in blocks of 2 2.425 / 1.981, of 1 2.425 /
	// 1.980, of 3 1.798 / 1.554, as rows (tuned, tuned2) 2.178 / 1.680;
	// 16x16 (250x500) unrolled 8x 2.671 / 2.112, 4x 2.577 / 2.086; 4x20
	// (80x300) in blocks of 2 / 3: 2.454 / 1.844 fused, 2.038 / 1.526 GKL's;
	// 32x19 (600x1200) 2.565 / 1.913 and 2.072 / 1.642; 32x20 (630x1200)
	// 2.549 / 1.932 and 2.074 / 1.574. 32x24 (3 warps a block too) was not
	// measured and keeps them; unrolling eight times was measured on 4x25,
	// 8x19 and 16x16 only. Measured and not kept: 8x19 as vec2 in 1-warp
	// blocks (2.334 / 1.869); for 150-base reads 4x38 (255 registers and
	// 288-536 bytes of spills a thread: 0.65-0.77 fused), 8x20 (3-warp
	// blocks: 1.728), 16x10 as vec4u or rows (2.192, 2.024); for 250-base
	// reads 8x32 (spills: 1.849 vec2, 1.913 vec4u).
	{name: "tuned4", vec: true, unroll: 4, vec8Bins: "4x25,8x19,16x16", extraBins: "4x25", maxWarps: 2, warpsBins: "4x20,8x19,32x19,32x20"},
	{name: "tuned4g", vec: true, unroll: 4, vec8Bins: "16x16", extraBins: "4x25", maxWarps: 2, warpsBins: "4x20,8x19,32x19,32x20"},
}

// defaultVariant is the variant used in GKL's arithmetic unless
// HMMGO_PAIRHMM_KERNEL or GPUOptions say otherwise, defaultFusedVariant
// the fused arithmetic's: each bin's kernel in them was the fastest
// measured in its arithmetic (tuned4's comment). Variants never change
// a result, so neither does the default.
const (
	defaultVariant      = "tuned4g"
	defaultFusedVariant = "tuned4"
)

// lookupVariant returns the variant called name; "" means the default of
// the arithmetic.
func lookupVariant(name string, arith Arith) (gpuVariant, error) {
	if name == "" {
		name = defaultVariant
		if arith == ArithFused {
			name = defaultFusedVariant
		}
	}
	var names []string
	for _, v := range gpuVariants {
		if v.name == name {
			return v, nil
		}
		names = append(names, v.name)
	}
	return gpuVariant{}, fmt.Errorf("pairhmm: unknown GPU kernel variant %q (want one of %s)", name, strings.Join(names, ", "))
}

// tableRows is the number of rows of a warp's emission table per base
// code: the configuration's rows, padded for 16-byte loads (values of
// elemBytes bytes) in the vec variants.
func (c gpuConfig) tableRows(elemBytes int, v gpuVariant) int {
	if !v.forConfig(c).vec {
		return c.rows
	}
	w := 16 / elemBytes
	return (c.rows + w - 1) / w * w
}

// warps is the number of warps per block of the kernel in a precision of
// elemBytes bytes: as many as fit the emission tables (5 x tableRows x 32
// values per warp) in 48 KiB of static shared memory, at most four.
func (c gpuConfig) warps(elemBytes int, v gpuVariant) int {
	most := 4
	if w := v.forConfig(c).maxWarps; w > 0 {
		most = w
	}
	return max(1, min(most, staticSharedLimit/(5*c.tableRows(elemBytes, v)*32*elemBytes)))
}

// gpuConfigs are the length bins, smallest first: a read goes to the first
// configuration that holds it. Few threads per pair with many rows each
// keep the wavefront's idle steps (group-1 at each end of a pair) few; the
// bins at 104 and 152 bases fit the common Illumina read lengths (100,
// 101, 150, 151) closely. Rows per thread stay at or below 20 where the
// float kernel's registers (8 values per row) allow it without spills.
// Reads of 513 to 1024 bases (long reads, long insertions) need more rows
// per thread: on an H100 (BenchmarkGPULong, 2026-11-27) the float kernels
// run at 1.49 (32x19), 1.36 (32x20), 1.19 (32x24), 1.23 (32x28) and 0.88
// TCUPS (32x32) on 600x1200 pairs, against 1.93 for 32x16 on 500x2000:
// slower than the short bins, still far faster than the CPU, which
// takes longer reads.
var gpuConfigs = []gpuConfig{
	{4, 4}, {4, 8}, {4, 12}, {4, 16}, {4, 20},
	{8, 13}, {8, 16}, {8, 19},
	{16, 12}, {16, 16},
	{32, 10}, {32, 12}, {32, 14}, {32, 16},
	{32, 19}, {32, 20}, {32, 24}, {32, 28}, {32, 32},
}

// kernelOptions are the NVRTC options of one configuration. Fast math
// would change the numbers (the kernels' explicitly rounded intrinsics
// already forbid contraction; the options say so again), and the float
// pass flushes subnormals as the CPU's does (forwardFloat), so every
// setting is spelled out rather than left to defaults.
func kernelOptions(c gpuConfig, v gpuVariant) []string {
	v = v.forConfig(c)
	vec := 0
	if v.vec {
		vec = 1
	}
	var fused []string
	if v.fused { // the default's options stay as they were (NVRTC cache keys)
		fused = []string{"-DPH_FUSED=1"}
	}
	return append(fused,
		"-DPH_GROUP="+strconv.Itoa(c.group),
		"-DPH_ROWS="+strconv.Itoa(c.rows),
		"-DPH_WARPS_F="+strconv.Itoa(c.warps(4, v)),
		"-DPH_WARPS_D="+strconv.Itoa(c.warps(8, v)),
		"-DPH_VEC="+strconv.Itoa(vec),
		"-DPH_UNROLL="+strconv.Itoa(v.unroll),
		"--fmad=false", "--ftz=true", "--prec-div=true", "--prec-sqrt=true",
	)
}

// unsafeKernelOption reports an option that would break exactness.
func unsafeKernelOption(opts []string) string {
	for _, o := range opts {
		switch o {
		case "--use_fast_math", "-use_fast_math", "--ftz=false", "-ftz=false", "--fmad=true", "-fmad=true",
			"--prec-div=false", "-prec-div=false", "--prec-sqrt=false", "-prec-sqrt=false":
			return o
		}
	}
	return ""
}

// gpuBin returns the index of the configuration for a read length, or -1
// when the read is longer than every configuration takes.
func gpuBin(configs []gpuConfig, readLen int) int {
	for i, c := range configs {
		if readLen <= c.maxLen() {
			return i
		}
	}
	return -1
}
