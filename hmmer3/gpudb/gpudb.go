// Package gpudb holds a target database on a GPU in the layout the
// HMMER3 filter kernels read: CUDAMPF++'s warp-based blocks. Targets are
// sorted by length and grouped S at a time (S = 32/T for kernels running
// T threads per target), so the S targets a warp aligns in lock-step
// have similar lengths (its Algorithm 1 balances blocks greedily; sorting
// by length gives the same balance). Residues are interleaved so that a
// warp's S four-residue reads are one coalesced access.
//
// The packing for each T is done once and kept on the device, so every
// query of a run reuses it.
package gpudb

import (
	"encoding/binary"
	"runtime"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/internal/lenorder"
)

// BlockBytes is the size of the kernels' Block struct: target numbers
// and lengths of up to 32 targets, the padded length, the count and the
// residue offset.
const BlockBytes = 32*4 + 32*4 + 4 + 4 + 8

// Pad is the residue code of padding positions; kernels map it to a
// profile row that ends every path.
const Pad = 0xff

// Packed is one layout (one T) of a set of targets.
type Packed struct {
	Res, Table []byte // host copies
	NBlocks    int
}

// Pack lays out targets idx of dsqs for kernels with T threads per target.
// Blocks are planned in one pass and filled in parallel.
func Pack(dsqs [][]byte, idx []int, T int) *Packed { return packInto(nil, dsqs, whole(dsqs, idx), T) }

// entry is one row of a layout: residues [off, off+n) of target i. A
// plain layout has one entry per target, whole; a windowed layout
// (window.go) several for a long target, all with its number.
type entry struct{ i, off, n int }

func (e entry) residues(dsqs [][]byte) []byte { return dsqs[e.i][e.off : e.off+e.n] }

// whole is one entry per target of idx.
func whole(dsqs [][]byte, idx []int) []entry {
	es := make([]entry, len(idx))
	for k, i := range idx {
		es[k] = entry{i, 0, len(dsqs[i])}
	}
	return es
}

// layoutPlan is a layout without its residues: the entries longest
// first, S to a block; offs[b], each block's first residue byte (offs[nb]
// the total); and the block table. A plan makedb stored (stored.go) has
// no order: its entries are the database's targets whole, in the order
// they are numbered (sorted already), and building them was a cost the
// stored plan exists to save.
type layoutPlan struct {
	S, nb   int
	order   []entry
	targets [][]byte // the entries, whole, when order is nil
	offs    []int
	table   []byte
}

// count is the number of entries.
func (pl *layoutPlan) count() int {
	if pl.order == nil {
		return len(pl.targets)
	}
	return len(pl.order)
}

func planLayout(entries []entry, T int) *layoutPlan {
	S := 32 / T
	order := longestFirst(entries)
	nb := (len(order) + S - 1) / S
	pl := &layoutPlan{S: S, nb: nb, order: order, offs: make([]int, nb+1), table: make([]byte, nb*BlockBytes)}
	for b := 0; b < nb; b++ {
		pl.offs[b+1] = putBlock(pl.table[b*BlockBytes:(b+1)*BlockBytes], pl.group(b), S, pl.offs[b])
	}
	return pl
}

// putBlock writes the Block of group (at most S entries, longest first)
// whose residues start at byte off, and returns where the next block
// starts. makedb's stored tables (stored.go) are written by it too, so a
// stored table is byte for byte the one planned here.
func putBlock(blk []byte, group []entry, S, off int) (next int) {
	maxLen := (group[0].n + 3) &^ 3
	for g, e := range group {
		binary.LittleEndian.PutUint32(blk[4*g:], uint32(e.i))
		binary.LittleEndian.PutUint32(blk[128+4*g:], uint32(e.n))
	}
	binary.LittleEndian.PutUint32(blk[256:], uint32(maxLen))
	binary.LittleEndian.PutUint32(blk[260:], uint32(len(group)))
	binary.LittleEndian.PutUint64(blk[264:], uint64(off))
	return off + maxLen*S
}

// longestFirst is entries sorted by length, longest first, ties in their
// given order.
func longestFirst(entries []entry) []entry {
	order := make([]entry, len(entries))
	for k, i := range lenorder.LongestFirst(len(entries), func(i int) int { return entries[i].n }) {
		order[k] = entries[i]
	}
	return order
}

// group is block b's entries.
func (pl *layoutPlan) group(b int) []entry {
	lo, hi := b*pl.S, min(b*pl.S+pl.S, pl.count())
	if pl.order == nil {
		g := make([]entry, 0, pl.S)
		for k := lo; k < hi; k++ {
			g = append(g, entry{k, 0, len(pl.targets[k])})
		}
		return g
	}
	return pl.order[lo:hi]
}

// packInto is Pack of entries with the residues written into buf when it
// is large enough. Every byte of the layout is written, so buf may hold
// anything.
func packInto(buf []byte, dsqs [][]byte, entries []entry, T int) *Packed {
	return packPlan(buf, dsqs, planLayout(entries, T))
}

// packPlan lays out plan pl, as packInto.
func packPlan(buf []byte, dsqs [][]byte, pl *layoutPlan) *Packed {
	p := &Packed{NBlocks: pl.nb, Table: pl.table}
	if n := pl.offs[pl.nb]; cap(buf) >= n {
		p.Res = buf[:n]
	} else {
		p.Res = make([]byte, n)
	}
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := w; b < pl.nb; b += workers {
				packResidues(p.Res[pl.offs[b]:pl.offs[b+1]], dsqs, pl.group(b), pl.S)
			}
		}(w)
	}
	wg.Wait()
	return p
}

// packResidues writes one block's residues: word row r holds residues
// 4r..4r+3 of each of the S slots. Rows are written in order, whole
// words at a time (a copy call per four bytes cost more than the bytes),
// and only the slots and rows a target does not cover are padded.
func packResidues(body []byte, dsqs [][]byte, group []entry, S int) {
	const padWord = Pad * 0x01010101
	rows := len(body) / S / 4
	for g, e := range group {
		d := e.residues(dsqs)
		full := len(d) / 4
		r := 0
		for ; r < full; r++ {
			binary.LittleEndian.PutUint32(body[(r*S+g)*4:], binary.LittleEndian.Uint32(d[4*r:]))
		}
		if r < rows {
			w := uint32(padWord)
			for k, x := range d[4*r:] {
				w = w&^(0xff<<(8*k)) | uint32(x)<<(8*k)
			}
			binary.LittleEndian.PutUint32(body[(r*S+g)*4:], w)
			r++
		}
		for ; r < rows; r++ {
			binary.LittleEndian.PutUint32(body[(r*S+g)*4:], padWord)
		}
	}
	for g := len(group); g < S; g++ {
		for r := range rows {
			binary.LittleEndian.PutUint32(body[(r*S+g)*4:], padWord)
		}
	}
}

// DB is a target database resident on one GPU.
type DB struct {
	ctx  *cuda.Context
	Dsqs [][]byte // the targets, database order
	// mu guards the layouts; each is made outside it, so that the queries
	// in flight make the layouts of different shapes at once.
	mu      sync.Mutex
	layouts map[layoutKey]*layout
	// packMu guards onDevice, freed and packBuf.
	packMu sync.Mutex
	// onDevice holds the residues for layouts packed on the device
	// (devicepack.go), uploaded with the first layout.
	onDevice *devicePacker
	// freed is set by Free: an upload begun early (UploadResidues) that
	// comes after it must not make the residues resident again.
	freed bool
	// section, when set (UseResidues), holds every target's residues.
	section []byte
	// packBuf is reused by every layout packed on the host: a run makes
	// one per threads-per-target shape, each as large as the database,
	// and fresh memory for each cost more in page faults (taken by all
	// cores at once) than the packing itself.
	packBuf []byte
	// maxLen caches MaxLen (-1: not yet known).
	maxLen int
	// residues caches Residues, counted once: the SSV pass asks for it
	// every query (its windows' step), and a serial walk of 485,000
	// targets cost ~0.9 ms a query on its chain (docs/BENCHMARKS.md).
	residuesOnce sync.Once
	residues     int64
	// lens caches Lengths.
	lensOnce sync.Once
	lens     []int32
	// stored is the plan makedb stored for these targets (UseStoredPlan).
	stored *StoredPlan
}

// layout is one shape's layout: ready when done is closed.
type layout struct {
	done chan struct{}
	d    *Device
	err  error
}

// Device is one layout on the device.
type Device struct {
	Res, Table *cuda.Buffer
	NBlocks    int
}

// New makes a database of dsqs for ctx; layouts are made on demand.
func New(ctx *cuda.Context, dsqs [][]byte) *DB {
	return &DB{ctx: ctx, Dsqs: dsqs, layouts: map[layoutKey]*layout{}, maxLen: -1}
}

// Layout returns the T-threads-per-target layout of all targets, making
// it the first time: on the device (the residues are uploaded once for
// every layout; see devicepack.go), or on the host with
// HMMGO_GPUDB_PACK=host. Callers wanting the same shape wait for the one
// making it; a failure is not kept (the next call tries again).
func (db *DB) Layout(T int) (*Device, error) { return db.layoutFor(layoutKey{T: T}) }

// layoutKey names a layout: T threads per target, and for a windowed
// layout (window.go) the windows' step and overlap (0 for whole targets).
type layoutKey struct{ T, step, overlap int }

func (db *DB) layoutFor(key layoutKey) (*Device, error) {
	db.mu.Lock()
	if l := db.layouts[key]; l != nil {
		db.mu.Unlock()
		<-l.done
		if l.err != nil {
			return db.layoutFor(key)
		}
		return l.d, nil
	}
	l := &layout{done: make(chan struct{})}
	db.layouts[key] = l
	db.mu.Unlock()
	l.d, l.err = db.makeLayout(key)
	if l.err != nil {
		db.mu.Lock()
		delete(db.layouts, key)
		db.mu.Unlock()
	}
	close(l.done)
	return l.d, l.err
}

func (db *DB) makeLayout(key layoutKey) (*Device, error) {
	defer Layouts.Held(time.Now())
	pl, err := db.planFor(key)
	if err != nil {
		return nil, err
	}
	if hostPacking() {
		db.packMu.Lock()
		defer db.packMu.Unlock()
		p := packPlan(db.packBuf, db.Dsqs, pl)
		db.packBuf = p.Res
		return Upload(db.ctx, p)
	}
	return db.packOnDevice(pl)
}

// planFor is the plan of a layout of all targets: makedb's, when the
// database has it for this shape (stored.go), else planned here.
func (db *DB) planFor(key layoutKey) (*layoutPlan, error) {
	if key.step == 0 {
		if pl, err := db.storedPlan(key.T); pl != nil || err != nil {
			return pl, err
		}
	}
	all := make([]int, len(db.Dsqs))
	for i := range all {
		all[i] = i
	}
	entries := whole(db.Dsqs, all)
	if key.step > 0 {
		entries = windows(db.Dsqs, all, key.step, key.overlap)
	}
	return planLayout(entries, key.T), nil
}

// Upload copies a packed layout to the device.
func Upload(ctx *cuda.Context, p *Packed) (*Device, error) {
	res, err := ctx.Alloc(len(p.Res) + 16)
	if err != nil {
		return nil, err
	}
	table, err := ctx.Alloc(len(p.Table) + BlockBytes)
	if err != nil {
		res.Free()
		return nil, err
	}
	if len(p.Res) > 0 {
		if err := res.CopyFromHost(0, p.Res); err != nil {
			return nil, err
		}
	}
	if len(p.Table) > 0 {
		if err := table.CopyFromHost(0, p.Table); err != nil {
			return nil, err
		}
	}
	// Kernels on other streams (Lanes) read it: the copies must be in.
	if err := ctx.SynchronizeDefault(); err != nil {
		return nil, err
	}
	return &Device{Res: res, Table: table, NBlocks: p.NBlocks}, nil
}

// Free releases a layout's device memory.
func (d *Device) Free() {
	d.Res.Free()
	d.Table.Free()
}

// Free releases every layout of the database (none may be in the
// making).
func (db *DB) Free() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for key, l := range db.layouts {
		if l.d != nil {
			l.d.Free()
		}
		delete(db.layouts, key)
	}
	db.packMu.Lock()
	defer db.packMu.Unlock()
	db.freed = true
	if db.onDevice != nil {
		db.onDevice.free()
		db.onDevice = nil
	}
}

// Residues is the number of residues in the database.
func (db *DB) Residues() int64 {
	db.residuesOnce.Do(func() {
		for _, d := range db.Dsqs {
			db.residues += int64(len(d))
		}
	})
	return db.residues
}

// Lengths are the targets' lengths, in their order: a pass over every
// target's result reads 4 bytes a target from them instead of a 24-byte
// slice header.
func (db *DB) Lengths() []int32 {
	db.lensOnce.Do(func() {
		db.lens = make([]int32, len(db.Dsqs))
		for i, d := range db.Dsqs {
			db.lens[i] = int32(len(d))
		}
	})
	return db.lens
}
