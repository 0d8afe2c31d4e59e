package gpudb

// Windowed layouts, for filters whose score is the best of a quantity
// that looks at most a fixed number of residues back: SSV's best
// ungapped diagonal. A warp walks its targets row by row, so a kernel
// over a layout lasts at least as long as its longest target takes, and
// at small model lengths (32/T targets a warp, few warp blocks per warp)
// that latency, not the instruction rate, set the kernel's time. Cutting
// long targets into windows bounds every entry's length; each window
// still carries its target's number, so the kernel combines the windows
// of a target into one result (a max).
//
// Why SSV's max over windows is exact, for a model of M nodes: a cell
// (i, k) is the best sum of a diagonal segment ending at residue i, node
// k, clipped at 0 (the begin state opens every diagonal at any node), and
// such a segment is at most k <= M residues long. A window that starts at
// residue a - (M-1) with cleared cells computes, in its rows i >= a, the
// same cells as the whole target: every segment ending there starts at
// or after a - (M-1). In its first M-1 rows it sees only the segments
// that start inside it, so those cells are lower or equal to the true
// ones, never higher. Windows whose rows from their own a on tile the
// target therefore give, as the max of their cells, the target's max
// cell. The same holds for any overlap >= M-1. (HMMER's MSV adds the J
// state, which carries a score from one segment to the next across the
// whole target: it does not decompose, and runs on whole targets.)

// windows is the entries of targets idx cut into windows: a target of at
// most step+overlap residues stays whole; a longer one becomes windows
// whose own rows [a, a+step) tile it, each starting overlap residues
// before a (at 0 for the first).
func windows(dsqs [][]byte, idx []int, step, overlap int) []entry {
	// Counted first: a database of half a million targets otherwise grows
	// the slice ~30 times while the first queries wait for their layout.
	n := 0
	for _, i := range idx {
		if L := len(dsqs[i]); L <= step+overlap {
			n++
		} else {
			n += (L + step - 1) / step
		}
	}
	es := make([]entry, 0, n)
	for _, i := range idx {
		L := len(dsqs[i])
		if L <= step+overlap {
			es = append(es, entry{i, 0, L})
			continue
		}
		for a := 0; a < L; a += step {
			s := max(0, a-overlap)
			es = append(es, entry{i, s, min(L, a+step) - s})
		}
	}
	return es
}

// PackWindows lays out targets idx of dsqs, each longer than
// step+overlap cut into windows (see windows), for kernels with T
// threads per target: the host counterpart of WindowLayout.
func PackWindows(dsqs [][]byte, idx []int, T, step, overlap int) *Packed {
	return packInto(nil, dsqs, windows(dsqs, idx, step, overlap), T)
}

// WindowLayout returns the layout of all targets for T threads per
// target with every target longer than step+overlap cut into windows
// (PackWindows), made the first time as Layout makes its own and kept
// for every later query with the same step and overlap.
func (db *DB) WindowLayout(T, step, overlap int) (*Device, error) {
	if step <= 0 || overlap < 0 {
		return db.Layout(T)
	}
	return db.layoutFor(layoutKey{T: T, step: step, overlap: overlap})
}

// MaxLen is the length of the longest target.
func (db *DB) MaxLen() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.maxLen < 0 {
		db.maxLen = 0
		for _, d := range db.Dsqs {
			db.maxLen = max(db.maxLen, len(d))
		}
	}
	return db.maxLen
}
