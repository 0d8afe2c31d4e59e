package fwdback

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/cudacpu"
)

// envfwd.cu's and envbwd.cu's kernels (Forward and Backward a warp an
// envelope) on the CPU shim (testdata/cudacpu/envfb.cc), Backward from
// the kernel's Forward rows as on the GPU: every cell of Forward's rows
// 0..L and Backward's rows 1..L, every special row and the own-scale flag
// bit for bit with Forward(.., true) and Backward(.., true).

func TestEnvelopeForwardBackwardOnCPU(t *testing.T) {
	t.Parallel() // mostly a single-threaded child process
	cc := shimCompiler(t)
	exe := buildEnvShim(t, cc, "envfb.cc")
	rng := rand.New(rand.NewSource(47))
	amino := alphabet.New(alphabet.Amino)
	own, rescaled := 0, 0
	for _, h := range envModels(rng, amino, 1, 2, 3, 7, 33, 64, 101, -100, 230) {
		M := h.M
		for _, unihit := range []bool{true, false} {
			om := envProfile(h, unihit)
			dsqs, lengths := envelopes(rng, h, 29)
			plan, err := newFwdPlan(om, lengths)
			if err != nil {
				t.Fatal(err)
			}
			Q := plan.Q
			n := len(dsqs)
			desc := make([]byte, envDescBytes*n)
			var res []byte
			roff := make([]int64, n)
			mats, rows := 0, 0
			fwds, bcks := make([]*Matrix, n), make([]*Matrix, n)
			for i, d := range dsqs {
				p := *om
				p.ReconfigRestLength(lengths[i])
				fwd, bck := NewMatrix(), NewMatrix()
				forwardBackward(d, &p, fwd, bck, true)
				fwds[i], bcks[i] = fwd, bck
				putEnvDesc(desc[envDescBytes*i:], int64(mats), int64(rows), 0, len(d), 0)
				roff[i] = int64(len(res))
				res = append(res, d...)
				mats += envFloats(len(d), Q)
				rows += (len(d) + 1) * NXCells
			}
			var in cudacpu.Input
			check := int32(0)
			if plan.Check {
				check = 1
			}
			in.Put([]int32{int32(n), int32(Q), int32(plan.QS), int32(plan.Kp), check})
			in.Put([]float32{plan.EMove, plan.ELoop})
			in.Put([]int64{int64(rows), int64(mats)})
			var ro bytes.Buffer
			binary.Write(&ro, binary.LittleEndian, roff)
			in.Arrays(desc, bytesOf(plan.Trans), bytesOf(plan.Odds), res, ro.Bytes(), bytesOf(plan.LoopMove))
			raw := cudacpu.Run(t, exe, "env_fwd_kernel and env_bwd_kernel", &in)
			if len(raw) != 4*(2*rows+2*mats+n) {
				t.Fatalf("the kernels' output: %d bytes, want %d", len(raw), 4*(2*rows+2*mats+n))
			}
			next := func(k int) []float32 { f := floatsOf(raw[:4*k]); raw = raw[4*k:]; return f }
			fx, fm, bx, bm := next(rows), next(mats), next(rows), next(mats)
			mo, xo := 0, 0
			for i, d := range dsqs {
				L := len(d)
				fwd, bck := fwds[i], bcks[i]
				what := fmt.Sprintf("M=%d unihit=%v envelope %d (L=%d of %d)", M, unihit, i, L, lengths[i])
				sameCells(t, what+" forward", fm[mo:mo+envFloats(L, Q)], flat(fwd.dp), Q, 0, L)
				sameCells(t, what+" backward", bm[mo:mo+envFloats(L, Q)], flat(bck.dp), Q, 1, L)
				for r := 0; r <= L; r++ {
					sameFloats(t, fmt.Sprintf("%s forward X row %d", what, r), fx[xo+r*NXCells:xo+(r+1)*NXCells], fwd.X[r][:])
					sameFloats(t, fmt.Sprintf("%s backward X row %d", what, r), bx[xo+r*NXCells:xo+(r+1)*NXCells], bck.X[r][:])
				}
				gotOwn := int32(binary.LittleEndian.Uint32(raw[4*i:]))
				if (gotOwn != 0) != bck.HasOwnScales {
					t.Errorf("%s: own scales %d, CPU %v", what, gotOwn, bck.HasOwnScales)
				}
				if bck.HasOwnScales {
					own++
				}
				for _, x := range fwd.X[1:] {
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
