package gpu

import (
	"encoding/binary"
	"sort"

	"github.com/hmmgo/hmmgo/papara/core"
)

// jobData is what the kernels read for one job, packed on the host: the
// reads, how each is scored, and the branch data of every mode in use.
type jobData struct {
	job        *core.Job
	L          int // columns
	nb         int // branches, padded to a multiple of 32
	seqs       []byte
	off, lens  []int32
	cfg        []config // per read
	onCPU      []bool   // per read: longer than the kernels take
	used       map[config]bool
	tableKinds []uint32 // the (up to four) c-states of the byte table, most common first
	profKinds  []uint32 // every c-state of the reads
	// kinds maps a c-state (index) to what each mode's kernel needs: its
	// table column (modeTable), profile row (modeProfile) or parsimony
	// state (32-bit modes); 256 words per mode.
	kinds [4][256]uint32
	cols  [4][]byte // per mode, nil if unused
	// reads scored by the CPU kernel inside the GPU scorer
	cpuJob    *core.Job
	cpuGlobal []int // cpuJob read -> job read
	ranges    map[[2]int]*rangeReads
}

// Scores are exact in 16-bit lanes when every value stays far inside
// int16; see papara.cu.
const (
	limit16 = 1000  // |gap scores| and |match + match_cgap|, |match_cgap| at most
	top16   = 32000 // match x read length + 32 |gap extension| at most
)

// fast16 reports whether the scores allow the 16-bit modes: PaPaRa's fast
// conditions (a negative increment marks exactly the CGAP lanes, and every
// cell score is >= 0) with small magnitudes.
func fast16(p core.Params) bool {
	return p.Match >= 0 && p.MatchCGap < 0 && p.Match+p.MatchCGap < 0 &&
		p.GapOpen <= 0 && p.GapExtend <= 0 &&
		p.GapOpen >= -limit16 && p.GapExtend >= -limit16 && p.MatchCGap >= -limit16 && p.Match <= limit16
}

func in8(v int) bool { return v >= -128 && v <= 127 }

// newJobData classifies the reads and packs the branch data they need.
func newJobData(job *core.Job) *jobData {
	br := job.Branches
	d := &jobData{job: job, L: br.Len, nb: (br.N + unitBranches - 1) / unitBranches * unitBranches, used: map[config]bool{}}
	n := len(job.Queries)
	d.off, d.lens = make([]int32, n), make([]int32, n)
	d.cfg, d.onCPU = make([]config, n), make([]bool, n)
	var count [256]int
	for i, q := range job.Queries {
		d.off[i], d.lens[i] = int32(len(d.seqs)), int32(len(q.CStates))
		d.seqs = append(d.seqs, q.CStates...)
		for _, c := range q.CStates {
			count[c]++
		}
	}
	for c := range count {
		if count[c] > 0 {
			d.profKinds = append(d.profKinds, uint32(c))
		}
	}
	byCount := append([]uint32(nil), d.profKinds...)
	sort.SliceStable(byCount, func(i, j int) bool { return count[byCount[i]] > count[byCount[j]] })
	d.tableKinds = byCount[:min(4, len(byCount))]
	inTable := [256]bool{}
	for k, c := range d.tableKinds {
		inTable[c] = true
		d.kinds[modeTable][c] = uint32(k)
	}
	for k, c := range d.profKinds {
		d.kinds[modeProfile][c] = uint32(k)
	}
	m := job.Model
	for c := range 256 {
		if c < len(m.States) {
			d.kinds[modeWide][c] = m.States[c]
			d.kinds[modePaper][c] = m.States[c]
		}
	}

	p := job.Params
	tableOK := in8(p.Match) && in8(p.MatchCGap) && in8(p.Match+p.MatchCGap)
	var cpuQueries []core.Query
	for i, q := range job.Queries {
		var md mode
		switch {
		case job.Scoring == core.ScoringPaper:
			md = modePaper
		case fast16(p) && int64(p.Match)*int64(len(q.CStates))-32*int64(p.GapExtend) <= top16:
			md = modeProfile
			if tableOK && allIn(q.CStates, &inTable) {
				md = modeTable
			}
		default:
			md = modeWide
		}
		c, ok := binFor(md, len(q.CStates), p)
		if !ok {
			d.onCPU[i] = true
			cpuQueries = append(cpuQueries, q)
			d.cpuGlobal = append(d.cpuGlobal, i)
			continue
		}
		d.cfg[i] = c
		d.used[c] = true
	}
	if len(cpuQueries) > 0 {
		d.cpuJob = &core.Job{Model: job.Model, Params: job.Params, Scoring: job.Scoring, Branches: br, Queries: cpuQueries}
	}
	modes := map[mode]bool{}
	for c := range d.used {
		modes[c.mode] = true
	}
	if modes[modeTable] {
		d.cols[modeTable] = d.packTable()
	}
	if modes[modeProfile] {
		d.cols[modeProfile] = d.packProfile()
	}
	if modes[modeWide] || modes[modePaper] {
		st := d.packStates()
		d.cols[modeWide], d.cols[modePaper] = st, st
	}
	return d
}

func allIn(cs []uint8, set *[256]bool) bool {
	for _, c := range cs {
		if !set[c] {
			return false
		}
	}
	return true
}

// lane returns the parsimony state and CGAP flag of branch e at column c;
// branches past the last one (padding of the last unit) are all zero.
func (d *jobData) lane(e, c int) (uint32, bool) {
	if e >= d.job.Branches.N {
		return 0, false
	}
	return d.job.Branches.At(e, c)
}

// increment is PaPaRa's match increment of residue state rs against a
// column with state st.
func increment(p core.Params, rs, st uint32, cg bool) int {
	m := 0
	if rs&st != 0 {
		m = p.Match
	}
	if cg {
		m += p.MatchCGap
	}
	return m
}

// gaps returns a lane's gap-open and extension scores along the reference
// (waived in CGAP columns).
func gaps(p core.Params, cg bool) (int, int) {
	if cg {
		return 0, 0
	}
	return p.GapOpen, p.GapExtend
}

func pack2(lo, hi int) uint32 { return uint32(uint16(int16(lo))) | uint32(uint16(int16(hi)))<<16 }

// packTable builds modeTable's columns: per column and branch pair one
// uint4 {increments of branch 0 for the table's residues as bytes, the
// same for branch 1, packed gap-open scores, packed extension scores}.
func (d *jobData) packTable() []byte {
	p, m := d.job.Params, d.job.Model
	P := d.nb / 2
	out := make([]byte, d.L*P*16)
	for c := 0; c < d.L; c++ {
		for pr := 0; pr < P; pr++ {
			var w [4]uint32
			var o, e [2]int
			for h := 0; h < 2; h++ {
				st, cg := d.lane(2*pr+h, c)
				for k, cs := range d.tableKinds {
					w[h] |= uint32(uint8(int8(increment(p, m.States[cs], st, cg)))) << (8 * k)
				}
				o[h], e[h] = gaps(p, cg)
			}
			w[2], w[3] = pack2(o[0], o[1]), pack2(e[0], e[1])
			at := (c*P + pr) * 16
			for i, v := range w {
				binary.LittleEndian.PutUint32(out[at+4*i:], v)
			}
		}
	}
	return out
}

// packProfile builds modeProfile's columns: per column K+3 rows of packed
// pairs: the increment of each residue of the reads, zero (the rows above
// a read), the gap-open and the extension scores.
func (d *jobData) packProfile() []byte {
	p, m := d.job.Params, d.job.Model
	P, K := d.nb/2, len(d.profKinds)
	out := make([]byte, d.L*(K+3)*P*4)
	for c := 0; c < d.L; c++ {
		for pr := 0; pr < P; pr++ {
			st0, cg0 := d.lane(2*pr, c)
			st1, cg1 := d.lane(2*pr+1, c)
			put := func(row int, v uint32) {
				binary.LittleEndian.PutUint32(out[((c*(K+3)+row)*P+pr)*4:], v)
			}
			for k, cs := range d.profKinds {
				rs := m.States[cs]
				put(k, pack2(increment(p, rs, st0, cg0), increment(p, rs, st1, cg1)))
			}
			o0, e0 := gaps(p, cg0)
			o1, e1 := gaps(p, cg1)
			put(K+1, pack2(o0, o1))
			put(K+2, pack2(e0, e1))
		}
	}
	return out
}

// packStates builds the 32-bit modes' columns: per column and branch the
// parsimony state with bit 31 set in CGAP columns.
func (d *jobData) packStates() []byte {
	out := make([]byte, d.L*d.nb*4)
	for c := 0; c < d.L; c++ {
		for e := 0; e < d.nb; e++ {
			st, cg := d.lane(e, c)
			if cg {
				st |= 1 << 31
			}
			binary.LittleEndian.PutUint32(out[(c*d.nb+e)*4:], st)
		}
	}
	return out
}

// width is the kernel's lane count per column for a mode.
func (d *jobData) width(m mode) int {
	if m.pairs() {
		return d.nb / 2
	}
	return d.nb
}

// numKinds is the kernel's K argument (profile rows).
func (d *jobData) numKinds() int { return len(d.profKinds) }

// rangeReads groups the reads [q0, q1) that the kernels take by
// configuration, each group in read order, and counts the residues of the
// range on the GPU and on the CPU.
type rangeReads struct {
	configs        []config
	reads          [][]int32
	gpuRes, cpuRes int64
}

// splitRange returns the range's groups (made once per job and range: the
// job queue hands out the same ranges again and again).
func (d *jobData) splitRange(q0, q1 int) *rangeReads {
	if rr := d.ranges[[2]int{q0, q1}]; rr != nil {
		return rr
	}
	if d.ranges == nil {
		d.ranges = map[[2]int]*rangeReads{}
	}
	idx := map[config]int{}
	rr := &rangeReads{}
	d.ranges[[2]int{q0, q1}] = rr
	for q := q0; q < q1; q++ {
		if d.onCPU[q] {
			rr.cpuRes += int64(d.lens[q])
			continue
		}
		rr.gpuRes += int64(d.lens[q])
		c := d.cfg[q]
		i, ok := idx[c]
		if !ok {
			i = len(rr.configs)
			idx[c] = i
			rr.configs = append(rr.configs, c)
			rr.reads = append(rr.reads, nil)
		}
		rr.reads[i] = append(rr.reads[i], int32(q))
	}
	return rr
}

// cpuRange returns the cpuJob reads [s0, s1) that lie in [q0, q1).
func (d *jobData) cpuRange(q0, q1 int) (int, int) {
	s0 := sort.SearchInts(d.cpuGlobal, q0)
	s1 := sort.SearchInts(d.cpuGlobal, q1)
	return s0, s1
}

// bestKey packs a score and branch into the kernels' result key: higher
// keys are better scores, ties going to the lower branch.
func bestKey(score int32, branch int) uint64 {
	return uint64(uint32(score)^0x80000000)<<32 | uint64(^uint32(branch))
}

// fromKey undoes bestKey; ok is false for the empty key 0.
func fromKey(k uint64) (score int32, branch int, ok bool) {
	if k == 0 {
		return 0, 0, false
	}
	return int32(uint32(k>>32) ^ 0x80000000), int(^uint32(k)), true
}
