// Package seqdb is hmmgo's pre-formatted sequence database (.hmmgo): the
// digital residues of one alphabet, lengths, names, accessions and
// descriptions of every sequence, memory-mapped so that a search reads
// targets without parsing or copying them. The file is versioned,
// checksummed section by section (CRC-32C, verified on open) and made of
// tagged sections, so later layouts (GPU warp blocks per threads-per-
// target, shard metadata) are added as new sections without changing the
// ones that exist. docs/seqdb-format.md describes the bytes.
package seqdb

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Magic opens every .hmmgo file. The first byte is not ASCII, so no text
// database (FASTA, EMBL, GenBank) starts like this.
const Magic = "\x89HMMGODB"

// endMagic closes every complete file: a file cut short lacks it.
const endMagic = "HMMGOEND"

// Version is the format version this package writes and reads.
const Version = 1

const (
	preambleSize = 64
	trailerSize  = 64
	entrySize    = 48
	// Align is the alignment of every section in the file (and therefore
	// in memory once mapped): enough for 8-byte integers, cache lines and
	// the DMA of GPU uploads.
	Align = 64
)

// Sentinel is the byte before and after every sequence's residues (as
// Easel's digital sequences carry), so a kernel may read dsq[-1] and
// dsq[L] of a zero-copy slice.
const Sentinel = 0xff

// Tag names a section: four ASCII bytes.
type Tag [4]byte

func (t Tag) String() string { return string(t[:]) }

// Section tags this version knows.
var (
	TagResidues = Tag{'R', 'E', 'S', 'I'} // digital residues, a sentinel before each sequence and after the last
	TagSeqIndex = Tag{'S', 'E', 'Q', 'X'} // n+1 uint64: start of each sequence in RESI; the last is len(RESI)
	TagNames    = Tag{'N', 'A', 'M', 'E'} // string table
	TagAccs     = Tag{'A', 'C', 'C', 'S'} // string table; absent when no sequence has one
	TagDescs    = Tag{'D', 'E', 'S', 'C'} // string table; absent when no sequence has one
	TagMeta     = Tag{'M', 'E', 'T', 'A'} // "key=value\n" lines about the file's making
	// TagLengthOrder is optional (makedb writes it; older files lack it):
	// n uint32, the sequences longest first, ties in database order.
	TagLengthOrder = Tag{'L', 'O', 'R', 'D'}
)

// FlagCritical marks a section a reader must understand: one that does
// not know its tag refuses the file instead of ignoring the section.
const FlagCritical = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The preamble (the first 64 bytes) holds what a reader must know before
// anything else and a writer knows before the first sequence: magic[8]
// version u32 size u32 alphabet u32 flags u32, zeros to byte 60, crc32c
// of bytes 0..59. Counts are only known at the end, so they are in the
// trailer.
func encodePreamble(alpha uint32) []byte {
	b := make([]byte, preambleSize)
	copy(b, Magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], Version)
	le.PutUint32(b[12:], preambleSize)
	le.PutUint32(b[16:], alpha)
	le.PutUint32(b[60:], crc32.Checksum(b[:60], castagnoli))
	return b
}

// decodePreamble checks b (preambleSize bytes, magic already checked)
// and returns the alphabet type.
func decodePreamble(b []byte) (alpha uint32, err error) {
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != Version {
		// Checked before the checksum: another version may lay out (and
		// checksum) its preamble differently.
		return 0, fmt.Errorf("format version %d; this hmmgo reads version %d (remake the database with this hmmgo's makedb)", v, Version)
	}
	if le.Uint32(b[12:]) != preambleSize || crc32.Checksum(b[:60], castagnoli) != le.Uint32(b[60:]) {
		return 0, fmt.Errorf("checksum mismatch in the file header (the file is corrupt)")
	}
	return le.Uint32(b[16:]), nil
}

// entry is one row of the section table.
type entry struct {
	tag    Tag
	flags  uint32
	param  uint64 // meaning depends on the tag (e.g. threads per target)
	offset uint64
	length uint64
	crc    uint32
}

// Entry layout: tag[4] flags u32 param u64 offset u64 length u64 crc u32,
// zeros to 48 bytes.
func (e *entry) encode(b []byte) {
	le := binary.LittleEndian
	copy(b, e.tag[:])
	le.PutUint32(b[4:], e.flags)
	le.PutUint64(b[8:], e.param)
	le.PutUint64(b[16:], e.offset)
	le.PutUint64(b[24:], e.length)
	le.PutUint32(b[32:], e.crc)
	clear(b[36:entrySize])
}

// name is the section's tag, with its param when not 0 ("WTAB/8").
func (e *entry) name() string {
	if e.param == 0 {
		return e.tag.String()
	}
	return fmt.Sprintf("%s/%d", e.tag, e.param)
}

func decodeEntry(b []byte) entry {
	le := binary.LittleEndian
	var e entry
	copy(e.tag[:], b)
	e.flags = le.Uint32(b[4:])
	e.param = le.Uint64(b[8:])
	e.offset = le.Uint64(b[16:])
	e.length = le.Uint64(b[24:])
	e.crc = le.Uint32(b[32:])
	return e
}

// trailer is the file's last 64 bytes: where the section table is and
// the counts. Layout: table offset u64, section count u32, crc32c of the
// table u32, file size u64, nseq u64, nres u64, max length u64, zeros
// to byte 52, crc32c of bytes 0..51 u32, endMagic[8].
type trailer struct {
	tableOff  uint64
	nsections uint32
	tableCRC  uint32
	size      uint64
	nseq      uint64
	nres      uint64
	maxLen    uint64
}

func (t *trailer) encode() []byte {
	b := make([]byte, trailerSize)
	le := binary.LittleEndian
	le.PutUint64(b[0:], t.tableOff)
	le.PutUint32(b[8:], t.nsections)
	le.PutUint32(b[12:], t.tableCRC)
	le.PutUint64(b[16:], t.size)
	le.PutUint64(b[24:], t.nseq)
	le.PutUint64(b[32:], t.nres)
	le.PutUint64(b[40:], t.maxLen)
	le.PutUint32(b[52:], crc32.Checksum(b[:52], castagnoli))
	copy(b[56:], endMagic)
	return b
}

// decodeTrailer reads the trailer; ok is false when its checksum fails.
func decodeTrailer(b []byte) (t trailer, ok bool) {
	le := binary.LittleEndian
	t = trailer{
		tableOff: le.Uint64(b[0:]), nsections: le.Uint32(b[8:]), tableCRC: le.Uint32(b[12:]),
		size: le.Uint64(b[16:]), nseq: le.Uint64(b[24:]), nres: le.Uint64(b[32:]), maxLen: le.Uint64(b[40:]),
	}
	return t, crc32.Checksum(b[:52], castagnoli) == le.Uint32(b[52:])
}

func padding(off uint64) int { return int((Align - off%Align) % Align) }
