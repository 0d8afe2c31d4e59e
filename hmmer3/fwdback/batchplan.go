package fwdback

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// This file is the host side of fwd.cu's multi-profile kernel
// (fwd_multi_kernel) that needs no GPU: the job table, the packing of
// every job's targets into one block table, and the split of the kernel's
// outputs back into per-job scores.

// BatchJob is one query's Forward filter request in a batched launch: the
// score of Targets[i] for every i with Want[i] (all when Want is nil),
// under OM with its length model set for each target's own length.
//
// Index, when not nil, names the targets instead (Want is then unused):
// Targets[Index[k]] for every k, and the result is indexed like Index.
// A resident database has ~485,000 targets and a query ~500 survivors:
// with Want, every job of a batch cost several passes and two result
// arrays the size of the database (most of a launch's host time in the
// 1,000-model run); with Index the host work is the survivors'.
type BatchJob struct {
	OM      *oprofile.Profile
	Targets [][]byte
	Want    []bool
	Index   []int
}

// BatchResult is one job's scores and errors, indexed like its Targets
// (zero and nil for the targets not wanted), as ForwardScores returns them,
// or like its Index when it has one.
type BatchResult struct {
	Scores []float32
	Errs   []error
}

// fwdJobBytes is the size of fwd.cu's FwdJob: two int64 offsets, four
// int32, two float32.
const fwdJobBytes = 40

// batchPlan is everything fwd_multi_kernel reads for a batch of jobs.
type batchPlan struct {
	jobs   []BatchJob
	plans  []*fwdPlan // nil for a job left to the CPU (see exactOnGPU)
	sel    [][]int    // each job's selected targets, local numbering
	first  []int      // job j's targets are combined numbers first[j]..first[j+1]-1
	dsqs   [][]byte   // the selected targets of all jobs, combined numbering
	qmax   int
	jobTab []byte    // FwdJob per job
	trans  []float32 // every job's profile, one after another
	odds   []float32
	loop   []float32 // loop/move pair per combined target
	packed *gpudb.Packed
	bjob   []int32 // job of each block
	cells  int64   // residues x model length over the packed targets
}

// newBatchPlan lays out a batch of jobs for fwd_multi_kernel.
func newBatchPlan(jobs []BatchJob) (*batchPlan, error) {
	bp := &batchPlan{jobs: jobs, plans: make([]*fwdPlan, len(jobs)), sel: make([][]int, len(jobs)), first: make([]int, len(jobs)+1)}
	jobTab := make([]byte, 0, fwdJobBytes*len(jobs))
	var groups [][]int // per job, the combined numbers of its non-empty targets
	for j, job := range jobs {
		if err := bp.selectJob(j, job); err != nil {
			return nil, err
		}
		lengths := make([]int, len(bp.sel[j]))
		for k, i := range bp.sel[j] {
			lengths[k] = len(job.Targets[i])
		}
		plan, err := newFwdPlan(job.OM, lengths)
		if err != nil {
			return nil, fmt.Errorf("fwdback: job %d: %w", j, err)
		}
		bp.first[j] = len(bp.dsqs)
		var group []int
		if plan.exactOnGPU() {
			bp.plans[j] = plan
			for _, i := range bp.sel[j] {
				if d := job.Targets[i]; len(d) > 0 {
					group = append(group, len(bp.dsqs))
					bp.cells += int64(len(d)) * int64(plan.M)
				}
				bp.dsqs = append(bp.dsqs, job.Targets[i])
			}
			jobTab = binary.LittleEndian.AppendUint64(jobTab, uint64(len(bp.trans)))
			jobTab = binary.LittleEndian.AppendUint64(jobTab, uint64(len(bp.odds)))
			check := uint32(0)
			if plan.Check {
				check = 1
			}
			for _, v := range []uint32{uint32(plan.Q), uint32(plan.QS), uint32(plan.Kp), check, math.Float32bits(plan.EMove), math.Float32bits(plan.ELoop)} {
				jobTab = binary.LittleEndian.AppendUint32(jobTab, v)
			}
			bp.trans = append(bp.trans, plan.Trans...)
			bp.odds = append(bp.odds, plan.Odds...)
			bp.loop = append(bp.loop, plan.LoopMove...)
			bp.qmax = max(bp.qmax, plan.Q)
		} else {
			jobTab = append(jobTab, make([]byte, fwdJobBytes)...) // no blocks refer to it
		}
		groups = append(groups, group)
	}
	bp.first[len(jobs)] = len(bp.dsqs)
	bp.jobTab = jobTab
	bp.packed, bp.bjob = packJobs(bp.dsqs, groups, bp.plans)
	return bp, nil
}

// selectJob sets bp.sel[j], job j's selected targets (local numbering).
func (bp *batchPlan) selectJob(j int, job BatchJob) error {
	if job.Index != nil {
		for _, i := range job.Index {
			if i < 0 || i >= len(job.Targets) {
				return fmt.Errorf("fwdback: job %d: target %d of %d", j, i, len(job.Targets))
			}
		}
		bp.sel[j] = job.Index
		return nil
	}
	if job.Want != nil && len(job.Want) != len(job.Targets) {
		return fmt.Errorf("fwdback: job %d: %d selections for %d targets", j, len(job.Want), len(job.Targets))
	}
	for i := range job.Targets {
		if job.Want == nil || job.Want[i] {
			bp.sel[j] = append(bp.sel[j], i)
		}
	}
	return nil
}

// residues is the number of residues the kernel runs over (a bound on its
// rescaled rows).
func (bp *batchPlan) residues() int {
	n := 0
	for _, d := range bp.dsqs {
		n += len(d)
	}
	return n
}

// packJobs packs each job's targets into blocks of their own (a warp runs
// one profile), then orders all blocks by their work, maxLen x Q, longest
// first: warps take blocks in table order, so the longest start first and
// the short ones fill in behind them (longest-processing-time first).
func packJobs(dsqs [][]byte, groups [][]int, plans []*fwdPlan) (*gpudb.Packed, []int32) {
	type blk struct {
		job   int32
		entry []byte
		body  []byte
		work  int64
	}
	var all []blk
	resBytes := 0
	for j, group := range groups {
		if len(group) == 0 {
			continue
		}
		p := gpudb.Pack(dsqs, group, threadsPerTarget)
		for b := 0; b < p.NBlocks; b++ {
			entry := p.Table[b*gpudb.BlockBytes : (b+1)*gpudb.BlockBytes]
			maxLen := int64(binary.LittleEndian.Uint32(entry[256:]))
			off := int(binary.LittleEndian.Uint64(entry[264:]))
			size := ((int(maxLen) + 3) &^ 3) * (32 / threadsPerTarget)
			all = append(all, blk{job: int32(j), entry: entry, body: p.Res[off : off+size], work: maxLen * int64(plans[j].Q)})
			resBytes += size
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].work > all[b].work })
	out := &gpudb.Packed{NBlocks: len(all), Table: make([]byte, 0, len(all)*gpudb.BlockBytes), Res: make([]byte, 0, resBytes)}
	bjob := make([]int32, len(all))
	for b, k := range all {
		e := append([]byte(nil), k.entry...)
		binary.LittleEndian.PutUint64(e[264:], uint64(len(out.Res)))
		out.Table = append(out.Table, e...)
		out.Res = append(out.Res, k.body...)
		bjob[b] = k.job
	}
	return out, bjob
}

// assemble turns the kernel's outputs (combined numbering) into per-job
// results; jobs the kernel could not take are computed on the CPU.
func (bp *batchPlan) assemble(outC []float32, recs []scaleRecord) ([]BatchResult, error) {
	byJob := make([][]scaleRecord, len(bp.jobs))
	for _, r := range recs {
		k := int(r.Seq)
		if k < 0 || k >= len(bp.dsqs) {
			return nil, fmt.Errorf("fwdback: GPU reported a rescaled row of target %d of %d", k, len(bp.dsqs))
		}
		j := sort.Search(len(bp.jobs), func(j int) bool { return bp.first[j+1] > k })
		r.Seq -= int32(bp.first[j])
		byJob[j] = append(byJob[j], r)
	}
	out := make([]BatchResult, len(bp.jobs))
	for j, job := range bp.jobs {
		lo, hi := bp.first[j], bp.first[j+1]
		var scores []float32
		var errs []error
		if bp.plans[j] != nil {
			var err error
			if scores, errs, err = assembleScores(bp.plans[j], bp.dsqs[lo:hi], outC[lo:hi], byJob[j]); err != nil {
				return nil, err
			}
		} else {
			dsqs := make([][]byte, len(bp.sel[j]))
			lengths := make([]int, len(bp.sel[j]))
			for k, i := range bp.sel[j] {
				dsqs[k], lengths[k] = job.Targets[i], len(job.Targets[i])
			}
			scores, errs = cpuForwardScores(job.OM, dsqs, lengths, func(int) bool { return true })
		}
		out[j] = jobResult(job, bp.sel[j], scores, errs)
	}
	return out, nil
}

// jobResult is a job's BatchResult from the scores and errors of its
// selected targets sel (in order): indexed like its Index when it has
// one, else like its Targets, zero for the targets not selected.
func jobResult(job BatchJob, sel []int, scores []float32, errs []error) BatchResult {
	size := len(job.Targets)
	if job.Index != nil {
		size = len(job.Index)
	}
	res := BatchResult{Scores: make([]float32, size), Errs: make([]error, size)}
	if job.Index != nil {
		copy(res.Scores, scores)
		copy(res.Errs, errs)
		return res
	}
	for k, i := range sel {
		res.Scores[i], res.Errs[i] = scores[k], errs[k]
	}
	return res
}

// chooseMultiShape sizes fwd_multi_kernel for a batch whose largest
// profile has Q vectors: the row state in shared memory while a block
// holds at least 3 warps (as chooseShape decides for one profile), else
// in global memory; the profiles are always read from global memory.
//
// The chunked walk (pipe > 0) holds a chunk of loads in registers, so its
// blocks have at most pipeWarps warps (launch bounds of 256 threads leave
// each thread up to 255 registers). It is always compiled for pipeWarps
// warps and launched with the warps the batch's state allows (threads):
// the block size then does not depend on the batch, and a run compiles
// two programs (state shared or not) instead of one per block size, each
// of which would stall its batch for an NVRTC compilation.
func chooseMultiShape(qmax int, d deviceLimits, pipe int) fwdShape {
	stw := 4 * 3 * qmax * 32
	most := maxWarps
	if pipe > 0 {
		most = pipeWarps
	}
	w := min(most, d.SharedOptin/stw)
	s := fwdShape{Block: 32 * globalWarps, place: PlaceGlobal}
	if w >= 3 {
		s = fwdShape{Block: 32 * w, StateShared: true, place: PlaceStateShared, sharedBytes: w * stw}
	}
	s.Pipe, s.threads = pipe, s.Block
	if pipe > 0 {
		s.Block = 32 * pipeWarps
	}
	perSM := d.ThreadsPerSM / s.threads
	if s.sharedBytes > 0 {
		perSM = min(perSM, d.SharedPerSM/(s.sharedBytes+1024))
	}
	s.grid = d.SMs * max(1, perSM)
	return s
}

// pipeWarps is the most warps a block of the chunked walk has.
const pipeWarps = 8
