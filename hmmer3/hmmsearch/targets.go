package hmmsearch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/fastaprint"
	"github.com/hmmgo/hmmgo/seqio"
)

// TargetSource is a database a worker serves. Tasks name it by the
// SHA-256 of its FASTA file (what the submitter reads) and a block of it
// by target and byte ranges of that file; a source returns exactly those
// records or fails saying why. Task contents come from the network, so a
// source checks every range against what it holds.
type TargetSource interface {
	// Fingerprint is the hex SHA-256 of the database's FASTA file.
	Fingerprint() string
	// Name is what messages call it: a path, redis:NAME.
	Name() string
	// Targets returns targets first..end-1 (0-based) read in abc, which
	// must be the records at bytes byteStart..byteEnd-1 of the FASTA file.
	Targets(ctx context.Context, first, end, byteStart, byteEnd int64, abc *alphabet.Alphabet) ([]*seqio.Sequence, error)
}

// fileSource is a FASTA file on this machine (a local or shared copy).
type fileSource struct {
	path    string
	sum     string
	size    int64
	modTime time.Time
}

// OpenFileSource fingerprints a FASTA file (reading it once) for a
// worker to serve.
func OpenFileSource(path string) (TargetSource, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	fp, err := fastaprint.Scan(abs, false)
	if err != nil {
		return nil, err
	}
	return &fileSource{path: abs, sum: fp.SHA256, size: fp.Size, modTime: st.ModTime()}, nil
}

func (f *fileSource) Fingerprint() string { return f.sum }
func (f *fileSource) Name() string        { return f.path }

// Targets reads the block, checking that the byte range holds exactly
// the records the task names and that the file is the one fingerprinted.
func (f *fileSource) Targets(ctx context.Context, first, end, byteStart, byteEnd int64, abc *alphabet.Alphabet) ([]*seqio.Sequence, error) {
	if byteStart < 0 || byteEnd > f.size || byteStart >= byteEnd {
		return nil, fmt.Errorf("task names bytes %d-%d of a %d-byte database", byteStart, byteEnd, f.size)
	}
	st, err := os.Stat(f.path)
	if err != nil {
		return nil, err
	}
	if st.Size() != f.size || !st.ModTime().Equal(f.modTime) {
		return nil, fmt.Errorf("database %s changed since this worker started (restart the worker)", f.path)
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var mark [1]byte
	if _, err := fh.ReadAt(mark[:], byteStart); err != nil || mark[0] != '>' {
		return nil, fmt.Errorf("task's block does not start at a record of %s", f.path)
	}
	r, err := seqio.Open("-", io.NewSectionReader(fh, byteStart, byteEnd-byteStart), abc)
	if err != nil {
		return nil, err
	}
	var seqs []*seqio.Sequence
	for {
		sq, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s, bytes %d-%d: %v", f.path, byteStart, byteEnd, err)
		}
		seqs = append(seqs, sq)
	}
	if int64(len(seqs)) != end-first {
		return nil, fmt.Errorf("%s, bytes %d-%d: %d sequences where the task expects %d", f.path, byteStart, byteEnd,
			len(seqs), end-first)
	}
	return seqs, nil
}
