package hmmsearch

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

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

// indexDatabase reads the database as bytes (fingerprint, record starts)
// and as sequences (the lengths). A queued search waits for it before its
// first task, so the sequences are read in blocks on all cores, each as a
// worker reads a task's block; any problem sends it back to one pass over
// the whole file as hmmsearch reads it, for the error a local run reports.
func indexDatabase(path string, abc *alphabet.Alphabet, open func(string, io.Reader, *alphabet.Alphabet) (*seqio.Reader, error)) (*dbIndex, error) {
	// The whole index of an unchanged file comes from the cache
	// (fastaprint's), the lengths depending on the alphabet as well.
	id, _ := fastaprint.Identity(path)
	name := fmt.Sprintf("hmmsearch-index-%d", abc.Type)
	if b, ok := fastaprint.LoadCached(path, name, id); ok {
		if d, ok := decodeIndex(path, b); ok {
			return d, nil
		}
	}
	d, err := scanDatabase(path, abc, open)
	if err == nil {
		fastaprint.StoreCached(path, name, id, d.encode())
	}
	return d, err
}

// scanDatabase is indexDatabase without the cache.
func scanDatabase(path string, abc *alphabet.Alphabet, open func(string, io.Reader, *alphabet.Alphabet) (*seqio.Reader, error)) (*dbIndex, error) {
	d := &dbIndex{path: path}
	// The hash (the longest pass) runs beside the others.
	var fp *fastaprint.Print
	var hashErr error
	hashed := make(chan struct{})
	go func() {
		defer close(hashed)
		fp, hashErr = fastaprint.Scan(path, false)
	}()
	starts, size, err := fastaprint.Starts(path)
	var lengths []int64
	if err == nil {
		var ok bool
		if lengths, ok = blockLengths(path, starts, size, abc, open); !ok {
			lengths, err = serialLengths(path, abc, open)
		}
	}
	<-hashed
	switch {
	case hashErr != nil:
		return nil, hashErr
	case err != nil:
		return nil, err
	case fp.Size != size:
		return nil, fmt.Errorf("%s changed while it was read (%d bytes, then %d)", path, size, fp.Size)
	}
	d.sha256, d.size, d.starts = fp.SHA256, fp.Size, starts
	d.lengths = lengths
	for _, n := range lengths {
		d.residues += n
	}
	if len(d.starts) != len(d.lengths) {
		return nil, fmt.Errorf("%s: found %d record starts but read %d sequences; cannot cut it into blocks", path, len(d.starts), len(d.lengths))
	}
	d.starts = append(d.starts, d.size)
	return d, nil
}

// encode lays the index out for the cache: the hash, the number of
// targets, then starts (one more than targets) and lengths as
// little-endian int64s.
func (d *dbIndex) encode() []byte {
	b := append([]byte(d.sha256), make([]byte, 8)...)
	binary.LittleEndian.PutUint64(b[len(d.sha256):], uint64(len(d.lengths)))
	for _, v := range d.starts {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	for _, v := range d.lengths {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// decodeIndex reads encode's layout; ok is false for anything else.
func decodeIndex(path string, b []byte) (*dbIndex, bool) {
	if len(b) < 64+8 {
		return nil, false
	}
	d := &dbIndex{path: path, sha256: string(b[:64])}
	n := binary.LittleEndian.Uint64(b[64:])
	b = b[72:]
	if n > uint64(len(b))/16 || uint64(len(b)) != 8*(2*n+1) {
		return nil, false
	}
	d.starts, d.lengths = make([]int64, n+1), make([]int64, n)
	for i := range d.starts {
		d.starts[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	b = b[8*(n+1):]
	for i := range d.lengths {
		d.lengths[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		d.residues += d.lengths[i]
	}
	d.size = d.starts[n]
	return d, true
}

// serialLengths reads the whole file as hmmsearch does.
func serialLengths(path string, abc *alphabet.Alphabet, open func(string, io.Reader, *alphabet.Alphabet) (*seqio.Reader, error)) ([]int64, error) {
	r, err := open(path, nil, abc)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var lengths []int64
	var sq seqio.Sequence
	for {
		err := r.ReadInto(&sq)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		lengths = append(lengths, int64(sq.L()))
	}
	if r.Format() != seqio.FASTA {
		return nil, fmt.Errorf("%s is %s; distributed searches read FASTA databases only", path, r.Format())
	}
	return lengths, nil
}

// blockLengths reads the targets' lengths in blocks of records at once;
// ok is false when anything is amiss (the caller then reads the file as
// a whole). The first block starts at the file's first byte, so that it
// sees what precedes the first record, and hmmsearch's own reader checks
// the file's format on its first record.
func blockLengths(path string, starts []int64, size int64, abc *alphabet.Alphabet, open func(string, io.Reader, *alphabet.Alphabet) (*seqio.Reader, error)) ([]int64, bool) {
	if len(starts) == 0 {
		return nil, false
	}
	r, err := open(path, nil, abc)
	if err != nil {
		return nil, false
	}
	var first seqio.Sequence
	err = r.ReadInto(&first)
	format := r.Format()
	r.Close()
	if err != nil || format != seqio.FASTA {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	n := len(starts)
	blocks := min(n, 8*runtime.GOMAXPROCS(0))
	lengths := make([]int64, n)
	bad := make([]bool, blocks)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for b := range blocks {
		lo, hi := b*n/blocks, (b+1)*n/blocks
		from, to := starts[lo], size
		if lo == 0 {
			from = 0
		}
		if hi < n {
			to = starts[hi]
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			bad[b] = !readLengths(io.NewSectionReader(f, from, to-from), abc, lengths[lo:hi])
		}()
	}
	wg.Wait()
	for _, b := range bad {
		if b {
			return nil, false
		}
	}
	return lengths, true
}

// readLengths reads exactly len(out) sequences from in into out.
func readLengths(in io.Reader, abc *alphabet.Alphabet, out []int64) bool {
	r, err := seqio.Open("-", in, abc)
	if err != nil {
		return false
	}
	defer r.Close()
	var sq seqio.Sequence
	for i := 0; ; i++ {
		err := r.ReadInto(&sq)
		if err == io.EOF {
			return i == len(out) && r.Format() == seqio.FASTA
		}
		if err != nil || i == len(out) {
			return false
		}
		out[i] = int64(sq.L())
	}
}
