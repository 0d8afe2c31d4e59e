package gpu

import (
	_ "embed"
	"fmt"
	"strconv"

	"github.com/hmmgo/hmmgo/papara/core"
)

// cudaSource is the CUDA C++ source of the scoring kernel (papara.cu),
// compiled at run time by NVRTC once per configuration.
//
//go:embed papara.cu
var cudaSource string

// mode is how a read is scored; see papara.cu.
type mode int

const (
	modeTable   mode = iota // 16-bit pairs, increments by byte permute
	modeProfile             // 16-bit pairs, increments loaded from a profile
	modeWide                // 32-bit, PaPaRa's rule for any scores
	modePaper               // Equation 1 of the paper, 32-bit
)

var modeNames = [...]string{"table16", "profile16", "wide32", "paper32"}

func (m mode) String() string { return modeNames[m] }

// pairs reports whether the mode packs two branches into a thread's word.
func (m mode) pairs() bool { return m == modeTable || m == modeProfile }

// config is one compiled specialisation of the kernel: a mode, PP_G
// threads per (read, lane) and PP_R rows per thread; it takes reads of up
// to g*r residues.
//
// The 16-bit modes also take the gap scores as compile-time constants
// (immediate operands of the DPX instructions), open and ext; they are 0
// in the 32-bit modes.
type config struct {
	mode      mode
	g, r      int
	open, ext int
}

func (c config) String() string {
	s := fmt.Sprintf("%s-%dx%d", c.mode, c.g, c.r)
	if c.mode.pairs() && (c.open != core.DefaultParams.GapOpen || c.ext != core.DefaultParams.GapExtend) {
		s += fmt.Sprintf("-gaps%d:%d", c.open, c.ext)
	}
	return s
}

func (c config) maxLen() int { return c.g * c.r }

// options are the NVRTC options of the configuration.
func (c config) options() []string {
	o := []string{"-DPP_MODE=" + strconv.Itoa(int(c.mode)), "-DPP_G=" + strconv.Itoa(c.g), "-DPP_R=" + strconv.Itoa(c.r)}
	if c.mode.pairs() {
		o = append(o, "-DPP_OPEN="+strconv.Itoa(c.open), "-DPP_EXT="+strconv.Itoa(c.ext))
	}
	return o
}

// Launch geometry, as papara.cu derives it from the same constants.
const (
	blockThreads = 128
	unitBranches = 32 // core.BlockWidth
)

// lanes is the number of lanes of a unit: branch pairs or branches.
func (c config) lanes() int {
	if c.mode.pairs() {
		return unitBranches / 2
	}
	return unitBranches
}

// grid returns the CUDA blocks along x for a unit of n reads: reads per
// block times the blocks a read's lanes need.
func (c config) gridX(n int) int {
	groups := blockThreads / c.g
	pb := min(groups, c.lanes()) // groups per read in a block
	rb := groups / pb            // reads per block
	split := c.lanes() / pb      // blocks per read
	return (n + rb - 1) / rb * split
}

// lengthBins are the (threads per read, rows per thread) shapes, smallest
// first: a read goes to the first that holds it. Fewer threads per read
// mean fewer idle wavefront steps (g-1 per thread and column sweep) and
// fewer shuffles; at most 32 rows keep every row in registers (about 130
// registers at 32 rows, no spills). The bins at 80-128 fit the common
// Illumina lengths (the rpsS reads are 32-119 bp) within about 12%.
var lengthBins = [][2]int{
	{1, 16}, {1, 24}, {1, 32},
	{2, 24}, {2, 32},
	{4, 20}, {4, 24}, {4, 28}, {4, 32},
	{8, 20}, {8, 24}, {8, 28}, {8, 32},
	{16, 24}, {16, 32},
	{32, 24}, {32, 32},
}

// binFor returns the configuration for a read of n residues in mode m
// with scores p, and false when n is longer than every bin (1,024
// residues): such reads are scored by the CPU kernel inside the GPU scorer.
func binFor(m mode, n int, p core.Params) (config, bool) {
	for _, b := range lengthBins {
		if n <= b[0]*b[1] {
			c := config{mode: m, g: b[0], r: b[1]}
			if m.pairs() {
				c.open, c.ext = p.GapOpen, p.GapExtend
			}
			return c, true
		}
	}
	return config{}, false
}
