// Package fastaprint identifies a FASTA file the way distributed searches
// do: by the SHA-256 of its bytes (so every machine may keep its copy at
// its own path), and by the byte offsets of its records (so that a task
// can name a block of targets by index and byte range).
//
// The submitter of a queued search, a worker serving a file, and
// `hmmgo makedb --redis` (which stores a file's blocks in Redis) all scan
// with this package, so they agree on both.
package fastaprint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Print is a file's identity and record layout.
type Print struct {
	SHA256 string  // hex
	Size   int64   // bytes
	Starts []int64 // offset of each record's '>' (only when asked for)
}

// Scan hashes the file at path (or takes the hash recorded for it while
// it is unchanged: cache.go); with starts it also collects the offsets
// of FASTA records: a '>' outside a header line, as Easel reads FASTA (a
// record's sequence ends at the next '>' wherever it is). A gzip'd file
// is refused: workers read blocks of the plain file at their offsets.
//
// The hash and the record starts are two passes over the file at once,
// each with its own handle: a queued search waits for both before its
// first task, and SHA-256 alone takes about as long as the rest.
func Scan(path string, starts bool) (*Print, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var magic [2]byte
	if n, _ := io.ReadFull(f, magic[:]); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return nil, fmt.Errorf("%s is gzip-compressed; distributed searches need the plain FASTA file (workers read blocks of it at their offsets)", path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	p := &Print{}
	var hashErr error
	var hashed int64
	done := make(chan struct{})
	id, _ := fileIdentity(f)
	if sum, ok := LoadCached(path, "sha256", id); ok && len(sum) == 64 {
		p.SHA256 = string(sum)
		hashed, hashErr = f.Seek(0, io.SeekEnd)
		close(done)
	} else {
		go func() {
			defer close(done)
			h := sha256.New()
			hashed, hashErr = io.CopyBuffer(h, f, make([]byte, 1<<20))
			p.SHA256 = hex.EncodeToString(h.Sum(nil))
			if hashErr == nil {
				StoreCached(path, "sha256", id, []byte(p.SHA256))
			}
		}()
	}
	var scanned int64
	var scanErr error
	if starts {
		p.Starts, scanned, scanErr = Starts(path)
	}
	<-done
	switch {
	case hashErr != nil:
		return nil, fmt.Errorf("%s: %v", path, hashErr)
	case scanErr != nil:
		return nil, fmt.Errorf("%s: %v", path, scanErr)
	case starts && scanned != hashed:
		return nil, fmt.Errorf("%s changed while it was read (%d bytes, then %d)", path, hashed, scanned)
	}
	p.Size = hashed
	return p, nil
}

// Starts returns the offsets of the records of the file at path (as Scan)
// and its size, without hashing it. Sequence lines are skipped with bytes.IndexByte; only header
// lines are walked byte by byte.
func Starts(path string) ([]int64, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var out []int64
	var size int64
	buf := make([]byte, 1<<20)
	inHeader := false
	for {
		n, rerr := io.ReadFull(f, buf)
		chunk := buf[:n]
		for i := 0; i < len(chunk); {
			if inHeader {
				for i < len(chunk) && chunk[i] != '\n' && chunk[i] != '\r' {
					i++
				}
				if i < len(chunk) {
					inHeader = false
					i++
				}
				continue
			}
			k := bytes.IndexByte(chunk[i:], '>')
			if k < 0 {
				break
			}
			i += k
			out = append(out, size+int64(i))
			inHeader = true
			i++
		}
		size += int64(n)
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return out, size, nil
		}
		if rerr != nil {
			return nil, 0, rerr
		}
	}
}
