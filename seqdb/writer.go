package seqdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

// Options tune a Writer.
type Options struct {
	// TempDir holds the temporary files of large databases' names and
	// descriptions ("" is the system's default); put it beside the output.
	TempDir string
	// Meta lines ("key=value") for the META section, e.g. the source.
	Meta []string
}

// Writer writes a database in one pass, in order: the preamble, the
// residues as sequences arrive, then the sections spooled meanwhile, the
// section table and the trailer. It never seeks, so the output may be
// any io.Writer (a cli.OutputFile, a pipe, a network stream).
type Writer struct {
	out  *bufio.Writer
	off  uint64 // bytes written so far
	abc  *alphabet.Alphabet
	opts Options

	resStart, resLen uint64
	resCRC           uint32
	nseq, nres       uint64
	maxLen           uint64

	seqx               *spool // start of each sequence in RESI, u64
	names, accs, descs strtab
	anyAcc, anyDesc    bool
	extra              []extraSection
	entries            []entry
	err                error
	closed             bool
}

type extraSection struct {
	tag   Tag
	param uint64
	flags uint32
	write func(io.Writer) error
}

// strtab is a string table in the making: offsets and bytes.
type strtab struct {
	offs, heap *spool
}

func newStrtab(dir string) strtab { return strtab{newSpool(dir), newSpool(dir)} }

func (t *strtab) add(s string) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], t.heap.n)
	t.offs.Write(b[:])
	t.heap.Write([]byte(s))
}

func (t *strtab) discard() { t.offs.discard(); t.heap.discard() }

// NewWriter starts a database of sequences in alphabet abc on w.
func NewWriter(w io.Writer, abc *alphabet.Alphabet, opts Options) (*Writer, error) {
	if abc == nil {
		return nil, errors.New("seqdb: no alphabet")
	}
	dw := &Writer{
		out: bufio.NewWriterSize(w, 1<<20), abc: abc, opts: opts,
		seqx:  newSpool(opts.TempDir),
		names: newStrtab(opts.TempDir), accs: newStrtab(opts.TempDir), descs: newStrtab(opts.TempDir),
	}
	dw.write(encodePreamble(uint32(abc.Type)))
	dw.resStart = dw.off
	dw.writeResidues([]byte{Sentinel})
	return dw, dw.err
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.out.Write(p)
	w.off += uint64(n)
	w.err = err
}

func (w *Writer) writeResidues(p []byte) {
	w.write(p)
	w.resCRC = crc32.Update(w.resCRC, castagnoli, p)
	w.resLen += uint64(len(p))
}

func (w *Writer) pad() {
	var zeros [Align]byte
	w.write(zeros[:padding(w.off)])
}

// Add appends one sequence. Its residues must be codes of the Writer's
// alphabet (0..Kp-1), as seqio reads them.
func (w *Writer) Add(s *seqio.Sequence) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("seqdb: Add after Close")
	}
	kp := byte(w.abc.Kp)
	for i, x := range s.Dsq {
		if x >= kp {
			return fmt.Errorf("sequence %s: residue %d has code %d, not one of the %s alphabet's %d", s.Name, i+1, x, w.abc.Type, kp)
		}
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], w.resLen)
	w.seqx.Write(b[:])
	w.writeResidues(s.Dsq)
	w.writeResidues([]byte{Sentinel})
	w.names.add(s.Name)
	w.accs.add(s.Acc)
	w.descs.add(s.Desc)
	w.anyAcc = w.anyAcc || s.Acc != ""
	w.anyDesc = w.anyDesc || s.Desc != ""
	w.nseq++
	w.nres += uint64(len(s.Dsq))
	w.maxLen = max(w.maxLen, uint64(len(s.Dsq)))
	for _, sp := range []*spool{w.seqx, w.names.offs, w.names.heap, w.accs.offs, w.accs.heap, w.descs.offs, w.descs.heap} {
		if sp.err != nil && w.err == nil {
			w.err = sp.err
		}
	}
	return w.err
}

// AddSection adds a section of another kind (a GPU layout, shard
// metadata), written after the standard ones. Tags and params must be
// unique; the standard tags are taken.
func (w *Writer) AddSection(tag Tag, param uint64, flags uint32, data []byte) error {
	return w.AddSectionFunc(tag, param, flags, bytesPart(data))
}

// AddSectionFunc is AddSection with the bytes written by write during
// Close, so that a large section (a GPU block table) need not be held
// in memory whole.
func (w *Writer) AddSectionFunc(tag Tag, param uint64, flags uint32, write func(io.Writer) error) error {
	if writtenByWriter(tag) {
		return fmt.Errorf("seqdb: section %s is written by the Writer itself", tag)
	}
	for _, x := range w.extra {
		if x.tag == tag && x.param == param {
			return fmt.Errorf("seqdb: section %s/%d added twice", tag, param)
		}
	}
	w.extra = append(w.extra, extraSection{tag, param, flags, write})
	return nil
}

// Stats describes a finished database.
type Stats struct {
	Sequences, Residues int64
	MaxLength           int
	Bytes               int64
}

// section writes one section from its parts, aligned, with its checksum.
func (w *Writer) section(tag Tag, param uint64, flags uint32, parts ...func(io.Writer) error) {
	w.pad()
	if w.err != nil {
		return
	}
	e := entry{tag: tag, param: param, flags: flags, offset: w.off}
	cw := &crcWriter{w: w}
	for _, part := range parts {
		if err := part(cw); err != nil && w.err == nil {
			w.err = err
		}
	}
	e.length, e.crc = cw.n, cw.crc
	w.entries = append(w.entries, e)
}

type crcWriter struct {
	w   *Writer
	crc uint32
	n   uint64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.w.write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p)
	c.n += uint64(len(p))
	return len(p), c.w.err
}

func bytesPart(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

func u64(v uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b[:]
}

func (w *Writer) strtabSection(tag Tag, t *strtab) {
	w.section(tag, 0, FlagCritical, t.offs.copyTo, bytesPart(u64(t.heap.n)), t.heap.copyTo)
}

// Close writes the remaining sections, the table and the trailer, and
// flushes. The underlying writer is not closed.
func (w *Writer) Close() (Stats, error) {
	defer w.discard()
	if w.closed {
		return Stats{}, errors.New("seqdb: Close called twice")
	}
	w.closed = true
	e := entry{tag: TagResidues, flags: FlagCritical, offset: w.resStart, length: w.resLen, crc: w.resCRC}
	w.entries = append(w.entries, e)
	w.section(TagSeqIndex, 0, FlagCritical, w.seqx.copyTo, bytesPart(u64(w.resLen)))
	w.strtabSection(TagNames, &w.names)
	if w.anyAcc {
		w.strtabSection(TagAccs, &w.accs)
	}
	if w.anyDesc {
		w.strtabSection(TagDescs, &w.descs)
	}
	if len(w.opts.Meta) > 0 {
		var meta []byte
		for _, l := range w.opts.Meta {
			meta = append(meta, l...)
			meta = append(meta, '\n')
		}
		w.section(TagMeta, 0, 0, bytesPart(meta))
	}
	sort.SliceStable(w.extra, func(a, b int) bool { return w.extra[a].tag.String() < w.extra[b].tag.String() })
	for _, x := range w.extra {
		w.section(x.tag, x.param, x.flags, x.write)
	}
	w.pad()
	tr := trailer{tableOff: w.off, nsections: uint32(len(w.entries)), nseq: w.nseq, nres: w.nres, maxLen: w.maxLen}
	table := make([]byte, entrySize*len(w.entries))
	for i := range w.entries {
		w.entries[i].encode(table[i*entrySize:])
	}
	tr.tableCRC = crc32.Checksum(table, castagnoli)
	w.write(table)
	tr.size = w.off + trailerSize
	w.write(tr.encode())
	if w.err == nil {
		w.err = w.out.Flush()
	}
	st := Stats{Sequences: int64(w.nseq), Residues: int64(w.nres), MaxLength: int(w.maxLen), Bytes: int64(w.off)}
	return st, w.err
}

// discard drops the temporary files.
func (w *Writer) discard() {
	w.seqx.discard()
	w.names.discard()
	w.accs.discard()
	w.descs.discard()
}

// Abort drops the temporary files of a Writer that will not be closed.
func (w *Writer) Abort() { w.closed = true; w.discard() }
