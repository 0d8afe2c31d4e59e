package pairhmm

// laneWidth is how many reads share one pass over a haplotype: the eight
// float lanes of an AVX2 register.
const laneWidth = 8

// laneBatch is up to laneWidth prepared reads to be run against the same
// haplotypes. The SIMD kernels also need the rows interleaved by lane.
type laneBatch struct {
	reads  []preparedRead
	maxLen int
	// lanes[i] holds row i of every lane; lanes past a read's end are zero,
	// which makes their cells zero and keeps them harmless.
	lanes []laneRow
	// endAt[i] is true when some read ends at row i.
	endAt       []bool
	interleaved bool
	s           scratch
	// vm, vx, vy are the lane-interleaved DP rows of the SIMD kernels.
	vm, vx, vy []float32
}

// laneRow is one DP row for eight reads, each field one AVX2 register.
type laneRow struct {
	mm, gapm, mx, gcp, my [laneWidth]float32
	emis                  [5][laneWidth]float32
}

func (b *laneBatch) load(reads []preparedRead) {
	b.reads = reads
	b.interleaved = false
	b.maxLen = 0
	for i := range reads {
		b.maxLen = max(b.maxLen, len(reads[i].rows32))
	}
}

// interleave fills lanes and endAt; only the SIMD kernels call it.
func (b *laneBatch) interleave() {
	n := b.maxLen
	if cap(b.lanes) < n {
		b.lanes = make([]laneRow, n)
		b.endAt = make([]bool, n)
	}
	b.lanes, b.endAt = b.lanes[:n], b.endAt[:n]
	clear(b.lanes)
	clear(b.endAt)
	for l := range b.reads {
		rows := b.reads[l].rows32
		for i := range rows {
			p, d := &rows[i], &b.lanes[i]
			d.mm[l], d.gapm[l], d.mx[l], d.gcp[l], d.my[l] = p.mm, p.gapm, p.mx, p.gcp, p.my
			for c := range d.emis {
				d.emis[c][l] = p.emis[c]
			}
		}
		b.endAt[len(rows)-1] = true
	}
	b.interleaved = true
}

// goLaneKernel is the portable float pass: one read at a time.
var goLaneKernel = laneKernel{name: "go", run: func(b *laneBatch, hap []uint8, out *[laneWidth]float32) {
	b.s.grow(len(hap) + 1)
	for l := range b.reads {
		out[l] = forward(b.reads[l].rows32, hap, initial32, b.s.m32, b.s.x32, b.s.y32)
	}
}}
