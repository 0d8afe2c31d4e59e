package fwdback

import (
	"math"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Domain definition rescores each envelope with Forward and Backward on
// full matrices. One target's row is bound by the latency of its D->D
// chain, not by issue width, so ForwardGroup and BackwardGroup run the
// rows of two (AVX2) or four (AVX-512) envelopes together on the
// envelope kernels (envgroup.go in avogen/fwd): one target per 128-bit
// part, each cell read from and written to that target's own Matrix.
// Envelopes of one model differ only in residues and length model
// (special transitions), which stay per target, in Go. Row i of every
// target that has one runs together; once one target is left it goes on
// alone on the one-target kernels.

// EnvWork is the workspace of ForwardGroup and BackwardGroup. The kernel
// arguments live here, not on the stack: the quad kernels are called
// through variables (tests replace them), which would move them to the
// heap at every row.
type EnvWork struct {
	zero   []vec          // two zero rows: the rows of a part with no target
	dc, rf [4]*[4]float32 // each part's row and match odds
	in     qvec           // each part's xB (Forward) or xE (Backward), splatted
	out    qvec           // each part's E (Forward) or B (Backward) sum
	carry  qvec           // Backward's phase 3 carry (bckEnvIn3 to bckEnvOut45)
}

// NewEnvWork returns an empty workspace.
func NewEnvWork() *EnvWork { return &EnvWork{} }

// EnvGroup is how many envelopes ForwardGroup and BackwardGroup run at
// once: 4 with the quad kernels (AVX-512), 2 with the paired ones
// (AVX2), else 1.
func EnvGroup() int { return Group() }

// The quad envelope kernels; tests put stand-ins built from the SSE rows
// here to check the Go side where the CPU has no AVX-512.
var (
	envQuadFwd   = fwdEnvQuadAVX512
	envQuadIn    = bckEnvInQuadAVX512
	envQuadOut   = bckEnvOutQuadAVX512
	envQuadIn3   = bckEnvIn3QuadAVX512
	envQuadOut45 = bckEnvOut45QuadAVX512
	parQuadIn    = bckParInQuadAVX512
)

// envParts is how many parts the kernels for n targets have (0: run
// them one by one).
func envParts(n int) int {
	switch {
	case n < 2:
		return 0
	case useQuad() && n > 2:
		return 4
	case usePair() && n == 2:
		return 2
	case useQuad():
		return 4
	}
	return 0
}

func (w *EnvWork) zeroRows(Q int) []vec {
	if n := 6 * Q; cap(w.zero) < n {
		w.zero = make([]vec, n)
	} else {
		w.zero = w.zero[:n] // the kernels keep it zero
	}
	return w.zero
}

func (w *EnvWork) splatIn(p int, x float32) {
	w.in[4*p], w.in[4*p+1], w.in[4*p+2], w.in[4*p+3] = x, x, x, x
}

func (w *EnvWork) outSum(p int) float32 {
	o := w.out[4*p : 4*p+4]
	return (o[0] + o[1]) + (o[2] + o[3])
}

// sameModel panics unless every profile is the same model.
func sameModel(oms []*oprofile.Profile) {
	for _, om := range oms[1:] {
		if om.M != oms[0].M || &om.FB.TF[0] != &oms[0].FB.TF[0] {
			panic("fwdback: envelopes of different models in one group")
		}
	}
}

// ForwardGroup fills oxs[j] with the full Forward matrix of ds[j] and
// sets sc[j] and errs[j]: what Forward(ds[j], oms[j], oxs[j], true) does,
// bit for bit, for up to EnvGroup() targets. The profiles must be one
// model (the same FB.TF and FB.RF) in each target's configuration: only
// their special transitions FB.XF may differ.
func ForwardGroup(ds [][]byte, oms []*oprofile.Profile, oxs []*Matrix, sc []float32, errs []error, w *EnvWork) {
	n := len(ds)
	parts := envParts(n)
	for _, d := range ds {
		if len(d) == 0 {
			parts = 0
		}
	}
	if n > 4 || (parts != 0 && n > parts) {
		panic("fwdback: ForwardGroup of too many targets")
	}
	if parts == 0 {
		for j := range ds {
			sc[j], errs[j] = Forward(ds[j], oms[j], oxs[j], true)
		}
		return
	}
	sameModel(oms)
	fb := &oms[0].FB
	Q, all4 := fb.Q, oms[0].M < 100
	var sp [4]fwdSpecials
	for j, ox := range oxs {
		ox.grow(oms[j].M, len(ds[j]), true)
		ox.HasOwnScales = true
		clear(ox.row(0))
		sp[j] = newSpecials(&oms[j].FB.XF)
		ox.X[0] = [NXCells]float32{XN: 1, XB: sp[j].xB, XScale: 1.0}
		ox.TotScale = 0
	}
	idle := asVec4(w.zeroRows(Q)[3*Q:])
	i, live, last := 1, 0, 0
	for ; ; i++ {
		live = 0
		for j, d := range ds {
			if i <= len(d) {
				live, last = live+1, j
			}
		}
		if live <= 1 {
			break
		}
		for p := 0; p < parts; p++ {
			if p < n && i <= len(ds[p]) {
				w.dc[p], w.rf[p] = asVec4(oxs[p].row(i)), asVec4(fb.RF[ds[p][i-1]])
				w.splatIn(p, sp[p].xB)
			} else {
				w.dc[p], w.rf[p] = idle, asVec4(fb.RF[0])
				w.splatIn(p, 0)
			}
		}
		if parts == 2 {
			fwdEnvPairAVX2((*[2]*[4]float32)(w.dc[:2]), asVec4(fb.TF), (*[2]*[4]float32)(w.rf[:2]), Q, (*[8]float32)(w.in[:8]), all4, (*[8]float32)(w.out[:8]))
		} else {
			envQuadFwd(&w.dc, asVec4(fb.TF), &w.rf, Q, &w.in, all4, &w.out)
		}
		for j, d := range ds {
			if i <= len(d) {
				sp[j].fullRow(oxs[j], i, w.outSum(j), &oms[j].FB.XF)
			}
		}
	}

	// The longest target goes on alone.
	if live == 1 {
		ox, d, s := oxs[last], ds[last], &sp[last]
		tw := ox.wide(fb.TF, Q)
		for ; i <= len(d); i++ {
			xE := hsum(forwardRowW(ox.row(i-1), ox.row(i), fb.TF, tw, fb.RF[d[i-1]], Q, s.xB, all4))
			s.fullRow(ox, i, xE, &oms[last].FB.XF)
		}
	}
	for j := range ds {
		oxs[j].TotScale = sp[j].totScale
		sc[j], errs[j] = sp[j].score(len(ds[j]), &oms[j].FB.XF)
	}
}

// fullRow is Forward's bookkeeping of full-matrix row i with E sum xE:
// the specials, rescaling the row's cells, and the row's specials kept.
func (s *fwdSpecials) fullRow(ox *Matrix, i int, xE float32, xf *[4][2]float32) {
	scale := float32(1.0)
	if inv := s.row(xE, xf); xE > 1.0e4 {
		scaleRow(ox.row(i), inv)
		scale = xE
	}
	ox.X[i] = [NXCells]float32{XE: s.xE, XN: s.xN, XJ: s.xJ, XB: s.xB, XC: s.xC, XScale: scale}
}

// BackwardGroup fills bcks[j] with the full Backward matrix of ds[j]
// given its full Forward matrix fwds[j], and sets sc[j] and errs[j]:
// what Backward(ds[j], oms[j], fwds[j], bcks[j], true) does, bit for
// bit, for up to EnvGroup() targets of one model (see ForwardGroup).
// Each target's rows run from its row L-1 down: row L-1-t of every
// target that has one runs together.
func BackwardGroup(ds [][]byte, oms []*oprofile.Profile, fwds, bcks []*Matrix, sc []float32, errs []error, w *EnvWork) {
	backwardGroup(ds, oms, fwds, bcks, sc, errs, w, true)
}

// BackwardParsers is BackwardGroup for parser matrices: what
// Backward(ds[j], oms[j], fwds[j], bcks[j], false) does, bit for bit,
// for up to EnvGroup() targets of one model, fwds[j] their Forward
// parsers (only their special rows are read). A parser's row is
// computed in place, so the group rows read row i+1 where they write row
// i (bckParIn*), and no E is guessed (a wrong guess redoes its row from
// row i+1, which a parser no longer holds).
func BackwardParsers(ds [][]byte, oms []*oprofile.Profile, fwds, bcks []*Matrix, sc []float32, errs []error, w *EnvWork) {
	backwardGroup(ds, oms, fwds, bcks, sc, errs, w, false)
}

func backwardGroup(ds [][]byte, oms []*oprofile.Profile, fwds, bcks []*Matrix, sc []float32, errs []error, w *EnvWork, full bool) {
	n := len(ds)
	parts := envParts(n)
	if n > 4 || (parts != 0 && n > parts) {
		panic("fwdback: BackwardGroup of too many targets")
	}
	if parts == 0 {
		for j := range ds {
			sc[j], errs[j] = Backward(ds[j], oms[j], fwds[j], bcks[j], full)
		}
		return
	}
	sameModel(oms)
	fb := &oms[0].FB
	Q := fb.Q
	var rs [4]bckRun
	for j := range ds {
		rs[j].start(ds[j], oms[j], fwds[j], bcks[j], full, false)
	}
	idle := asVec4(w.zeroRows(Q))
	// In unihit mode (E->J zero, as rescoring runs), phase 3 runs inside
	// phase 1 on a guess of each E, as Backward's rowAlone does.
	guess := full
	for _, om := range oms {
		guess = guess && om.FB.XF[profile.XE][profile.Loop] == 0
	}
	t, live, last := 0, 0, 0
	for ; ; t++ {
		live = 0
		for j := range ds {
			if envRow(ds, j, t) >= 1 {
				live, last = live+1, j
			}
		}
		if live <= 1 {
			break
		}
		for p := 0; p < parts; p++ {
			if p < n && envRow(ds, p, t) >= 1 {
				i := envRow(ds, p, t)
				w.dc[p], w.rf[p] = asVec4(bcks[p].row(i)), asVec4(fb.RF[ds[p][i]])
			} else {
				w.dc[p], w.rf[p] = idle, asVec4(fb.RF[0])
			}
		}
		if guess {
			w.guessedRows(ds, rs[:n], t, parts, idle)
		} else {
			w.rows(ds, rs[:n], t, parts, !full)
		}
		for j := range ds {
			if i := envRow(ds, j, t); i >= 1 {
				rs[j].rescale(i, bcks[j].row(i))
			}
		}
	}
	if live == 1 {
		for i := envRow(ds, last, t); i >= 1; i-- {
			rs[last].rowAlone(i)
		}
	}
	for j := range ds {
		sc[j], errs[j] = rs[j].finish()
	}
}

// envRow is the row of target j that BackwardGroup's step t computes
// (below 1: none).
func envRow(ds [][]byte, j, t int) int { return len(ds[j]) - 1 - t }

// rows runs phases 1 to 5 of step t's rows (w.dc, w.rf set; rs the
// targets' runs) on the grouped kernels; inPlace for parser matrices.
func (w *EnvWork) rows(ds [][]byte, rs []bckRun, t, parts int, inPlace bool) {
	tf, Q := asVec4(rs[0].fb.TF), rs[0].Q
	switch {
	case parts == 2 && inPlace:
		bckParInPairAVX2((*[2]*[4]float32)(w.dc[:2]), tf, (*[2]*[4]float32)(w.rf[:2]), Q, (*[8]float32)(w.out[:8]))
	case parts == 2:
		bckEnvInPairAVX2((*[2]*[4]float32)(w.dc[:2]), tf, (*[2]*[4]float32)(w.rf[:2]), Q, (*[8]float32)(w.out[:8]))
	case inPlace:
		parQuadIn(&w.dc, tf, &w.rf, Q, &w.out)
	default:
		envQuadIn(&w.dc, tf, &w.rf, Q, &w.out)
	}
	for p := 0; p < parts; p++ {
		xE := float32(0)
		if p < len(ds) && envRow(ds, p, t) >= 1 {
			xE = rs[p].specials(w.outSum(p))
		}
		w.splatIn(p, xE)
	}
	if parts == 2 {
		bckEnvOutPairAVX2((*[2]*[4]float32)(w.dc[:2]), tf, Q, (*[8]float32)(w.in[:8]))
	} else {
		envQuadOut(&w.dc, tf, Q, &w.in)
	}
}

// guessedRows is rows with phase 3 inside phase 1, on each target's E
// guessed from C alone (see Backward's rowAlone). A target whose guess
// proves wrong (its J infinite or NaN) leaves the group for phases 4
// and 5 and redoes its row alone from row i+1.
func (w *EnvWork) guessedRows(ds [][]byte, rs []bckRun, t, parts int, idle *[4]float32) {
	tf, Q := asVec4(rs[0].fb.TF), rs[0].Q
	var guessed [4]float32
	for p := 0; p < parts; p++ {
		if p < len(ds) && envRow(ds, p, t) >= 1 {
			xf := &rs[p].fb.XF
			xfC, xfE := xf[profile.XC], xf[profile.XE]
			guessed[p] = fmul(fmul(rs[p].xC, xfC[profile.Loop]), xfE[profile.Move]) + fmul(0, xfE[profile.Loop])
		}
		w.splatIn(p, guessed[p])
	}
	if parts == 2 {
		bckEnvIn3PairAVX2((*[2]*[4]float32)(w.dc[:2]), tf, (*[2]*[4]float32)(w.rf[:2]), Q, (*[8]float32)(w.in[:8]), (*[8]float32)(w.out[:8]), (*[8]float32)(w.carry[:8]))
	} else {
		envQuadIn3(&w.dc, tf, &w.rf, Q, &w.in, &w.out, &w.carry)
	}
	var wrong [4]bool
	var xEs [4]float32
	for p := 0; p < len(ds); p++ {
		if envRow(ds, p, t) < 1 {
			continue
		}
		xEs[p] = rs[p].specials(w.outSum(p))
		if math.Float32bits(xEs[p]) != math.Float32bits(guessed[p]) {
			wrong[p] = true
			w.dc[p] = idle
			clear(w.carry[4*p : 4*p+4])
		}
	}
	if parts == 2 {
		bckEnvOut45PairAVX2((*[2]*[4]float32)(w.dc[:2]), tf, Q, (*[8]float32)(w.carry[:8]))
	} else {
		envQuadOut45(&w.dc, tf, Q, &w.carry)
	}
	for p := range wrong {
		if wrong[p] {
			r := &rs[p]
			i := envRow(ds, p, t)
			dpc, dpp := r.bck.row(i), r.bck.row(i+1)
			backwardRowInW(dpp, dpc, r.fb.TF, r.tw, r.fb.RF[r.dsq[i]], Q)
			backwardRowOutW(dpc, r.fb.TF, r.tw, Q, xEs[p])
		}
	}
}
