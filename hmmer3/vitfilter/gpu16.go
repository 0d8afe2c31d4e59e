package vitfilter

import (
	"encoding/binary"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The host side of the DPX kernels (vit16.cu, vit16p.cu), the Viterbi
// filter in native 16x2 DPX arithmetic on values biased by a per-target
// floor F; docs/gpu-viterbi16.md has the argument that they are exact.

// rescoreCode is a DPX kernel's result for a target it cannot score
// exactly (vit_kernel scores it).
const rescoreCode = 0x7ffffffe

// minHeadroom is the least room, in score units, that a model must leave
// between xB and the top of the kernel's window (32767 + min tBM - max
// emission) for the DPX kernels to be worth running: with less, most
// targets would be handed back. Exactness needs only >= 0; tests lower it.
var minHeadroom = 4096

// kernelChoice forces a kernel ("sat32": vit_kernel for every model);
// tests and benchmarks set it.
var kernelChoice = ""

// dpxKernel forces the DPX kernel (tests, benchmarks); "" lets
// dpxConfig.kernelFor choose.
var dpxKernel = ""

// dpxMinNodes is the fewest nodes a DPX kernel's thread owns: more nodes
// a thread amortise the row's tail (shuffles, the xE reduction, the
// special states) over more cells; on an H100 32 was as fast or faster
// than 8 and 16 for every M (docs/BENCHMARKS.md).
var dpxMinNodes = 32

// dpxConfig is the DPX kernels' configuration: the package's (the
// variables above) or a test's.
type dpxConfig struct {
	headroom, minNodes int
	kernel             string // "": kernelFor chooses
}

func currentDPX() dpxConfig { return dpxConfig{minHeadroom, dpxMinNodes, dpxKernel} }

// kernelFor is the DPX kernel for shapes of T threads a target:
// vit16p_kernel (the row's tail overlapped with the next row) where a
// target has at most two threads, vit16_kernel otherwise. Same numbers;
// on an H100 vit16p_kernel was up to 19% faster at T <= 2, even at T = 4
// and slower from T = 8 on, where its extra live registers spill
// (docs/BENCHMARKS.md).
func (c dpxConfig) kernelFor(T int) string {
	switch {
	case c.kernel != "":
		return c.kernel
	case T <= 2:
		return "vit16p_kernel"
	}
	return "vit16_kernel"
}

// dpxPlan is what a DPX kernel needs of a model beyond vit_kernel's
// parameters.
type dpxPlan struct {
	shape  gpuShape
	kernel string // vit16_kernel or vit16p_kernel
	tbmmin int    // the lowest B->M entry: F = base + nmove + tbmmin
	lim    int    // 32767 - the largest match score: xE - F above it may overflow the window next row
}

// planDPX is currentDPX().plan.
func planDPX(om *oprofile.VitProfile, Kp int) (*dpxPlan, bool) { return currentDPX().plan(om, Kp) }

// plan decides whether the DPX kernels can score om: every transition of
// a real node <= 0 (so adding one to a value in [0, 32767] cannot wrap)
// and headroom of at least c.headroom above xB.
func (c dpxConfig) plan(om *oprofile.VitProfile, Kp int) (*dpxPlan, bool) {
	if om.M < 1 {
		return nil, false
	}
	tbmmin := 0
	for k := 1; k <= om.M; k++ {
		for _, v := range om.T[k] {
			if v > 0 {
				return nil, false
			}
		}
		tbmmin = min(tbmmin, int(om.T[k][oprofile.VBM]))
	}
	emax := 0
	for _, row := range om.RWV {
		for k := 1; k <= om.M && k < len(row); k++ {
			emax = max(emax, int(row[k]))
		}
	}
	if 32767+tbmmin-emax < c.headroom {
		return nil, false
	}
	s := shapeMin(om.M, Kp, c.minNodes)
	return &dpxPlan{shape: s, kernel: c.kernelFor(s.T), tbmmin: tbmmin, lim: 32767 - emax}, true
}

// fits reports whether a target with N/J move score move has a floor
// F = base + move + tbmmin that HMMER's own floor does not undercut;
// the others are handed to vit_kernel.
func (p *dpxPlan) fits(om *oprofile.VitProfile, move int32) bool {
	return int(om.Base)+int(move)+p.tbmmin >= -32768
}

// splitNodes are the two nodes of thread t's word j in the DPX kernels'
// split layout: local nodes j and j + C/2.
func splitNodes(s gpuShape, t, j int) (int, int) {
	k := t*s.C + j + 1
	return k, k + s.C/2
}

// emisWords lays out the DPX kernels' match scores: vit_kernel's layout
// with the split node pairs.
func (p *dpxPlan) emisWords(s gpuShape, om *oprofile.VitProfile, Kp int) []byte {
	est := s.C/2 | 1
	emis := make([]byte, 4*s.emisWords())
	rw := func(x, k int) int16 {
		if x >= Kp || k > om.M {
			return -32768
		}
		return om.RWV[x][k]
	}
	for x := 0; x < s.KP; x++ {
		for t := 0; t < s.T; t++ {
			for j := 0; j < s.C/2; j++ {
				a, b := splitNodes(s, t, j)
				binary.LittleEndian.PutUint32(emis[4*((x*s.T+t)*est+j):], pair(rw(x, a), rw(x, b)))
			}
		}
	}
	return emis
}

// transWords lays out the DPX kernels' transitions: per word two uint4,
// each word the two nodes' 16-bit scores: {BM, MM, IM, DM} and {MI, II,
// MD, DD} for vit16_kernel, {MM, IM, DM, MI} and {II, DD, BM, MD} for
// vit16p_kernel.
func (p *dpxPlan) transWords(s gpuShape, om *oprofile.VitProfile) []byte {
	tst := s.C | 1
	trans := make([]byte, 4*s.transWords())
	order := [8]int{oprofile.VBM, oprofile.VMM, oprofile.VIM, oprofile.VDM, oprofile.VMI, oprofile.VII, oprofile.VMD, oprofile.VDD}
	if p.kernel == "vit16p_kernel" {
		order = [8]int{oprofile.VMM, oprofile.VIM, oprofile.VDM, oprofile.VMI, oprofile.VII, oprofile.VDD, oprofile.VBM, oprofile.VMD}
	}
	for t := 0; t < s.T; t++ {
		for j := 0; j < s.C/2; j++ {
			ka, kb := splitNodes(s, t, j)
			a, b := nodeTrans(om, ka), nodeTrans(om, kb)
			off := 16 * (t*tst + 2*j)
			for w, v := range order {
				binary.LittleEndian.PutUint32(trans[off+4*w:], pair(a[v], b[v]))
			}
		}
	}
	return trans
}
