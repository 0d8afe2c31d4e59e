package gpudb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/internal/lenorder"
	"github.com/hmmgo/hmmgo/seqdb"
)

// Layouts planned once, by makedb. A layout's plan (the targets longest
// first, the warp-block table) depends only on the targets' lengths, so
// `hmmgo makedb` stores it in the database (docs/seqdb-format.md): the
// order of all sequences (seqdb's LORD section) and, for the standard
// shapes, the block table of the whole-database layout (WTAB, param T)
// with targets numbered by their place in that order. A search whose one
// GPU holds the whole database in that order (hmmsearch --gpu on one
// device) uploads the stored table as it is, from the mapping; a split
// (several GPUs, a shard, a worker's block) numbers its targets
// differently and plans as before.

// TagBlockTable is the section of a stored block table; its param is T.
var TagBlockTable = seqdb.Tag{'W', 'T', 'A', 'B'}

// StandardThreads are the shapes makedb stores tables for by default:
// T = 1, the bias filter's (every query); T = 8, the SSV/MSV filter's for
// models of 96 to 383 nodes (most of Pfam), unwindowed while the longest
// target fits a warp's share of the database; T = 4, SSV's for 48 to 95
// nodes and the Forward parser's over all targets. The other shapes
// (T = 2, 16, 32) cost more bytes per target (a Block is 272 bytes
// whatever its S = 32/T targets) for rarer models; makedb --gpu-layouts
// adds them.
var StandardThreads = []int{1, 4, 8}

// ValidThreads reports whether T is a shape the kernels use: a power of
// two from 1 to 32.
func ValidThreads(T int) bool { return T >= 1 && T <= 32 && T&(T-1) == 0 }

// TableBytes is the size of the block table of n targets for T threads
// per target.
func TableBytes(n, T int) int64 {
	S := 32 / T
	return int64((n+S-1)/S) * BlockBytes
}

// WriteBlockTable writes the block table of n whole targets, the k-th
// having length(k) residues and numbered k (so length must not
// increase), for T threads per target: what planLayout makes for them,
// written a block at a time.
func WriteBlockTable(w io.Writer, n int, length func(k int) int, T int) error {
	S := 32 / T
	blk := make([]byte, BlockBytes)
	group := make([]entry, 0, S)
	off := 0
	for lo := 0; lo < n; lo += S {
		group = group[:0]
		for k := lo; k < min(lo+S, n); k++ {
			group = append(group, entry{k, 0, length(k)})
		}
		clear(blk)
		off = putBlock(blk, group, S, off)
		if _, err := w.Write(blk); err != nil {
			return err
		}
	}
	return nil
}

// AddStoredPlan adds to w what hmmsearch --gpu would otherwise plan at
// every start, for sequences of lengths lens (database order): their
// order longest first (seqdb's LORD) and, for each shape T of layouts,
// the block table of the whole database in that order (WTAB/T), written
// block by block as w is closed.
func AddStoredPlan(w *seqdb.Writer, lens []uint32, layouts []int) error {
	order := lenorder.LongestFirst(len(lens), func(i int) int { return int(lens[i]) })
	lord, err := seqdb.EncodeLengthOrder(order)
	if err != nil {
		return err
	}
	if err := w.AddSection(seqdb.TagLengthOrder, 0, 0, lord); err != nil {
		return err
	}
	length := func(k int) int { return int(lens[order[k]]) }
	for _, T := range layouts {
		if !ValidThreads(T) {
			return fmt.Errorf("gpudb: no layout has %d threads per target", T)
		}
		err := w.AddSectionFunc(TagBlockTable, uint64(T), 0, func(out io.Writer) error {
			return WriteBlockTable(out, len(order), length, T)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// StoredPlan is what makedb planned for a database: the order of its
// sequences and the block tables it stored, views of the mapped file.
type StoredPlan struct {
	name   string // the file, for errors
	Order  []int  // sequence numbers longest first, ties in database order
	tables map[int][]byte
}

// LoadStoredPlan reads the stored plan of sdb; nil (and no error) when the
// file has none. Sections of the wrong size are errors naming the file.
func LoadStoredPlan(sdb *seqdb.DB) (*StoredPlan, error) {
	order, err := sdb.LengthOrder()
	if err != nil || order == nil {
		return nil, err
	}
	sp := &StoredPlan{name: sdb.Path(), Order: order, tables: map[int][]byte{}}
	for T := 1; T <= 32; T *= 2 {
		b, ok := sdb.Section(TagBlockTable, uint64(T))
		if !ok {
			continue
		}
		if want := TableBytes(len(order), T); int64(len(b)) != want {
			return nil, &seqdb.Error{Path: sp.name, Msg: fmt.Sprintf("section %s/%d has %d bytes; a block table of %d sequences has %d (the file is corrupt; remake it with hmmgo makedb)", TagBlockTable, T, len(b), len(order), want)}
		}
		sp.tables[T] = b
	}
	return sp, nil
}

// Threads lists the shapes the plan has tables for.
func (sp *StoredPlan) Threads() []int {
	var ts []int
	for T := 1; T <= 32; T *= 2 {
		if sp.tables[T] != nil {
			ts = append(ts, T)
		}
	}
	return ts
}

// UseStoredPlan gives db the plan of its database, whose sequences db
// holds in the plan's order (Dsqs[k] is sequence Order[k]); whole-target
// layouts of the shapes it has are then taken from it. A db with another
// number of targets (a split) keeps planning its own, and UseStoredPlan
// reports false.
func (db *DB) UseStoredPlan(sp *StoredPlan) bool {
	if sp == nil || len(sp.Order) != len(db.Dsqs) {
		return false
	}
	db.mu.Lock()
	db.stored = sp
	db.mu.Unlock()
	return true
}

var zeroSlots [128]byte

// StoredLayouts counts the layouts made from a stored plan, for the
// stage-time report.
var StoredLayouts atomic.Int64

// HasStoredPlan reports whether db takes whole-target layouts from a
// stored plan (UseStoredPlan).
func (db *DB) HasStoredPlan() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.stored != nil
}

// storedPlan is the stored plan of the whole-target layout for T, nil
// when there is none. The table is checked against the targets, in
// a pass that writes nothing: it must be exactly the one planLayout
// would make (targets numbered in order, lengths not increasing, every
// field as planned), so that no kernel reads outside a block; anything
// else means the file does not hold what its checksums vouch for.
func (db *DB) storedPlan(T int) (*layoutPlan, error) {
	db.mu.Lock()
	sp := db.stored
	db.mu.Unlock()
	if sp == nil || sp.tables[T] == nil {
		return nil, nil
	}
	table, dsqs := sp.tables[T], db.Dsqs
	S := 32 / T
	nb := (len(dsqs) + S - 1) / S
	pl := &layoutPlan{S: S, nb: nb, targets: dsqs, offs: make([]int, nb+1), table: table}
	le := binary.LittleEndian
	prev := int(^uint(0) >> 1)
	for b := 0; b < nb; b++ {
		blk := table[b*BlockBytes : (b+1)*BlockBytes]
		lo, hi := b*S, min(b*S+S, len(dsqs))
		maxLen := (len(dsqs[lo]) + 3) &^ 3
		ok := le.Uint32(blk[256:]) == uint32(maxLen) && le.Uint32(blk[260:]) == uint32(hi-lo) &&
			le.Uint64(blk[264:]) == uint64(pl.offs[b])
		for k := lo; ok && k < hi; k++ {
			g, L := k-lo, len(dsqs[k])
			ok = le.Uint32(blk[4*g:]) == uint32(k) && le.Uint32(blk[128+4*g:]) == uint32(L) && L <= prev
			prev = L
		}
		// Slots past the block's targets are zero, as planned.
		c := 4 * (hi - lo)
		ok = ok && bytes.Equal(blk[c:128], zeroSlots[:128-c]) && bytes.Equal(blk[128+c:256], zeroSlots[:128-c])
		if !ok {
			return nil, &seqdb.Error{Path: sp.name, Msg: fmt.Sprintf("section %s/%d does not match the sequences at block %d (the file is corrupt; remake it with hmmgo makedb)", TagBlockTable, T, b+1)}
		}
		pl.offs[b+1] = pl.offs[b] + maxLen*S
	}
	StoredLayouts.Add(1)
	return pl, nil
}
