package fwdback

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// envdecode.cu's and envtrace.cu's kernels run on the CPU through the
// shim (testdata/cudacpu/envdriver.cc), from full Forward and Backward
// matrices the CPU computed: every cell, special row, score, null2 sum
// and trace step bit for bit with DecodeAlign and OATrace. The kernels'
// inputs from fwd_kernel and bwd_kernel are checked by
// TestFullMatricesOnCPU, the chain on a GPU by TestGPUEnvelopesMatchCPU.

// envelopes cuts n stretches out of targets of h, and gives each the
// length of the target it comes from. Homologous targets rescale rows in
// both directions and make Backward switch to its own scale factors.
func envelopes(rng *rand.Rand, h *hmm.HMM, n int) (dsqs [][]byte, lengths []int) {
	for len(dsqs) < n {
		var target []byte
		if rng.Intn(2) == 0 {
			target = homolog(rng, h, 1+rng.Intn(6))
		} else {
			target = testmodels.RandomDsq(rng, h.Alph, 1+rng.Intn(300))
		}
		if len(target) == 0 {
			continue
		}
		var a, b int
		switch rng.Intn(4) {
		case 0: // one residue
			a = rng.Intn(len(target))
			b = a + 1
		case 1: // the whole target
			a, b = 0, len(target)
		default:
			a = rng.Intn(len(target))
			b = a + 1 + rng.Intn(len(target)-a)
		}
		dsqs = append(dsqs, target[a:b])
		lengths = append(lengths, len(target))
	}
	return dsqs, lengths
}

// sameCells fails the test at the first cell of rows first..L where got
// (a kernel's matrix) and want (the CPU's) differ in a bit.
func sameCells(t *testing.T, what string, got, want []float32, Q, first, L int) {
	t.Helper()
	for j := first * 12 * Q; j < (L+1)*12*Q; j++ {
		if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
			row, q, s, z := j/(12*Q), j/12%Q, j/4%3, j%4
			t.Errorf("%s: row %d node %d state %d: %v (%08x), CPU %v (%08x)", what, row, z*Q+q+1, s,
				got[j], math.Float32bits(got[j]), want[j], math.Float32bits(want[j]))
			return
		}
	}
}

// buildEnvShim compiles an envelope kernels' driver (testdata/cudacpu/
// driver.cc) with the CPU shim.
func buildEnvShim(t *testing.T, cc, driver string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(driver, ".cc"))
	cmd := exec.Command(cc, "-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing", "-msse2",
		"-DBLOCK=128", "-DPROF_SHARED=0", "-DSTATE_SHARED=0", "-DFWD_PIPE=0", "-I", ".", "-I", filepath.Join("testdata", "cudacpu"),
		"-I", filepath.Join(testutil.RepoRoot(t), "internal", "cudacpu"), "-o", exe, filepath.Join("testdata", "cudacpu", driver))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compiling %s with the CPU shim: %v\n%s", driver, err, out)
	}
	return exe
}

// envCase is one envelope of a shim launch: its length model's profile
// and the CPU's matrices (Forward and Backward, then what DecodeAlign
// leaves in them).
type envCase struct {
	dsq      []byte
	p        oprofile.Profile
	fwd, bck *Matrix
	err      error // Forward's or Backward's
	null2    bool
}

// envLaunch is the kernels' input for a list of envelopes, packed as
// GPU.RescoreEnvelopes packs it.
type envLaunch struct {
	desc           []byte
	moff, xoff     []int64
	toff           []int
	fm, bm, fx, bx []float32
	lm             []float32
	steps          int
}

func packEnvelopes(cs []*envCase, Q, M int) *envLaunch {
	l := &envLaunch{desc: make([]byte, envDescBytes*len(cs))}
	mats, rows := 0, 0
	for i, c := range cs {
		L := len(c.dsq)
		flags := uint32(0)
		if c.bck.HasOwnScales {
			flags |= envOwnScales
		}
		if c.null2 {
			flags |= envNull2
		}
		if c.err != nil {
			flags |= envSkip
		}
		l.moff, l.xoff, l.toff = append(l.moff, int64(mats)), append(l.xoff, int64(rows)), append(l.toff, l.steps)
		putEnvDesc(l.desc[envDescBytes*i:], int64(mats), int64(rows), int64(l.steps), L, flags)
		l.fm = append(l.fm, flat(c.fwd.dp)[:envFloats(L, Q)]...)
		l.bm = append(l.bm, flat(c.bck.dp)[:envFloats(L, Q)]...)
		for r := 0; r <= L; r++ {
			l.fx = append(l.fx, c.fwd.X[r][:]...)
			l.bx = append(l.bx, c.bck.X[r][:]...)
		}
		xf := &c.p.FB.XF
		l.lm = append(l.lm, xf[profile.XN][profile.Loop], xf[profile.XN][profile.Move])
		mats += envFloats(L, Q)
		rows += (L + 1) * NXCells
		l.steps += traceCap(L, M)
	}
	return l
}

// envShimOut is what the kernels leave.
type envShimOut struct {
	fm, bm, fx, bx []float32
	dec            []byte
	count          []int32
	steps          []byte
}

func runEnvShim(t *testing.T, exe string, om *oprofile.Profile, l *envLaunch, n int) *envShimOut {
	t.Helper()
	var in cudacpu.Input
	Q := oprofile.NumVecF(om.M)
	in.Put([]int32{int32(n), int32(Q), int32(om.M), int32(l.steps)})
	in.Put([]float32{om.FB.XF[profile.XE][profile.Loop], om.FB.XF[profile.XE][profile.Move]})
	in.Arrays(l.desc, bytesOf(flat(om.FB.TF)), bytesOf(l.lm), bytesOf(l.fm), bytesOf(l.bm), bytesOf(l.fx), bytesOf(l.bx))
	raw := cudacpu.Run(t, exe, "envelope kernels", &in)
	sizes := []int{4 * len(l.fm), 4 * len(l.bm), 4 * len(l.fx), 4 * len(l.bx), envDecodeBytes * n, 4 * n, traceStepBytes * l.steps}
	total := 0
	for _, s := range sizes {
		total += s
	}
	if len(raw) != total {
		t.Fatalf("envelope kernels' output: %d bytes, want %d", len(raw), total)
	}
	next := func(s int) []byte { b := raw[:s]; raw = raw[s:]; return b }
	o := &envShimOut{fm: floatsOf(next(sizes[0])), bm: floatsOf(next(sizes[1])), fx: floatsOf(next(sizes[2])), bx: floatsOf(next(sizes[3])),
		dec: next(sizes[4])}
	for _, c := range floatsOf(next(sizes[5])) {
		o.count = append(o.count, int32(math.Float32bits(c)))
	}
	o.steps = next(sizes[6])
	return o
}

// sameFloats fails the test at the first of got and want that differ in a bit.
func sameFloats(t *testing.T, what string, got, want []float32) bool {
	t.Helper()
	for j := range want {
		if !sameBits(got[j], want[j]) {
			t.Errorf("%s [%d]: %v (%08x), CPU %v (%08x)", what, j, got[j], math.Float32bits(got[j]), want[j], math.Float32bits(want[j]))
			return false
		}
	}
	return true
}

func TestEnvelopeKernelsOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	exe := buildEnvShim(t, cc, "envdriver.cc")
	rng := rand.New(rand.NewSource(37))
	amino := alphabet.New(alphabet.Amino)
	seen := map[hits.State]int{}
	own, null2s, skipped, refused := 0, 0, 0, 0
	for _, h := range envModels(rng, amino, 1, 2, 3, 7, 64, 101, -100, 230) {
		M := h.M
		for _, unihit := range []bool{true, false} {
			om := envProfile(h, unihit)
			Q := oprofile.NumVecF(M)
			dsqs, lengths := envelopes(rng, h, 37)
			cs := make([]*envCase, len(dsqs))
			for i, d := range dsqs {
				c := &envCase{dsq: d, p: *om, fwd: NewMatrix(), bck: NewMatrix(), null2: rng.Intn(2) == 0}
				c.p.ReconfigRestLength(lengths[i])
				_, _, c.err = forwardBackward(d, &c.p, c.fwd, c.bck, true)
				cs[i] = c
			}
			l := packEnvelopes(cs, Q, M)
			got := runEnvShim(t, exe, om, l, len(cs))
			for i, c := range cs {
				L := len(c.dsq)
				what := fmt.Sprintf("M=%d unihit=%v envelope %d (L=%d of %d)", M, unihit, i, L, lengths[i])
				if c.err != nil {
					skipped++
					if got.count[i] != 0 {
						t.Errorf("%s: Forward/Backward failed, yet %d trace steps", what, got.count[i])
					}
					continue
				}
				var null2 []float32
				if c.null2 {
					null2 = make([]float32, om.Abc.Kp)
					null2s++
				}
				if c.bck.HasOwnScales {
					own++
				}
				oasc, err := DecodeAlign(&c.p, c.fwd, c.bck, null2)
				d := got.dec[envDecodeBytes*i:]
				if (binary.LittleEndian.Uint32(d[4:]) != 0) != (err != nil) {
					t.Errorf("%s: kernel's ErrRange %d, CPU's %v", what, binary.LittleEndian.Uint32(d[4:]), err)
					continue
				}
				if err != nil {
					continue
				}
				n, mo := envFloats(L, Q), int(l.moff[i])
				sameCells(t, what+" posteriors", got.bm[mo:mo+n], flat(c.bck.dp), Q, 1, L)
				if c.null2 {
					// pp's row 0 holds the sums null2 is made of, as the
					// host makes it.
					sameFloats(t, what+" null2", null2OfSums(&c.p, bytesOf(got.bm[mo:mo+12*Q]), d, L), null2)
				}
				sameCells(t, what+" optimal accuracy", got.fm[mo:mo+n], flat(c.fwd.dp), Q, 0, L)
				xo := int(l.xoff[i])
				for r := 0; r <= L; r++ {
					x := xo + r*NXCells
					sameFloats(t, fmt.Sprintf("%s ox.X row %d", what, r), got.fx[x:x+NXCells], c.fwd.X[r][:])
					// The kernel keeps each row's decoding scale in pp.X's
					// scale column, where the CPU leaves 0.
					sameFloats(t, fmt.Sprintf("%s pp.X row %d", what, r), got.bx[x:x+XScale], c.bck.X[r][:XScale])
				}
				xN, xC, xJ := c.bck.X[1][XN], c.bck.X[1][XC], c.bck.X[1][XJ]
				for r := 2; r <= L; r++ {
					xN += c.bck.X[r][XN]
					xC += c.bck.X[r][XC]
					xJ += c.bck.X[r][XJ]
				}
				sameFloats(t, what+" oasc, sums", floatsOf(append(append([]byte{}, d[0:4]...), d[8:20]...)), []float32{oasc, xN, xC, xJ})

				var want, tr hits.Trace
				OATrace(&c.p, c.bck, c.fwd, &want)
				cnt := int(got.count[i])
				if cnt == -1 && !unihit && len(want.St) > traceCap(L, M) {
					// A multihit path may outgrow the room a unihit one
					// needs; the kernel stops rather than overrun it.
					refused++
					continue
				}
				if cnt < 2 || cnt > traceCap(L, M) {
					t.Errorf("%s: %d trace steps", what, cnt)
					continue
				}
				buildTrace(&tr, got.steps[traceStepBytes*l.toff[i]:][:traceStepBytes*cnt], M, L)
				if d := traceDiff(&tr, &want); d != "" {
					t.Errorf("%s: %s", what, d)
				}
				for _, s := range want.St {
					seen[s]++
				}
			}
		}
	}
	for _, s := range []hits.State{hits.StM, hits.StD, hits.StI, hits.StN, hits.StC, hits.StJ} {
		if seen[s] == 0 {
			t.Errorf("no trace had state %d: a path of the trace kernel went untested", s)
		}
	}
	if own == 0 || null2s == 0 {
		t.Errorf("%d envelopes with Backward's own scales, %d with null2: a path went untested", own, null2s)
	}
	t.Logf("%d envelopes skipped (Forward or Backward failed), %d multihit traces longer than their room", skipped, refused)
}

// envModels are the envelope kernels' shim-test models: one of each size
// (negative: deletion-heavy), then one of 300 nodes with D->D chains
// broken mid-lane.
func envModels(rng *rand.Rand, abc *alphabet.Alphabet, sizes ...int) []*hmm.HMM {
	var hs []*hmm.HMM
	for _, M := range sizes {
		h, _ := modelOfSize(rng, abc, M)
		hs = append(hs, h)
	}
	return append(hs, brokenChains(testmodels.RandomHMM(rng, abc, 300)))
}

// envProfile is h's profile, unihit with its own length as domain
// definition configures it, or multihit (which reaches J).
func envProfile(h *hmm.HMM, unihit bool) *oprofile.Profile {
	om := optimizedProfile(h)
	if unihit {
		om.ReconfigUnihit(om.L)
	}
	return om
}

// brokenChains is deletionHeavy with every seventh node's D->D
// transition zero: D->D masks off in the middle of SSE lanes, which the
// optimal accuracy's D chains must stop at.
func brokenChains(h *hmm.HMM) *hmm.HMM {
	h = deletionHeavy(h)
	for k := 3; k < h.M; k += 7 {
		h.T[k][hmm.TDM], h.T[k][hmm.TDD] = 1, 0
	}
	h.Name = "broken deletion chains"
	return h
}

// traceDiff reports the first difference between two traces, posteriors
// bit for bit; "" when none.
func traceDiff(got, want *hits.Trace) string {
	if len(got.St) != len(want.St) || got.M != want.M || got.L != want.L {
		return fmt.Sprintf("trace of %d states (M %d, L %d), CPU %d (M %d, L %d)", len(got.St), got.M, got.L, len(want.St), want.M, want.L)
	}
	for z := range want.St {
		if got.St[z] != want.St[z] || got.K[z] != want.K[z] || got.I[z] != want.I[z] || !sameBits(got.PP[z], want.PP[z]) {
			return fmt.Sprintf("trace step %d: state %d k %d i %d pp %v, CPU state %d k %d i %d pp %v", z,
				got.St[z], got.K[z], got.I[z], got.PP[z], want.St[z], want.K[z], want.I[z], want.PP[z])
		}
	}
	return ""
}

// TestEnvBatches: RescoreEnvelopes' batches are runs of neighbours, each
// within the bound unless one job alone exceeds it, each as long as the
// bound lets it be, and together they cover every job once.
func TestEnvBatches(t *testing.T) {
	const Q = 2 // a residue row is 24 floats; a job of L residues (L+1)*24
	var jobs []EnvJob
	for _, L := range []int{9, 9, 4, 3, 3, 1, 0, 0} {
		jobs = append(jobs, EnvJob{Dsq: make([]byte, L)})
	}
	for _, c := range []struct {
		bound int
		want  []int
	}{
		{1 << 20, []int{0, 8}},                 // all in one
		{240, []int{0, 1, 2, 4, 8}},            // 240 | 240 | 120+96 | 96+48+24+24
		{216, []int{0, 1, 2, 4, 8}},            // 120+96 fills the bound exactly
		{100, []int{0, 1, 2, 3, 4, 5, 8}},      // the first three alone, over it; 96 | 96 | 48+24+24
		{24, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}}, // every job alone
	} {
		got := envBatches(jobs, Q, c.bound)
		if !slices.Equal(got, c.want) {
			t.Errorf("bound %d: batches start at %v, want %v", c.bound, got, c.want)
		}
	}
	if got := envBatches(nil, Q, 100); !slices.Equal(got, []int{0}) {
		t.Errorf("no jobs: %v, want [0]", got)
	}
}
