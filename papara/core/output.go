package core

// refGaps is PaPaRa's ref_gap_collector: for every position between
// reference columns (len+1 of them, the last one after the last column),
// the largest number of read residues any read inserts there.
type refGaps []int

func newRefGaps(refLen int) refGaps { return make(refGaps, refLen+1) }

// add folds one trace (end first) into the maxima.
func (g refGaps) add(trace []uint8) {
	count := make([]int, len(g))
	ptr := len(g) - 1
	for _, op := range trace {
		if op == opMatch || op == opDelete {
			ptr--
		} else {
			count[ptr]++
		}
	}
	for i, c := range count {
		g[i] = max(g[i], c)
	}
}

// width is the length of the alignment with the inserted columns.
func (g refGaps) width() int {
	w := len(g) - 1
	for _, c := range g {
		w += c
	}
	return w
}

// expandRef writes a reference row with gap columns where reads insert.
func (g refGaps) expandRef(row []byte) []byte {
	out := make([]byte, 0, g.width())
	for i, c := range row {
		for k := 0; k < g[i]; k++ {
			out = append(out, '-')
		}
		out = append(out, c)
	}
	for k := 0; k < g[len(g)-1]; k++ {
		out = append(out, '-')
	}
	return out
}

// readRow turns a trace into the read's row of the extended alignment
// (PaPaRa's gapstream_to_alignment). Inserted residues are packed to the
// left of their gap region, padded with gaps to the region's width, except
// before the first reference column, where they are packed to the right.
func (g refGaps) readRow(trace []uint8, m *Model, q []uint8) []byte {
	out := make([]byte, 0, g.width())
	r := len(q) - 1 // residues are consumed from the end
	ptr := len(g) - 1
	left := g[ptr]
	var insert []byte
	for _, op := range trace {
		if op == opMatch || op == opDelete {
			for k := 0; k < left; k++ {
				out = append(out, '-')
			}
			out = append(out, insert...)
			insert = insert[:0]
			ptr--
			left = g[ptr]
		}
		switch op {
		case opDelete:
			out = append(out, '-')
		case opMatch:
			out = append(out, m.Symbols[q[r]])
			r--
		default:
			insert = append(insert, m.Symbols[q[r]])
			r--
			left--
		}
	}
	out = append(out, insert...)
	for k := 0; k < left; k++ {
		out = append(out, '-')
	}
	reverse(out)
	return out
}

// readRowNoRefGaps turns a trace into a row of the reference's width:
// inserted residues are dropped (PaPaRa -r).
func readRowNoRefGaps(trace []uint8, m *Model, q []uint8) []byte {
	out := make([]byte, 0, len(trace))
	r := len(q) - 1
	for _, op := range trace {
		switch op {
		case opDelete:
			out = append(out, '-')
		case opMatch:
			out = append(out, m.Symbols[q[r]])
			r--
		default:
			r--
		}
	}
	reverse(out)
	return out
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}
