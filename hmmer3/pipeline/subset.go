package pipeline

import (
	"io"
	"sort"

	"github.com/hmmgo/hmmgo/seqio"
)

// IndexedSource is a SequenceSource that yields part of a database (one
// shard, one block of a work queue). DatabaseIndex gives the position in
// the whole database of the target Read returned last. Search uses it for
// the hits' SeqIdx and for HMMER's provisional reporting test (Z = the
// 1-based database index), so that a part keeps exactly the hits a
// search of the whole database would keep from it.
type IndexedSource interface {
	SequenceSource
	DatabaseIndex() int64
}

// SubsetSource reads a database and yields only the targets whose
// database indices are listed in Keep (increasing).
type SubsetSource struct {
	Src  SequenceSource
	Keep []int64

	next int   // position in Keep
	read int64 // targets read from Src
	last int64
}

// Read returns the next kept target, io.EOF after the last.
func (s *SubsetSource) Read() (*seqio.Sequence, error) {
	for s.next < len(s.Keep) {
		sq, err := s.Src.Read()
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		idx := s.read
		s.read++
		if idx == s.Keep[s.next] {
			s.next++
			s.last = idx
			return sq, nil
		}
	}
	return nil, io.EOF
}

// DatabaseIndex is the database index of the target Read returned last.
func (s *SubsetSource) DatabaseIndex() int64 { return s.last }

// IndexedSlice yields targets held in memory with their database indices.
type IndexedSlice struct {
	Seqs    []*seqio.Sequence
	Indices []int64 // increasing, one per target
	next    int
}

// Read returns the next target, io.EOF after the last.
func (s *IndexedSlice) Read() (*seqio.Sequence, error) {
	if s.next >= len(s.Seqs) {
		return nil, io.EOF
	}
	s.next++
	return s.Seqs[s.next-1], nil
}

// DatabaseIndex is the database index of the target Read returned last.
func (s *IndexedSlice) DatabaseIndex() int64 { return s.Indices[s.next-1] }

// Position returns where database index idx is in Indices, or -1.
func (s *IndexedSlice) Position(idx int64) int {
	i := sort.Search(len(s.Indices), func(i int) bool { return s.Indices[i] >= idx })
	if i < len(s.Indices) && s.Indices[i] == idx {
		return i
	}
	return -1
}
