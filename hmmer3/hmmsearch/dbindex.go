package hmmsearch

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

// dbIndex is what a queued search needs to know of its database: its
// fingerprint (which the workers' databases must match), and where each
// target's record starts, so that a task can name a block of targets by
// index and byte range.
type dbIndex struct {
	path     string
	sha256   string
	size     int64
	starts   []int64 // byte offset of each record's '>'; starts[n] = size
	lengths  []int64 // residues of each target
	residues int64
}

// fingerprint hashes a file; starts, when not nil, collects the offsets
// of FASTA records (a '>' outside a header line, as Easel reads FASTA:
// a record's sequence ends at the next '>' wherever it is).
func fingerprint(path string, starts *[]int64) (sum string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	r := bufio.NewReaderSize(f, 1<<20)
	if magic, _ := r.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return "", 0, fmt.Errorf("%s is gzip-compressed; distributed searches need the plain FASTA file (workers read blocks of it at their offsets)", path)
	}
	buf := make([]byte, 1<<20)
	inHeader := false
	for {
		n, rerr := r.Read(buf)
		chunk := buf[:n]
		h.Write(chunk)
		if starts != nil {
			for i, c := range chunk {
				if inHeader {
					inHeader = c != '\n' && c != '\r'
				} else if c == '>' {
					*starts = append(*starts, size+int64(i))
					inHeader = true
				}
			}
		}
		size += int64(n)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", 0, fmt.Errorf("%s: %v", path, rerr)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// indexDatabase reads the database twice: once as hmmsearch reads it (the
// lengths, and every error a local run would report), once as bytes.
func indexDatabase(path string, abc *alphabet.Alphabet, open func(string, io.Reader, *alphabet.Alphabet) (*seqio.Reader, error)) (*dbIndex, error) {
	d := &dbIndex{path: path}
	var err error
	if d.sha256, d.size, err = fingerprint(path, &d.starts); err != nil {
		return nil, err
	}
	r, err := open(path, nil, abc)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var sq seqio.Sequence
	for {
		err := r.ReadInto(&sq)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		d.lengths = append(d.lengths, int64(sq.L()))
		d.residues += int64(sq.L())
	}
	if r.Format() != seqio.FASTA {
		return nil, fmt.Errorf("%s is %s; distributed searches read FASTA databases only", path, r.Format())
	}
	if len(d.starts) != len(d.lengths) {
		return nil, fmt.Errorf("%s: found %d record starts but read %d sequences; cannot cut it into blocks", path, len(d.starts), len(d.lengths))
	}
	d.starts = append(d.starts, d.size)
	return d, nil
}
