package seqdb

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// spool collects one section's bytes while the residues stream out: in
// memory up to a limit, then in a temporary file, so that making a
// database of any size needs bounded memory.
type spool struct {
	dir   string
	limit int
	mem   []byte
	f     *os.File
	bw    *bufio.Writer
	n     uint64
	err   error // sticky: the first failure to spill
}

// spoolLimit is how much one spool keeps in memory.
var spoolLimit = 32 << 20

func newSpool(dir string) *spool { return &spool{dir: dir, limit: spoolLimit} }

func (s *spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.write(p)
	s.err = err
	return n, err
}

func (s *spool) write(p []byte) (int, error) {
	s.n += uint64(len(p))
	if s.f == nil {
		if len(s.mem)+len(p) <= s.limit {
			s.mem = append(s.mem, p...)
			return len(p), nil
		}
		f, err := os.CreateTemp(s.dir, ".hmmgo-makedb-*")
		if err != nil {
			return 0, fmt.Errorf("cannot create a temporary file: %w", err)
		}
		s.f, s.bw = f, bufio.NewWriterSize(f, 1<<20)
		if _, err := s.bw.Write(s.mem); err != nil {
			return 0, err
		}
		s.mem = nil
	}
	return s.bw.Write(p)
}

// copyTo writes everything spooled to w.
func (s *spool) copyTo(w io.Writer) error {
	if s.err != nil {
		return s.err
	}
	if s.f == nil {
		_, err := w.Write(s.mem)
		return err
	}
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, bufio.NewReaderSize(s.f, 1<<20))
	return err
}

// discard removes the temporary file, if any.
func (s *spool) discard() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
	s.mem = nil
}
