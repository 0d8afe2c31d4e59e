package fwdback

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// This file is the host side of the GPU Forward (fwd.cu) that needs no
// GPU: the profile layout the kernel reads, the per-target length
// configuration, and the assembly of scores from what the kernel returns.

// Per-vector transition slots of the kernel's profile (fwd.cu): HMMER's
// seven transition vectors of q, then its D->D vector.
const kernelTransSlots = 8

// fwdPlan is what the Forward kernel reads for one query.
type fwdPlan struct {
	M, Q, QS, Kp int
	Check        bool      // M >= 100: the later D->D passes stop early, as HMMER's do
	Trans        []float32 // [Q][4 lanes][8]: BM MM IM DM MD MI II DD
	Odds         []float32 // [Kp+1][QS][4]; row Kp is zero (padding)
	EMove, ELoop float32
	LoopMove     []float32 // [target][2]: N, C and J loop and move for its length
}

// newFwdPlan lays out om's float profile for the kernel and the length
// configuration of each target: lengths[i] is the L that
// om.ReconfigRestLength would be given for target i.
func newFwdPlan(om *oprofile.Profile, lengths []int) (*fwdPlan, error) {
	fb := &om.FB
	Q := fb.Q
	if Q != oprofile.NumVecF(om.M) || len(fb.TF) != 8*Q {
		return nil, fmt.Errorf("fwdback: float profile of M=%d has Q=%d, want %d", om.M, Q, oprofile.NumVecF(om.M))
	}
	p := &fwdPlan{M: om.M, Q: Q, QS: Q | 1, Kp: len(fb.RF), Check: om.M >= 100,
		EMove: fb.XF[profile.XE][profile.Move], ELoop: fb.XF[profile.XE][profile.Loop]}
	p.Trans = make([]float32, Q*4*kernelTransSlots)
	for q := 0; q < Q; q++ {
		for z := 0; z < 4; z++ {
			row := p.Trans[(q*4+z)*kernelTransSlots:]
			for t := oprofile.FBM; t <= oprofile.FII; t++ {
				row[t] = fb.TF[7*q+t][z]
			}
			row[7] = fb.TF[7*Q+q][z]
		}
	}
	p.Odds = make([]float32, (p.Kp+1)*p.QS*4)
	for x, rf := range fb.RF {
		for q := 0; q < Q; q++ {
			copy(p.Odds[(x*p.QS+q)*4:], rf[q][:])
		}
	}
	p.LoopMove = make([]float32, 2*len(lengths))
	cfg := map[int][2]float32{}
	for i, L := range lengths {
		lm, ok := cfg[L]
		if !ok {
			var err error
			if lm, err = lengthConfig(om, L); err != nil {
				return nil, err
			}
			cfg[L] = lm
		}
		p.LoopMove[2*i], p.LoopMove[2*i+1] = lm[0], lm[1]
	}
	return p, nil
}

// lengthConfig is the (loop, move) probability pair that
// ReconfigRestLength(L) gives the N, C and J states. The kernel keeps one
// pair per target, so the three must agree (they always do).
func lengthConfig(om *oprofile.Profile, L int) ([2]float32, error) {
	p := *om
	p.ReconfigRestLength(L)
	xf := &p.FB.XF
	lm := [2]float32{xf[profile.XN][profile.Loop], xf[profile.XN][profile.Move]}
	for _, s := range []int{profile.XC, profile.XJ} {
		if xf[s][profile.Loop] != lm[0] || xf[s][profile.Move] != lm[1] {
			return lm, fmt.Errorf("fwdback: N, C and J length models differ for L=%d", L)
		}
	}
	return lm, nil
}

func isSubnormal(x float32) bool { return x != 0 && math.Float32bits(x)&0x7f800000 == 0 }

// exactOnGPU reports whether the kernel reproduces the CPU on this plan:
// NVRTC's -ftz=true also flushes subnormal inputs, which the CPU (like
// hmmsearch, DAZ off) would use, so a subnormal anywhere in the profile
// would break the argument in fwd.cu. Profiles from oprofile.Convert
// never have one (their odds are flushed).
func (p *fwdPlan) exactOnGPU() bool {
	for _, a := range [][]float32{p.Trans, p.Odds, p.LoopMove, {p.EMove, p.ELoop}} {
		for _, x := range a {
			if isSubnormal(x) {
				return false
			}
		}
	}
	return true
}

// scaleRecord is one rescaled row of one target (fwd.cu's ScaleRecord).
type scaleRecord struct {
	Seq, Row int32
	XE       float32
}

const scaleRecordBytes = 12

func decodeScaleRecords(raw []byte) []scaleRecord {
	recs := make([]scaleRecord, len(raw)/scaleRecordBytes)
	for i := range recs {
		b := raw[i*scaleRecordBytes:]
		recs[i] = scaleRecord{Seq: int32(binary.LittleEndian.Uint32(b)), Row: int32(binary.LittleEndian.Uint32(b[4:])),
			XE: math.Float32frombits(binary.LittleEndian.Uint32(b[8:]))}
	}
	return recs
}

// forwardFinish is the end of fwdback.Forward for a target of length L:
// the log of every row scale factor (in row order) added in double to a
// float total, the range checks on the final C value, and the score.
func forwardFinish(L int, xC, cmove float32, scales []float32) (float32, error) {
	var tot float32
	for _, s := range scales {
		tot = float32(float64(tot) + easel.Log(float64(s)))
	}
	switch {
	case math.IsNaN(float64(xC)):
		return 0, ErrRange
	case L > 0 && xC == 0:
		return 0, ErrRange
	case math.IsInf(float64(xC), 1):
		return 0, ErrRange
	}
	return float32(float64(tot) + easel.Log(float64(fmul(xC, cmove)))), nil
}

// assembleScores turns the kernel's outputs into Forward scores: outC[i]
// is target i's final C value (ignored for empty targets, whose C is 0),
// recs its rescaled rows in any order.
func assembleScores(p *fwdPlan, dsqs [][]byte, outC []float32, recs []scaleRecord) ([]float32, []error, error) {
	sort.Slice(recs, func(a, b int) bool {
		if recs[a].Seq != recs[b].Seq {
			return recs[a].Seq < recs[b].Seq
		}
		return recs[a].Row < recs[b].Row
	})
	scores := make([]float32, len(dsqs))
	errs := make([]error, len(dsqs))
	r := 0
	var scales []float32
	for i, d := range dsqs {
		scales = scales[:0]
		for ; r < len(recs) && int(recs[r].Seq) == i; r++ {
			if int(recs[r].Row) < 1 || int(recs[r].Row) > len(d) {
				return nil, nil, fmt.Errorf("fwdback: GPU reported row %d of target %d (L=%d) rescaled", recs[r].Row, i, len(d))
			}
			scales = append(scales, recs[r].XE)
		}
		xC := float32(0)
		if len(d) > 0 {
			xC = outC[i]
		}
		scores[i], errs[i] = forwardFinish(len(d), xC, p.LoopMove[2*i+1], scales)
	}
	if r != len(recs) {
		return nil, nil, fmt.Errorf("fwdback: GPU reported a rescaled row of target %d of %d", recs[r].Seq, len(dsqs))
	}
	return scores, errs, nil
}

// Placement says where the Forward kernel keeps the profile and the row
// state (a row of M, D and I values per target: 48*Q bytes).
type Placement int

const (
	// PlaceAuto picks by model size: everything in shared memory when
	// enough warps fit, then the state alone, then global memory.
	PlaceAuto Placement = iota
	// PlaceShared keeps profile and row state in shared memory.
	PlaceShared
	// PlaceStateShared keeps the row state in shared memory and reads the
	// profile from global memory (through L1).
	PlaceStateShared
	// PlaceGlobal keeps the row state in global memory (coalesced; L2 and
	// HBM), the profile in shared memory when a quarter of it suffices.
	PlaceGlobal
)

func (p Placement) String() string {
	switch p {
	case PlaceShared:
		return "shared"
	case PlaceStateShared:
		return "state-shared"
	case PlaceGlobal:
		return "global"
	}
	return "auto"
}

// ParsePlacement reads the names String gives.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range []Placement{PlaceAuto, PlaceShared, PlaceStateShared, PlaceGlobal} {
		if s == p.String() {
			return p, nil
		}
	}
	return PlaceAuto, fmt.Errorf("fwdback: unknown placement %q (auto, shared, state-shared, global)", s)
}

// deviceLimits are the properties of a GPU the kernel shape depends on.
type deviceLimits struct {
	SMs, SharedOptin, SharedPerSM, ThreadsPerSM int
}

// fwdShape is one compiled variant of the kernel and how it is launched.
type fwdShape struct {
	Block                   int // threads per block
	ProfShared, StateShared bool
	Pipe                    int  // fwd.cu's FWD_PIPE: 0 the plain row walk, n the pipelined one
	Env                     bool // ENV_KERNELS: the program also holds envelope rescoring's kernels
	place                   Placement
	sharedBytes, grid       int
	threads                 int // fwd_multi_kernel's threads per block when fewer than Block (chooseMultiShape)
}

const (
	maxWarps    = 32 // 1024 threads per block
	globalWarps = 8
)

func (p *fwdPlan) profileBytes() int { return 4 * (len(p.Trans) + len(p.Odds)) }
func (p *fwdPlan) stateBytesPerWarp() int {
	return 4 * 3 * p.Q * 32
}

// chooseShape sizes the kernel for a plan on a device.
func chooseShape(pl Placement, p *fwdPlan, d deviceLimits) (fwdShape, error) {
	prof, stw := p.profileBytes(), p.stateBytesPerWarp()
	warps := func(budget int) int { return min(maxWarps, max(0, budget)/stw) }
	mk := func(place Placement, w int, profShared, stateShared bool) fwdShape {
		s := fwdShape{Block: 32 * w, ProfShared: profShared, StateShared: stateShared, place: place}
		if profShared {
			s.sharedBytes += prof
		}
		if stateShared {
			s.sharedBytes += w * stw
		}
		perSM := d.ThreadsPerSM / s.Block
		if s.sharedBytes > 0 {
			perSM = min(perSM, d.SharedPerSM/(s.sharedBytes+1024)) // 1 KiB per block is the driver's
		}
		s.grid = d.SMs * max(1, perSM)
		return s
	}
	switch pl {
	case PlaceShared:
		if w := warps(d.SharedOptin - prof); w >= 1 {
			return mk(PlaceShared, w, true, true), nil
		}
	case PlaceStateShared:
		if w := warps(d.SharedOptin); w >= 1 {
			return mk(PlaceStateShared, w, false, true), nil
		}
	case PlaceGlobal:
		return mk(PlaceGlobal, globalWarps, 4*prof <= d.SharedOptin, false), nil
	default:
		// Measured on an H200 (docs/BENCHMARKS.md): keeping the profile and
		// the row state in shared memory wins while a block still holds
		// at least 4 warps (M up to ~400); the state alone, with at least 3
		// warps (M up to ~800); beyond, global memory is as fast or faster.
		if w := warps(d.SharedOptin - prof); w >= 4 {
			return mk(PlaceShared, w, true, true), nil
		}
		if w := warps(d.SharedOptin); w >= 3 {
			return mk(PlaceStateShared, w, false, true), nil
		}
		return mk(PlaceGlobal, globalWarps, 4*prof <= d.SharedOptin, false), nil
	}
	return fwdShape{}, fmt.Errorf("fwdback: M=%d does not fit the %s placement (%d bytes of shared memory per block)", p.M, pl, d.SharedOptin)
}

// Parser is one target's parser Forward and Backward as domain definition
// needs them (DomainDecoding, domaindef.Define): the special-state rows
// 0..L of both matrices, with L, TotScale and HasOwnScales set, and no DP
// cells (a GPU result; the CPU fallback also has its one parser row).
type Parser struct {
	Fwd, Bck           *Matrix
	FwdScore, BckScore float32
	Err                error // ErrRange where Forward (first) or Backward returns it
}

// rowOffsets places each non-empty target's special rows (L+1 rows of
// NXCells floats) one after another and returns the total size.
func rowOffsets(dsqs [][]byte, idx []int) ([]int64, int) {
	off := make([]int64, len(dsqs))
	n := 0
	for _, i := range idx {
		off[i] = int64(n)
		n += (len(dsqs[i]) + 1) * NXCells
	}
	return off, n
}

// xRows copies a target's special rows out of a kernel's row buffer.
func xRows(buf []float32, off int64, L int) [][NXCells]float32 {
	rows := make([][NXCells]float32, L+1)
	for r := range rows {
		copy(rows[r][:], buf[int(off)+r*NXCells:])
	}
	return rows
}

// backwardFinish is the end of fwdback.Backward for a target of length L,
// from its special rows: the log of row L's (Forward) scale factor, then of
// every row's factor above 1 from L-1 down to 1, added in double to a
// float total; the range checks on N of row 0; the score.
func backwardFinish(L int, rows [][NXCells]float32) (tot, score float32, err error) {
	tot = float32(easel.Log(float64(rows[L][XScale])))
	for i := L - 1; i >= 1; i-- {
		if s := rows[i][XScale]; s > 1 {
			tot = float32(float64(tot) + easel.Log(float64(s)))
		}
	}
	xN := rows[0][XN]
	switch {
	case math.IsNaN(float64(xN)):
		return tot, 0, ErrRange
	case L > 0 && xN == 0:
		return tot, 0, ErrRange
	case math.IsInf(float64(xN), 1):
		return tot, 0, ErrRange
	}
	return tot, float32(float64(tot) + easel.Log(float64(xN))), nil
}

// assembleParsers builds the parser results of the targets idx of dsqs
// from the kernels' special rows (fx, bx from xoff[i] on) and Backward's
// own-scale flags.
func assembleParsers(p *fwdPlan, dsqs [][]byte, idx []int, xoff []int64, fx, bx []float32, own []int32) []Parser {
	out := make([]Parser, len(dsqs))
	for _, i := range idx {
		L := len(dsqs[i])
		fwd := &Matrix{M: p.M, Q: p.Q, L: L, X: xRows(fx, xoff[i], L), HasOwnScales: true}
		var scales []float32
		for r := 1; r <= L; r++ {
			if s := fwd.X[r][XScale]; s > 1 {
				scales = append(scales, s)
				fwd.TotScale = float32(float64(fwd.TotScale) + easel.Log(float64(s)))
			}
		}
		res := &out[i]
		res.Fwd = fwd
		res.FwdScore, res.Err = forwardFinish(L, fwd.X[L][XC], p.LoopMove[2*i+1], scales)
		bck := &Matrix{M: p.M, Q: p.Q, L: L, X: xRows(bx, xoff[i], L), HasOwnScales: own[i] != 0}
		var berr error
		bck.TotScale, res.BckScore, berr = backwardFinish(L, bck.X)
		res.Bck = bck
		if res.Err == nil {
			res.Err = berr
		}
	}
	return out
}

// finishParsers gives every target its Parser: from the kernels' run r
// for the targets idx, on the CPU for the others (empty targets, or all
// when r is nil).
func finishParsers(om *oprofile.Profile, p *fwdPlan, dsqs [][]byte, lengths []int, idx []int, xoff []int64, r *fwdRun) []Parser {
	out := make([]Parser, len(dsqs))
	if r != nil {
		out = assembleParsers(p, dsqs, idx, xoff, r.fx, r.bx, r.own)
	}
	for i, d := range dsqs {
		if out[i].Fwd == nil {
			out[i] = cpuParser(om, d, lengths[i])
		}
	}
	return out
}

// cpuParser is Parser computed by Forward and Backward on the CPU.
func cpuParser(om *oprofile.Profile, dsq []byte, L int) Parser {
	p := *om
	p.ReconfigRestLength(L)
	r := Parser{Fwd: NewMatrix(), Bck: NewMatrix()}
	r.FwdScore, r.BckScore, r.Err = forwardBackward(dsq, &p, r.Fwd, r.Bck, false)
	return r
}

// forwardBackward runs Forward into fwd, then Backward into bck; the
// error is Forward's, else Backward's.
func forwardBackward(dsq []byte, om *oprofile.Profile, fwd, bck *Matrix, full bool) (fsc, bsc float32, err error) {
	fsc, err = Forward(dsq, om, fwd, full)
	bsc, berr := Backward(dsq, om, fwd, bck, full)
	if err == nil {
		err = berr
	}
	return fsc, bsc, err
}
