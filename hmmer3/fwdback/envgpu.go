package fwdback

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// Envelope rescoring on the GPU: the four steps of rescore_isolated_domain
// for many envelopes of one model, in batches that each run on a lane
// (stream) of the device, nothing but the results coming back.
//
//  1. env_fwd_kernel and env_bwd_kernel (envfwd.cu, envbwd.cu), a warp
//     an envelope: Forward's and Backward's rows and special rows, full
//     matrices in Matrix.dp's layout (fmat, bmat) from the envelope's
//     offset on;
//  2. env_decode_kernel (envdecode.cu), a warp an envelope: decoding
//     into bmat, optimal accuracy into fmat and their special rows,
//     null2's row sums;
//  3. env_trace_kernel (envtrace.cu): the OA traceback, one thread an
//     envelope;
//  4. the host: Forward's score from the special rows (as the parsers),
//     null2 from the sums, the trace turned around.
//
// The matrices take 24 bytes a cell of the batch's envelopes on the
// device; envBatchFloats bounds a launch's.

// envBatchFloats bounds the floats of one matrix over a launch's
// envelopes (512 MiB each for Forward's and Backward's, so that a
// device's lanes hold at most 1 GiB each of matrices, 32 GiB in all):
// larger calls run in several launches, on several lanes at once.
const envBatchFloats = 1 << 27

// envStepTimes, when set (TestGPUEnvelopeThroughput), receives the time
// of each launch of rescoreBatch: Forward, Backward, decoding, trace,
// each measured by waiting for the stream after it.
var envStepTimes func(step int, d time.Duration)

// envDecodeThreads is env_decode_kernel's threads an envelope: a warp.
const envDecodeThreads = 32

// envDescBytes is envdecode.cu's EnvDesc; envDecodeBytes its decode result
// (oasc, err, the N, C and J posterior sums); traceStepBytes a TraceStep.
const (
	envDescBytes   = 32
	envDecodeBytes = 20
	traceStepBytes = 16
)

// EnvDesc flags.
const (
	envOwnScales = 1 << 0 // Backward used its own scale factors
	envNull2     = 1 << 1 // null2's sums wanted
	envSkip      = 1 << 2 // Forward or Backward failed: no decoding, no trace
)

// putEnvDesc writes envdecode.cu's EnvDesc into d.
func putEnvDesc(d []byte, mat, xrow, trace int64, L int, flags uint32) {
	binary.LittleEndian.PutUint64(d[0:], uint64(mat))
	binary.LittleEndian.PutUint64(d[8:], uint64(xrow))
	binary.LittleEndian.PutUint64(d[16:], uint64(trace))
	binary.LittleEndian.PutUint32(d[24:], uint32(L))
	binary.LittleEndian.PutUint32(d[28:], flags)
}

// envFloats is an envelope's matrix size: rows 0..L of 3Q vectors.
func envFloats(L, Q int) int { return (L + 1) * 12 * Q }

// traceCap is an envelope's trace room: a unihit path has at most one
// state per residue and per node, and S, N, B, E, C, T besides.
func traceCap(L, M int) int { return L + M + 8 }

// RescoreEnvelopes rescores every job on the GPU, each with the bits of
// RescoreEnvelopeCPU. om is unihit (domain definition's configuration);
// each job's length model is set from its TargetLen. A profile the
// kernels cannot reproduce (see fwdPlan.exactOnGPU) is rescored on the
// CPU. The error is a device failure.
func (g *GPU) RescoreEnvelopes(om *oprofile.Profile, jobs []EnvJob) ([]EnvResult, error) {
	// Longest first: a batch then holds envelopes of similar lengths,
	// which the Forward and Backward kernels' warps walk in lock-step.
	order := make([]int, len(jobs))
	for i := range order {
		if len(jobs[i].Dsq) == 0 {
			return nil, fmt.Errorf("fwdback: envelope %d is empty", i)
		}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(jobs[b].Dsq) - len(jobs[a].Dsq) })
	sorted := make([]EnvJob, len(jobs))
	for i, o := range order {
		sorted[i] = jobs[o]
	}
	res := make([]EnvResult, len(jobs))
	Q := oprofile.NumVecF(om.M)
	// The batches run at once, each on a lane of its own: a launch is
	// as slow as its longest envelope whatever its width, so a call's
	// batches, like the calls of the queries in flight, overlap.
	starts := envBatches(sorted, Q, envBatchFloats)
	errs := make([]error, len(starts)-1)
	var wg sync.WaitGroup
	for k := range errs {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			errs[k] = g.rescoreBatch(om, sorted[lo:hi], res[lo:hi])
		}(starts[k], starts[k+1])
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("envelope rescoring on GPU %d: %w", g.ctx.Device().Ordinal, err)
		}
	}
	out := make([]EnvResult, len(jobs))
	for i, o := range order {
		out[o] = res[i]
	}
	return out, nil
}

// envBatches cuts jobs into batches of neighbours whose matrices hold at
// most bound floats each (a job larger than that alone): batch k is
// jobs[starts[k]:starts[k+1]].
func envBatches(jobs []EnvJob, Q, bound int) (starts []int) {
	for start := 0; start < len(jobs); {
		starts = append(starts, start)
		floats := envFloats(len(jobs[start].Dsq), Q)
		for start++; start < len(jobs) && floats+envFloats(len(jobs[start].Dsq), Q) <= bound; start++ {
			floats += envFloats(len(jobs[start].Dsq), Q)
		}
	}
	return append(starts, len(jobs))
}

// rescoreBatch is one launch sequence of RescoreEnvelopes.
func (g *GPU) rescoreBatch(om *oprofile.Profile, jobs []EnvJob, out []EnvResult) error {
	n := len(jobs)
	dsqs, lengths, idx := make([][]byte, n), make([]int, n), make([]int, n)
	residues := 0
	for i, j := range jobs {
		dsqs[i], lengths[i], idx[i] = j.Dsq, j.TargetLen, i
		residues += len(j.Dsq)
	}
	plan, err := newFwdPlan(om, lengths)
	if err != nil {
		return err
	}
	if !plan.exactOnGPU() || envFBShared(plan.Q) > envFBSharedMax {
		fwd, bck := NewMatrix(), NewMatrix()
		for i, j := range jobs {
			out[i] = RescoreEnvelopeCPU(om, j, fwd, bck)
		}
		return nil
	}
	g.mu.Lock()
	ks, err := g.envKernels()
	g.mu.Unlock()
	if err != nil {
		return err
	}
	ln, err := g.envLanes.Take()
	if err != nil {
		return err
	}
	defer g.envLanes.Give(ln)

	// Offsets: special rows (rowOffsets), matrices, traces.
	xoff, rowFloats := rowOffsets(dsqs, idx)
	moff, toff := make([]int64, n), make([]int, n)
	desc := make([]byte, envDescBytes*n)
	mats, steps := 0, 0
	for i, j := range jobs {
		L := len(j.Dsq)
		moff[i], toff[i] = int64(mats), steps
		flags := uint32(0)
		if j.Null2 {
			flags |= envNull2
		}
		// envOwnScales and envSkip follow from Backward's results.
		putEnvDesc(desc[envDescBytes*i:], int64(mats), xoff[i], int64(steps), L, flags)
		mats += envFloats(L, plan.Q)
		steps += traceCap(L, plan.M)
	}

	up := uploader(ln, &err)
	// Sizes round up to a power of two, so that a lane's buffers grow a
	// few times and are then reused: each allocation waits for the
	// lane's stream.
	get := func(name string, size int) *cuda.Buffer {
		if err != nil {
			return nil
		}
		var b *cuda.Buffer
		b, err = ln.Bufs.Get(name, 1<<bits.Len(uint(max(size, 1)-1)))
		return b
	}
	bt, bo, blm := up("etrans", cuda.Bytes(plan.Trans)), up("eodds", cuda.Bytes(plan.Odds)), up("eloopmove", cuda.Bytes(plan.LoopMove))
	btf := up("etf", cuda.Bytes(flat(om.FB.TF)))
	bdesc := up("edesc", desc)
	// The residues end to end.
	roff, flatRes := make([]int64, n), make([]byte, 0, residues)
	for i, d := range dsqs {
		roff[i] = int64(len(flatRes))
		flatRes = append(flatRes, d...)
	}
	bres, broff := up("eres", flatRes), up("eroff", cuda.Bytes(roff))
	bfx, bbx, bown := get("efx", 4*rowFloats), get("ebx", 4*rowFloats), get("eown", 4*n)
	bfmat, bbmat := get("efmat", 4*mats), get("ebmat", 4*mats)
	bdec, btr, btc := get("edec", envDecodeBytes*n), get("etrace", traceStepBytes*steps), get("etcount", 4*n)
	if err != nil {
		return err
	}
	st := ln.Stream
	// Forward, then Backward, a warp an envelope (envfwd.cu, envbwd.cu).
	check := int32(0)
	if plan.Check {
		check = 1
	}
	fbCfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: n}, Block: cuda.Dim3{X: 32}, SharedMem: envFBShared(plan.Q), Stream: st}
	var a cuda.Args
	a.Buffer(bdesc).Int32(int32(n)).Buffer(bt).Buffer(bo).Int32(int32(plan.Q)).Int32(int32(plan.QS)).Int32(int32(plan.Kp)).
		Int32(check).Buffer(bres).Buffer(broff).Buffer(blm).Float32(plan.EMove).Float32(plan.ELoop).
		Buffer(bfx).Buffer(bfmat)
	t0 := stepStart(st)
	if err := ks.fwd.Launch(fbCfg, &a); err != nil {
		return err
	}
	if err := stepTime(st, 0, t0); err != nil {
		return err
	}
	a.Reset()
	a.Buffer(bdesc).Int32(int32(n)).Buffer(bt).Buffer(bo).Int32(int32(plan.Q)).Int32(int32(plan.QS)).Int32(int32(plan.Kp)).
		Buffer(bres).Buffer(broff).Buffer(blm).Float32(plan.EMove).Float32(plan.ELoop).
		Buffer(bfx).Buffer(bbx).Buffer(bown).Buffer(bbmat)
	t1 := stepStart(st)
	if err := ks.bwd.Launch(fbCfg, &a); err != nil {
		return err
	}
	if err := stepTime(st, 1, t1); err != nil {
		return err
	}
	// The scores need the parsers' special rows, which decoding
	// overwrites: they come back first.
	fx, bx, own := make([]float32, rowFloats), make([]float32, rowFloats), make([]int32, n)
	for _, c := range []struct {
		dst []byte
		src *cuda.Buffer
	}{{cuda.Bytes(own), bown}, {cuda.Bytes(fx), bfx}, {cuda.Bytes(bx), bbx}} {
		if err := ln.CopyBack(c.dst, c.src); err != nil {
			return err
		}
	}
	parsers := assembleParsers(plan, dsqs, idx, xoff, fx, bx, own)
	for i, o := range own {
		d := desc[envDescBytes*i+28:]
		flags := binary.LittleEndian.Uint32(d)
		if o != 0 {
			flags |= envOwnScales
		}
		if parsers[i].Err != nil {
			flags |= envSkip
		}
		binary.LittleEndian.PutUint32(d, flags)
	}
	if bdesc = up("edesc", desc); err != nil {
		return err
	}

	xf := &om.FB.XF
	decCfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: (n*envDecodeThreads + 127) / 128}, Block: cuda.Dim3{X: 128}, Stream: st}
	a.Reset()
	envDecodeArgs(&a, bdesc, n, plan, btf, blm, xf, bfmat, bbmat, bfx, bbx, bdec)
	t2 := stepStart(st)
	if err := ks.decode.Launch(decCfg, &a); err != nil {
		return err
	}
	if err := stepTime(st, 2, t2); err != nil {
		return err
	}
	trCfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: (n + 63) / 64}, Block: cuda.Dim3{X: 64}, Stream: st}
	a.Reset()
	envTraceArgs(&a, bdesc, n, plan, btf, blm, xf, bfmat, bbmat, bfx, bbx, btr, btc, bdec)
	t3 := stepStart(st)
	if err := ks.trace.Launch(trCfg, &a); err != nil {
		return err
	}
	if err := stepTime(st, 3, t3); err != nil {
		return err
	}

	// null2's sums (pp row 0 of each envelope that asked) gathered
	// behind the trace counts, so that one copy brings everything.
	rowBytes := 12 * plan.Q * 4
	var null2Jobs []int
	for i, j := range jobs {
		if j.Null2 {
			null2Jobs = append(null2Jobs, i)
		}
	}
	tail := get("etail", envDecodeBytes*n+4*n+rowBytes*len(null2Jobs))
	if err != nil {
		return err
	}
	if err := st.CopyDtoD(tail.Ptr(), bdec.Ptr(), envDecodeBytes*n); err != nil {
		return err
	}
	if err := st.CopyDtoD(tail.Ptr().Add(envDecodeBytes*n), btc.Ptr(), 4*n); err != nil {
		return err
	}
	for r, i := range null2Jobs {
		if err := st.CopyDtoD(tail.Ptr().Add(envDecodeBytes*n+4*n+rowBytes*r), bbmat.Ptr().Add(4*int(moff[i])), rowBytes); err != nil {
			return err
		}
	}
	raw := make([]byte, envDecodeBytes*n+4*n+rowBytes*len(null2Jobs))
	if err := ln.CopyBack(raw, tail); err != nil {
		return err
	}
	trRaw := make([]byte, traceStepBytes*steps)
	if err := ln.CopyBack(trRaw, btr); err != nil {
		return err
	}

	var p oprofile.Profile
	null2Row := 0
	for i, j := range jobs {
		r := &out[i]
		r.Score, r.Err = parsers[i].FwdScore, parsers[i].Err
		var row0 []byte
		if j.Null2 {
			row0 = raw[envDecodeBytes*n+4*n+rowBytes*null2Row:][:rowBytes]
			null2Row++
		}
		if r.Err != nil {
			continue
		}
		d := raw[envDecodeBytes*i:]
		if binary.LittleEndian.Uint32(d[4:]) != 0 {
			r.Dropped = true
			continue
		}
		r.OASc = math.Float32frombits(binary.LittleEndian.Uint32(d[0:]))
		if j.Null2 {
			p = *om
			p.ReconfigRestLength(j.TargetLen)
			r.Null2 = null2OfSums(&p, row0, d, len(j.Dsq))
		}
		count := int(int32(binary.LittleEndian.Uint32(raw[envDecodeBytes*n+4*i:])))
		if count < 2 || count > traceCap(len(j.Dsq), plan.M) {
			return fmt.Errorf("envelope %d: the trace kernel reported %d steps", i, count)
		}
		buildTrace(&r.Trace, trRaw[traceStepBytes*toff[i]:][:traceStepBytes*count], plan.M, len(j.Dsq))
	}
	return nil
}

// null2OfSums is null2FromSums from what env_decode_kernel leaves: pp's
// row 0 (the M and I sums of rows 1..L, raw bytes) and the envelope's
// record dec (the N, C and J sums); p has the envelope's length model.
func null2OfSums(p *oprofile.Profile, row0, dec []byte, L int) []float32 {
	sums := make([]vec, 3*oprofile.NumVecF(p.M))
	copy(cuda.Bytes(flat(sums)), row0)
	f := func(o int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(dec[o:])) }
	null2 := make([]float32, p.Abc.Kp)
	null2Sum(p, sums, f(8), f(12), f(16), float32(1.0/float64(float32(L))), null2)
	return null2
}

// buildTrace turns the trace kernel's steps (OATrace's appends, T first)
// into a trace as OATrace leaves it.
func buildTrace(tr *hits.Trace, raw []byte, M, L int) {
	n := len(raw) / traceStepBytes
	reserveTrace(tr, n)
	for z := 0; z < n; z++ {
		s := raw[traceStepBytes*z:]
		traceAppend(tr, hits.State(binary.LittleEndian.Uint32(s[0:])), int(int32(binary.LittleEndian.Uint32(s[4:]))),
			int(int32(binary.LittleEndian.Uint32(s[8:]))), math.Float32frombits(binary.LittleEndian.Uint32(s[12:])))
	}
	tr.M, tr.L = M, L
	traceReverse(tr)
}

// stepStart is the start of a step: with envStepTimes set, once the
// stream has run what came before it.
func stepStart(st *cuda.Stream) time.Time {
	if envStepTimes != nil {
		st.Synchronize()
	}
	return time.Now()
}

// stepTime reports a step to envStepTimes, if set, once the stream has
// run it.
func stepTime(st *cuda.Stream, step int, start time.Time) error {
	if envStepTimes == nil {
		return nil
	}
	if err := st.Synchronize(); err != nil {
		return err
	}
	envStepTimes(step, time.Since(start))
	return nil
}

// envLanesPerGPU is how many envelope launches run at once on a device:
// the batches of the queries in domain definition at a time. Each is
// latency-bound (a warp an envelope, a few dozen of them), so more lanes
// fill the device: 32 lanes ran the 24 CUDAMPF models' envelopes in half
// the time of 4 (1.06 against 2.13 s on an H200, docs/BENCHMARKS.md).
var envLanesPerGPU = 32

// envFBShared is env_fwd_kernel's and env_bwd_kernel's shared memory:
// 4Q terms.
func envFBShared(Q int) int { return 16 * Q }

// envFBSharedMax is the shared memory a block gets without asking:
// models of more than 12,288 nodes are rescored on the cores.
const envFBSharedMax = 48 << 10

// envKernels are the kernels of one envelope launch sequence.
type envKernels struct{ fwd, bwd, decode, trace *cuda.Function }

// envShape is the program of envelope rescoring's kernels (the parsers'
// kernels in it, compiled alongside, go unused).
var envShape = fwdShape{Block: 32, Env: true}

// envKernels returns RescoreEnvelopes' kernels; g.mu held.
func (g *GPU) envKernels() (envKernels, error) {
	if _, _, err := g.kernel(envShape); err != nil {
		return envKernels{}, err
	}
	fs := g.kernels[envShape.key()]
	return envKernels{fwd: fs[kEnvFwd], bwd: fs[kEnvBwd], decode: fs[kEnvDecode], trace: fs[kEnvTrace]}, nil
}

// envDecodeArgs are env_decode_kernel's arguments.
func envDecodeArgs(a *cuda.Args, desc *cuda.Buffer, n int, p *fwdPlan, tf, loopmove *cuda.Buffer, xf *[4][2]float32,
	fmat, bmat, fx, bx, dec *cuda.Buffer) {
	a.Buffer(desc).Int32(int32(n)).Int32(int32(p.Q)).Int32(int32(p.M)).Buffer(tf).Buffer(loopmove).
		Float32(xf[profile.XE][profile.Loop]).Float32(xf[profile.XE][profile.Move]).
		Buffer(fmat).Buffer(bmat).Buffer(fx).Buffer(bx).Buffer(dec)
}

// envTraceArgs are env_trace_kernel's arguments.
func envTraceArgs(a *cuda.Args, desc *cuda.Buffer, n int, p *fwdPlan, tf, loopmove *cuda.Buffer, xf *[4][2]float32,
	fmat, bmat, fx, bx, steps, count, dec *cuda.Buffer) {
	a.Buffer(desc).Int32(int32(n)).Int32(int32(p.Q)).Int32(int32(p.M)).Buffer(tf).Buffer(loopmove).
		Float32(xf[profile.XE][profile.Loop]).Float32(xf[profile.XE][profile.Move]).
		Buffer(fmat).Buffer(bmat).Buffer(fx).Buffer(bx).Buffer(steps).Buffer(count).Buffer(dec)
}
