package hmmsearch

import (
	"fmt"
	"io"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/fastaprint"
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

// indexDatabase reads the database twice: once as hmmsearch reads it (the
// lengths, and every error a local run would report), once as bytes.
func indexDatabase(path string, abc *alphabet.Alphabet, open func(string, io.Reader, *alphabet.Alphabet) (*seqio.Reader, error)) (*dbIndex, error) {
	d := &dbIndex{path: path}
	fp, err := fastaprint.Scan(path, true)
	if err != nil {
		return nil, err
	}
	d.sha256, d.size, d.starts = fp.SHA256, fp.Size, fp.Starts
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
