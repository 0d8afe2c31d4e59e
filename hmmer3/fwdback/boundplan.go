package fwdback

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/hmmgo/hmmgo/easel"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// The host side of fwdbound.cu that needs no GPU: the natural-order
// profile layout, the task table, and the scores from what the kernel
// returns (xC and the binary exponent of the total scale per target).

const (
	boundJobBytes  = 40 // fwdbound.cu's BoundJob
	boundTaskBytes = 24 // fwdbound.cu's BoundTask
	// boundThreshold is where the kernel rescales a row (E > 2^13).
	boundThreshold = 8192
)

// boundPlan is everything fwdbound_kernel reads for a batch of jobs.
type boundPlan struct {
	jobs  []BatchJob
	sel   [][]int // each job's selected targets, local numbering
	onGPU []bool  // false: the job is scored by Forward on the CPU
	first []int   // job j's targets are combined numbers first[j]..first[j+1]-1
	dsqs  [][]byte
	move  []float32 // per combined target: its N/C/J move probability
	cmax  int       // the longest chunk
	// cmaxShared is the longest chunk of the jobs whose row state goes to
	// shared memory (C > boundRegsMax); 0 if none.
	cmaxShared int
	jobTab     []byte
	trans      []float32
	odds       []float32
	tasks      []byte
	taskOf     []int // combined target of each task
	res        []byte
	cells      int64 // residues x M over the tasks
}

// boundChunk is the nodes a lane owns for a model of length M: at least
// ceil(M/32); one of fwdbound.cu's register variants (1..6, 8) up to 8,
// else a multiple of its shared-memory path's unrolling (4).
func boundChunk(M int) int {
	c := max(1, (M+31)/32)
	switch {
	case c <= 6:
		return c
	case c <= boundRegsMax:
		return boundRegsMax
	}
	return (c + 3) &^ 3
}

// boundRegsMax is the longest chunk fwdbound.cu keeps in registers.
const boundRegsMax = 8

// newBoundPlan lays out jobs for fwdbound_kernel. Jobs whose chunk would
// exceed maxC on the shared-memory path (a warp's row state must fit),
// in unihit mode, or whose profile has subnormal or vanishing values
// (BoundMargin's assumptions) are left to the CPU. The jobs' layouts are
// made on all cores, and so is the copy of the residues: the plan is the
// host's share of a launch (a 1,000-target, 8-query batch cost ~8 ms on
// one core of the GPU host, eight times the kernel, docs/BENCHMARKS.md).
func newBoundPlan(jobs []BatchJob, maxC int) (*boundPlan, error) {
	bp := &boundPlan{jobs: jobs, sel: make([][]int, len(jobs)), onGPU: make([]bool, len(jobs)), first: make([]int, len(jobs)+1)}
	sp := &batchPlan{sel: bp.sel}
	for j, job := range jobs {
		if err := sp.selectJob(j, job); err != nil {
			return nil, err
		}
		bp.first[j+1] = bp.first[j] + len(bp.sel[j])
	}
	n := bp.first[len(jobs)]
	bp.dsqs, bp.move = make([][]byte, n), make([]float32, n)
	layouts := make([]boundLayout, len(jobs))
	var wg sync.WaitGroup
	for j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			layouts[j] = bp.layoutJob(j, maxC)
		}()
	}
	wg.Wait()

	var tasks []boundTaskKey
	for j, lay := range layouts {
		bp.onGPU[j] = lay.ok
		if !lay.ok {
			bp.jobTab = append(bp.jobTab, make([]byte, boundJobBytes)...)
			continue
		}
		xe := jobs[j].OM.FB.XF[profile.XE]
		bp.jobTab = binary.LittleEndian.AppendUint64(bp.jobTab, uint64(len(bp.trans)))
		bp.jobTab = binary.LittleEndian.AppendUint64(bp.jobTab, uint64(len(bp.odds)))
		for _, v := range []uint32{uint32(jobs[j].OM.M), uint32(lay.C), math.Float32bits(xe[profile.Move]), math.Float32bits(xe[profile.Loop]), 0, 0} {
			bp.jobTab = binary.LittleEndian.AppendUint32(bp.jobTab, v)
		}
		bp.trans = append(bp.trans, lay.trans...)
		bp.odds = append(bp.odds, lay.odds...)
		bp.cmax = max(bp.cmax, lay.C)
		if lay.C > boundRegsMax {
			bp.cmaxShared = max(bp.cmaxShared, lay.C)
		}
		tasks = append(tasks, lay.tasks...)
	}
	// Longest first: warps take tasks in table order, so the long targets
	// start first and the short ones fill in behind them.
	slices.SortFunc(tasks, func(a, b boundTaskKey) int {
		if c := cmp.Compare(b.work, a.work); c != 0 {
			return c
		}
		return cmp.Compare(a.combined, b.combined)
	})
	off := make([]int, len(tasks)+1)
	for k, t := range tasks {
		L := len(bp.dsqs[t.combined])
		off[k+1] = off[k] + L
		bp.cells += int64(L) * int64(jobs[t.job].OM.M)
	}
	if off[len(tasks)] > 0 {
		bp.res = boundResidues.Get(off[len(tasks)]) // every byte written below
	}
	bp.tasks = make([]byte, boundTaskBytes*len(tasks))
	bp.taskOf = make([]int, len(tasks))
	gpudb.ForChunks(len(tasks), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			t := tasks[k]
			d := bp.dsqs[t.combined]
			copy(bp.res[off[k]:], d)
			e := bp.tasks[k*boundTaskBytes:]
			binary.LittleEndian.PutUint64(e[0:], uint64(off[k]))
			binary.LittleEndian.PutUint32(e[8:], uint32(len(d)))
			binary.LittleEndian.PutUint32(e[12:], uint32(t.job))
			// loop = 1 - move in float32, as ReconfigRestLength computes it
			binary.LittleEndian.PutUint32(e[16:], math.Float32bits(1-bp.move[t.combined]))
			binary.LittleEndian.PutUint32(e[20:], math.Float32bits(bp.move[t.combined]))
			bp.taskOf[k] = int(t.combined)
		}
	})
	return bp, nil
}

// boundResidues keeps the plans' residue arrays (a few MB a batch) for the
// next batch: fresh memory cost a page-fault or clearing pass over them.
var boundResidues = gpudb.Pool[byte]{Max: 8}

// boundTaskKey is one target to run: its combined number, job, and the
// work the task order sorts by.
type boundTaskKey struct {
	work          int64
	combined, job int32
}

// boundLayout is one job's share of a plan.
type boundLayout struct {
	C           int
	ok          bool
	trans, odds []float32
	tasks       []boundTaskKey
}

// layoutJob lays out job j's profile and targets (bp.dsqs and bp.move in
// its range of the combined numbering).
func (bp *boundPlan) layoutJob(j, maxC int) boundLayout {
	job := bp.jobs[j]
	om := job.OM
	lay := boundLayout{C: boundChunk(om.M)}
	lay.trans, lay.odds = boundProfile(om, lay.C)
	xe := om.FB.XF[profile.XE]
	// Unihit mode (E->J zero) falls outside BoundMargin's flush-to-zero
	// argument, which needs J to keep B away from zero.
	lay.ok = (lay.C <= boundRegsMax || lay.C <= maxC) && xe[profile.Loop] > 0 && !anySubnormal(lay.trans, lay.odds, xe[:]) && entryWeightOK(om)
	lay.tasks = make([]boundTaskKey, 0, len(bp.sel[j]))
	for k, i := range bp.sel[j] {
		c := bp.first[j] + k
		d := job.Targets[i]
		loop, move := boundLoopMove(om, len(d))
		bp.dsqs[c], bp.move[c] = d, move
		if isSubnormal(loop) || isSubnormal(move) {
			lay.ok = false
		}
		if len(d) > 0 {
			lay.tasks = append(lay.tasks, boundTaskKey{work: int64(len(d)) * int64(lay.C+8), combined: int32(c), job: int32(j)})
		}
	}
	return lay
}

// boundLoopMove is the N, C and J loop and move probabilities of
// ReconfigRestLength(L), computed as it computes them (TestBoundLoopMove
// checks the bits against lengthConfig).
func boundLoopMove(om *oprofile.Profile, L int) (loop, move float32) {
	pmove := (2.0 + om.NJ) / (float32(L) + 2.0 + om.NJ)
	return 1.0 - pmove, pmove
}

// boundProfile is om's float profile in fwdbound.cu's natural order: node
// k = l*C + c + 1 of lane l; zero past M.
func boundProfile(om *oprofile.Profile, C int) (trans, odds []float32) {
	fb := &om.FB
	Q := fb.Q
	trans = make([]float32, C*32*8)
	odds = make([]float32, len(fb.RF)*C*32)
	for k := 1; k <= om.M; k++ {
		q, z := (k-1)%Q, (k-1)/Q
		l, c := (k-1)/C, (k-1)%C
		t := trans[(c*32+l)*8:]
		t[0] = fb.TF[7*q+oprofile.FBM][z]
		t[1] = fb.TF[7*q+oprofile.FMM][z]
		t[2] = fb.TF[7*q+oprofile.FIM][z]
		t[3] = fb.TF[7*q+oprofile.FDM][z]
		t[4] = fb.TF[7*q+oprofile.FMD][z]
		t[5] = fb.TF[7*q+oprofile.FMI][z]
		t[6] = fb.TF[7*q+oprofile.FII][z]
		t[7] = fb.TF[7*Q+q][z]
		for x, rf := range fb.RF {
			odds[(x*C+c)*32+l] = rf[q][z]
		}
	}
	return trans, odds
}

func anySubnormal(as ...[]float32) bool {
	for _, a := range as {
		for _, x := range a {
			if isSubnormal(x) {
				return true
			}
		}
	}
	return false
}

// assemble turns the kernel's per-task outputs into per-job results; jobs
// left to the CPU are scored by Forward there.
func (bp *boundPlan) assemble(outC []float32, outExp []int32) []BatchResult {
	scores := make([]float32, len(bp.dsqs))
	errs := make([]error, len(bp.dsqs))
	for k, i := range bp.taskOf {
		scores[i], errs[i] = boundScore(len(bp.dsqs[i]), outC[k], outExp[k], bp.move[i])
	}
	out := make([]BatchResult, len(bp.jobs))
	for j, job := range bp.jobs {
		lo, hi := bp.first[j], bp.first[j+1]
		sc, er := scores[lo:hi], errs[lo:hi]
		if bp.onGPU[j] {
			for i := lo; i < hi; i++ {
				if len(bp.dsqs[i]) == 0 {
					scores[i], errs[i] = forwardFinish(0, 0, bp.move[i], nil)
				}
			}
		} else {
			lengths := make([]int, hi-lo)
			for k := range lengths {
				lengths[k] = len(bp.dsqs[lo+k])
			}
			sc, er = cpuForwardScores(job.OM, bp.dsqs[lo:hi], lengths, func(int) bool { return true })
		}
		out[j] = jobResult(job, bp.sel[j], sc, er)
	}
	return out
}

// boundScore is a target's score in nats from the kernel's final C value
// and total scale 2^exp, with Forward's range checks.
func boundScore(L int, xC float32, exp int32, move float32) (float32, error) {
	switch {
	case math.IsNaN(float64(xC)), math.IsInf(float64(xC), 1), L > 0 && xC == 0:
		return 0, ErrRange
	}
	return float32(float64(exp)*math.Ln2 + easel.Log(float64(fmul(xC, move)))), nil
}
