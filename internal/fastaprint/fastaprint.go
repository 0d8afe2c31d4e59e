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
	"bufio"
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

// Scan hashes the file at path; with starts it also collects the offsets
// of FASTA records: a '>' outside a header line, as Easel reads FASTA (a
// record's sequence ends at the next '>' wherever it is). A gzip'd file
// is refused: workers read blocks of the plain file at their offsets.
func Scan(path string, starts bool) (*Print, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Print{}
	h := sha256.New()
	r := bufio.NewReaderSize(f, 1<<20)
	if magic, _ := r.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return nil, fmt.Errorf("%s is gzip-compressed; distributed searches need the plain FASTA file (workers read blocks of it at their offsets)", path)
	}
	buf := make([]byte, 1<<20)
	inHeader := false
	for {
		n, rerr := r.Read(buf)
		chunk := buf[:n]
		h.Write(chunk)
		if starts {
			for i, c := range chunk {
				if inHeader {
					inHeader = c != '\n' && c != '\r'
				} else if c == '>' {
					p.Starts = append(p.Starts, p.Size+int64(i))
					inHeader = true
				}
			}
		}
		p.Size += int64(n)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%s: %v", path, rerr)
		}
	}
	p.SHA256 = hex.EncodeToString(h.Sum(nil))
	return p, nil
}
