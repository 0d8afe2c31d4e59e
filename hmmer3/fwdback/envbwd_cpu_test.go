package fwdback

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
	"github.com/hmmgo/hmmgo/internal/testmodels"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// envbwd.cu's kernel (Backward a warp an envelope) on the CPU shim
// (testdata/cudacpu/envbwd.cc), from Forward's special rows the CPU
// computed: every cell of rows 1..L, every special row and the own-scale
// flag bit for bit with Backward(.., true).

func TestEnvelopeBackwardOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	exe := filepath.Join(t.TempDir(), "envbwd")
	cmd := exec.Command(cc, "-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing", "-msse2",
		"-DBLOCK=128", "-DPROF_SHARED=0", "-DSTATE_SHARED=0", "-DFWD_PIPE=0", "-I", ".", "-I", filepath.Join("testdata", "cudacpu"),
		"-I", filepath.Join(testutil.RepoRoot(t), "internal", "cudacpu"), "-o", exe, filepath.Join("testdata", "cudacpu", "envbwd.cc"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compiling envbwd.cu with the CPU shim: %v\n%s", err, out)
	}
	rng := rand.New(rand.NewSource(47))
	amino := alphabet.New(alphabet.Amino)
	own, rescaled := 0, 0
	for _, M := range []int{1, 2, 3, 7, 33, 64, 101, -100, 230, 0} {
		var h *hmm.HMM
		if M == 0 {
			h, M = brokenChains(testmodels.RandomHMM(rng, amino, 300)), 300
		} else {
			h, M = modelOfSize(rng, amino, M)
		}
		for _, unihit := range []bool{true, false} {
			om := optimizedProfile(h)
			if unihit {
				om.ReconfigUnihit(om.L)
			}
			dsqs, lengths := envelopes(rng, h, 29)
			plan, err := newFwdPlan(om, lengths)
			if err != nil {
				t.Fatal(err)
			}
			Q := plan.Q
			n := len(dsqs)
			desc := make([]byte, envDescBytes*n)
			var fx []float32
			var res []byte
			roff := make([]int64, n)
			mats, rows := 0, 0
			bcks := make([]*Matrix, n)
			for i, d := range dsqs {
				p := *om
				p.ReconfigRestLength(lengths[i])
				fwd, bck := NewMatrix(), NewMatrix()
				forwardBackward(d, &p, fwd, bck, true)
				bcks[i] = bck
				putEnvDesc(desc[envDescBytes*i:], int64(mats), int64(rows), 0, len(d), 0)
				for r := range fwd.X {
					fx = append(fx, fwd.X[r][:]...)
				}
				roff[i] = int64(len(res))
				res = append(res, d...)
				mats += envFloats(len(d), Q)
				rows += (len(d) + 1) * NXCells
			}
			var in cudacpu.Input
			in.Put([]int32{int32(n), int32(Q), int32(plan.QS), int32(plan.Kp)})
			in.Put([]float32{plan.EMove, plan.ELoop})
			in.Put([]int64{int64(rows), int64(mats)})
			var ro bytes.Buffer
			binary.Write(&ro, binary.LittleEndian, roff)
			in.Arrays(desc, bytesOf(plan.Trans), bytesOf(plan.Odds), res, ro.Bytes(), bytesOf(plan.LoopMove), bytesOf(fx))
			raw := cudacpu.Run(t, exe, "env_bwd_kernel", &in)
			if len(raw) != 4*(rows+mats+n) {
				t.Fatalf("env_bwd_kernel's output: %d bytes, want %d", len(raw), 4*(rows+mats+n))
			}
			bx, bm := floatsOf(raw[:4*rows]), floatsOf(raw[4*rows:4*(rows+mats)])
			mo, xo := 0, 0
			for i, d := range dsqs {
				L := len(d)
				bck := bcks[i]
				what := fmt.Sprintf("M=%d unihit=%v envelope %d (L=%d of %d)", M, unihit, i, L, lengths[i])
				sameCells(t, what+" backward", bm[mo:mo+envFloats(L, Q)], flat(bck.dp), Q, 1, L)
				for r := 0; r <= L; r++ {
					sameFloats(t, fmt.Sprintf("%s backward X row %d", what, r), bx[xo+r*NXCells:xo+(r+1)*NXCells], bck.X[r][:])
				}
				gotOwn := int32(binary.LittleEndian.Uint32(raw[4*(rows+mats+i):]))
				if (gotOwn != 0) != bck.HasOwnScales {
					t.Errorf("%s: own scales %d, CPU %v", what, gotOwn, bck.HasOwnScales)
				}
				if bck.HasOwnScales {
					own++
				}
				for _, x := range bck.X[1:] {
					if x[XScale] > 1 {
						rescaled++
						break
					}
				}
				mo += envFloats(L, Q)
				xo += (L + 1) * NXCells
			}
		}
	}
	if own == 0 || rescaled == 0 {
		t.Errorf("%d envelopes with own scales, %d with rescaled rows: a path went untested", own, rescaled)
	}
}
