package seqdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

// Error is a problem with a database file; it prints as "path: message".
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// DB is an open database. Its residues, names, accessions and
// descriptions are views of the mapped file: valid, and read-only, until
// Close. Methods are safe for concurrent use.
type DB struct {
	path string
	data []byte // the whole file
	abc  *alphabet.Alphabet
	nseq int
	nres int64
	max  int

	res                []byte // RESI
	seqx               []byte // SEQX: nseq+1 little-endian u64
	names, accs, descs strtab2
	sections           []entry
	unmap              func() error

	// order is LengthOrder's answer, checked the first time it is asked
	// for (a CPU search never needs it).
	orderOnce sync.Once
	order     []int
	orderErr  error
}

// strtab2 is a mapped string table: n+1 offsets, then the bytes.
type strtab2 struct {
	offs, heap []byte
}

func (t *strtab2) get(i int) string {
	if t.offs == nil {
		return ""
	}
	a := binary.LittleEndian.Uint64(t.offs[8*i:])
	b := binary.LittleEndian.Uint64(t.offs[8*i+8:])
	if a == b {
		return ""
	}
	// The string shares the mapped bytes: no copy, no allocation.
	return unsafe.String(&t.heap[a], int(b-a))
}

// IsDB reports whether the file at path starts with the database magic.
func IsDB(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(Magic)]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == Magic
}

// Open maps the database at path and checks it: magic, version, the
// end marker and file size (a file cut short), every checksum, and the
// structure of the sections it reads.
func Open(path string) (*DB, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{path, "cannot open database: " + err.Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	size := st.Size()
	if size < int64(len(Magic)) {
		return nil, &Error{path, "not an hmmgo database (too short for its magic bytes)"}
	}
	data, unmap, err := mapFile(f, size)
	if err != nil {
		return nil, &Error{path, "cannot map database: " + err.Error()}
	}
	db := &DB{path: path, data: data, unmap: unmap}
	if err := db.check(); err != nil {
		db.Close()
		return nil, &Error{path, err.Error()}
	}
	return db, nil
}

// OpenBytes checks a database held in memory (a block fetched from
// Redis, for one) exactly as Open checks a file; name labels its errors
// ("name: message"). The DB reads data in place: it must not change
// while the DB or sequences read from it are in use.
func OpenBytes(name string, data []byte) (*DB, error) {
	if len(data) < len(Magic) {
		return nil, &Error{name, "not an hmmgo database (too short for its magic bytes)"}
	}
	db := &DB{path: name, data: data}
	if err := db.check(); err != nil {
		return nil, &Error{name, err.Error()}
	}
	return db, nil
}

// Close unmaps the file. Sequences read from the database must not be
// used afterwards.
func (db *DB) Close() error {
	if db.unmap == nil {
		return nil
	}
	err := db.unmap()
	db.unmap, db.data, db.res = nil, nil, nil
	return err
}

func (db *DB) check() error {
	d := db.data
	if string(d[:len(Magic)]) != Magic {
		return errors.New("not an hmmgo database (bad magic bytes)")
	}
	if len(d) < preambleSize+trailerSize {
		return errors.New("truncated: shorter than a database's header and trailer")
	}
	alpha, err := decodePreamble(d[:preambleSize])
	if err != nil {
		return err
	}
	switch t := alphabet.Type(alpha); t {
	case alphabet.Amino, alphabet.DNA, alphabet.RNA:
		db.abc = alphabet.New(t)
	default:
		return fmt.Errorf("unknown alphabet code %d in the header", alpha)
	}
	tb := d[len(d)-trailerSize:]
	if string(tb[trailerSize-len(endMagic):]) != endMagic {
		return errors.New("truncated or incompletely written: no end marker")
	}
	tr, ok := decodeTrailer(tb)
	if !ok {
		return errors.New("checksum mismatch in the trailer (the file is corrupt)")
	}
	if tr.size != uint64(len(d)) {
		return fmt.Errorf("the trailer says %d bytes, the file has %d (truncated or appended to)", tr.size, len(d))
	}
	tableEnd := tr.tableOff + uint64(tr.nsections)*entrySize
	if tr.tableOff < preambleSize || tr.nsections > 1<<20 || tableEnd != uint64(len(d)-trailerSize) {
		return errors.New("corrupt trailer: the section table is out of place")
	}
	table := d[tr.tableOff:tableEnd]
	if crc32.Checksum(table, castagnoli) != tr.tableCRC {
		return errors.New("checksum mismatch in the section table (the file is corrupt)")
	}
	if tr.nseq > 1<<40 || tr.maxLen > 1<<40 {
		return errors.New("corrupt trailer: impossible counts")
	}
	db.nseq, db.nres, db.max = int(tr.nseq), int64(tr.nres), int(tr.maxLen)
	seen := map[[2]uint64]bool{}
	for i := 0; i < int(tr.nsections); i++ {
		e := decodeEntry(table[i*entrySize:])
		if e.offset < preambleSize || e.offset > tr.tableOff || e.length > tr.tableOff-e.offset || e.offset%Align != 0 {
			return fmt.Errorf("section %s lies outside the file's data", e.tag)
		}
		key := [2]uint64{uint64(binary.LittleEndian.Uint32(e.tag[:])), e.param}
		if seen[key] {
			return fmt.Errorf("section %s/%d appears twice", e.tag, e.param)
		}
		seen[key] = true
		if !known(e.tag) && e.flags&FlagCritical != 0 {
			return fmt.Errorf("section %s is not known to this hmmgo (made by a newer version?)", e.tag)
		}
		db.sections = append(db.sections, e)
	}
	if err := db.verifyChecksums(); err != nil {
		return err
	}
	return db.structure()
}

// verifyChecksums checks every section's CRC-32C, the sections in
// parallel.
func (db *DB) verifyChecksums() error {
	errs := make([]error, len(db.sections))
	var wg sync.WaitGroup
	for i, e := range db.sections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if crc32.Checksum(db.bytes(e), castagnoli) != e.crc {
				errs[i] = fmt.Errorf("checksum mismatch in section %s (the file is corrupt)", e.name())
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (db *DB) bytes(e entry) []byte {
	b := db.data[e.offset : e.offset+e.length]
	return b[:len(b):len(b)]
}

func (db *DB) find(tag Tag, param uint64) ([]byte, bool) {
	for _, e := range db.sections {
		if e.tag == tag && e.param == param {
			return db.bytes(e), true
		}
	}
	return nil, false
}

// structure checks what the accessors rely on, so that no slice
// expression can go out of range later: the index is monotonic with a
// sentinel between sequences, lengths add up to the counts, and every
// string table has n+1 monotonic offsets inside its bytes.
func (db *DB) structure() error {
	var ok bool
	if db.res, ok = db.find(TagResidues, 0); !ok {
		return errors.New("no residue section")
	}
	if db.seqx, ok = db.find(TagSeqIndex, 0); !ok {
		return errors.New("no sequence index section")
	}
	n := db.nseq
	if uint64(len(db.seqx)) != 8*(uint64(n)+1) {
		return fmt.Errorf("the sequence index has %d bytes for %d sequences", len(db.seqx), n)
	}
	le := binary.LittleEndian
	prev := uint64(0)
	var total int64
	maxLen := 0
	for i := 0; i <= n; i++ {
		x := le.Uint64(db.seqx[8*i:])
		if x < prev+1 || x > uint64(len(db.res)) || db.res[x-1] != Sentinel {
			return fmt.Errorf("the sequence index is inconsistent at sequence %d", i+1)
		}
		if i > 0 {
			l := int(x - prev - 1)
			total += int64(l)
			maxLen = max(maxLen, l)
		}
		prev = x
	}
	if prev != uint64(len(db.res)) || total != db.nres || maxLen != db.max {
		return errors.New("the sequence index does not match the residue counts")
	}
	for _, s := range []struct {
		tag      Tag
		t        *strtab2
		required bool
	}{{TagNames, &db.names, true}, {TagAccs, &db.accs, false}, {TagDescs, &db.descs, false}} {
		b, ok := db.find(s.tag, 0)
		if !ok {
			if s.required {
				return fmt.Errorf("no %s section", s.tag)
			}
			continue
		}
		head := 8 * (uint64(n) + 1)
		if uint64(len(b)) < head {
			return fmt.Errorf("section %s is too short for %d sequences", s.tag, n)
		}
		s.t.offs, s.t.heap = b[:head:head], b[head:]
		prev := uint64(0)
		for i := 0; i <= n; i++ {
			x := le.Uint64(s.t.offs[8*i:])
			if x < prev || x > uint64(len(s.t.heap)) {
				return fmt.Errorf("section %s is inconsistent at sequence %d", s.tag, i+1)
			}
			prev = x
		}
		if prev != uint64(len(s.t.heap)) {
			return fmt.Errorf("section %s has trailing bytes", s.tag)
		}
	}
	return nil
}

func known(t Tag) bool { return writtenByWriter(t) || t == TagLengthOrder }

// writtenByWriter reports whether the Writer writes sections of tag t
// itself (AddSection refuses them).
func writtenByWriter(t Tag) bool {
	switch t {
	case TagResidues, TagSeqIndex, TagNames, TagAccs, TagDescs, TagMeta:
		return true
	}
	return false
}

// Path is the file the database was opened from.
func (db *DB) Path() string { return db.path }

// Alphabet is the alphabet of the residue codes.
func (db *DB) Alphabet() *alphabet.Alphabet { return db.abc }

// NumSeqs is the number of sequences.
func (db *DB) NumSeqs() int { return db.nseq }

// NumResidues is the total length of all sequences.
func (db *DB) NumResidues() int64 { return db.nres }

// MaxLength is the length of the longest sequence.
func (db *DB) MaxLength() int { return db.max }

func (db *DB) start(i int) uint64 { return binary.LittleEndian.Uint64(db.seqx[8*i:]) }

// Len is the length of sequence i (0-based).
func (db *DB) Len(i int) int { return int(db.start(i+1) - db.start(i) - 1) }

// Residues returns sequence i's digital residues, a read-only view of
// the file: Residues(i)[-1] and [L] (in the underlying array) are
// sentinels. Its capacity is its length, so append copies.
func (db *DB) Residues(i int) []byte {
	a, b := db.start(i), db.start(i+1)-1
	return db.res[a:b:b]
}

// ResidueSection is every sequence's residues back to back, each
// followed by one separator byte: the mapped bytes Residues slices.
func (db *DB) ResidueSection() []byte { return db.res }

// Name, Acc and Desc return sequence i's name, accession and description
// ("" when absent), sharing the file's bytes.
func (db *DB) Name(i int) string { return db.names.get(i) }
func (db *DB) Acc(i int) string  { return db.accs.get(i) }
func (db *DB) Desc(i int) string { return db.descs.get(i) }

// Sequence sets s to sequence i, without copying.
func (db *DB) Sequence(i int, s *seqio.Sequence) {
	s.Name, s.Acc, s.Desc, s.Dsq = db.Name(i), db.Acc(i), db.Desc(i), db.Residues(i)
}

// Section returns the bytes of a section by tag and param, for layouts
// other packages define (GPU warp blocks, shard metadata).
func (db *DB) Section(tag Tag, param uint64) ([]byte, bool) { return db.find(tag, param) }

// Meta returns the META section's "key=value" lines.
func (db *DB) Meta() []string {
	b, ok := db.find(TagMeta, 0)
	if !ok {
		return nil
	}
	var out []string
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}) {
		out = append(out, string(l))
	}
	return out
}

// Source reads the database in order, as a search's SequenceSource.
type Source struct {
	db   *DB
	next int
	slab []seqio.Sequence
}

// NewSource returns a reader positioned at the first sequence.
func (db *DB) NewSource() *Source { return &Source{db: db} }

// slabSize is how many Sequence headers a Source allocates at once.
const slabSize = 1024

// Read returns the next sequence, or io.EOF after the last. Each call
// returns a distinct Sequence whose fields are views of the file.
func (s *Source) Read() (*seqio.Sequence, error) {
	if s.next >= s.db.nseq {
		return nil, io.EOF
	}
	if len(s.slab) == 0 {
		s.slab = make([]seqio.Sequence, min(slabSize, s.db.nseq-s.next))
	}
	sq := &s.slab[0]
	s.slab = s.slab[1:]
	s.db.Sequence(s.next, sq)
	s.next++
	return sq, nil
}

// ReadInto sets sq to the next sequence (a view of the file); io.EOF
// after the last.
func (s *Source) ReadInto(sq *seqio.Sequence) error {
	if s.next >= s.db.nseq {
		return io.EOF
	}
	s.db.Sequence(s.next, sq)
	s.next++
	return nil
}

// DB is the database the source reads, for callers that want more than
// a stream (the GPU path: lengths, layout sections).
func (s *Source) DB() *DB { return s.db }

// Close does nothing: the DB stays open for other sources.
func (s *Source) Close() error { return nil }
