package seqdb

import (
	"io"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

// benchSeqs is about 36M residues in 100,000 protein-sized sequences.
func benchSeqs(b *testing.B) []*seqio.Sequence {
	abc := alphabet.New(alphabet.Amino)
	seqs := randomSeqs(100_000, abc, 1)
	for _, s := range seqs {
		for len(s.Dsq) < 300 {
			s.Dsq = append(s.Dsq, s.Dsq...)
			if len(s.Dsq) == 0 {
				s.Dsq = []byte{1}
			}
		}
	}
	return seqs
}

func residues(seqs []*seqio.Sequence) (n int64) {
	for _, s := range seqs {
		n += int64(len(s.Dsq))
	}
	return n
}

// BenchmarkWrite: bytes/s are residues written per second.
func BenchmarkWrite(b *testing.B) {
	seqs := benchSeqs(b)
	abc := alphabet.New(alphabet.Amino)
	b.SetBytes(residues(seqs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, _ := NewWriter(io.Discard, abc, Options{})
		for _, s := range seqs {
			w.Add(s)
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen: mapping and verifying every checksum (page cache warm).
func BenchmarkOpen(b *testing.B) {
	seqs := benchSeqs(b)
	path := save(b, build(b, seqs, alphabet.New(alphabet.Amino), Options{}))
	b.SetBytes(residues(seqs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// BenchmarkSourceRead: what a search pays per pass over the database.
func BenchmarkSourceRead(b *testing.B) {
	seqs := benchSeqs(b)
	db := open(b, build(b, seqs, alphabet.New(alphabet.Amino), Options{}))
	b.SetBytes(residues(seqs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := db.NewSource()
		var sum int
		for {
			s, err := src.Read()
			if err != nil {
				break
			}
			sum += len(s.Name) + len(s.Dsq)
		}
		if sum == 0 {
			b.Fatal("nothing read")
		}
	}
}
