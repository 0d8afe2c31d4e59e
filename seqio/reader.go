package seqio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hmmgo/hmmgo/alphabet"
)

// Error is a problem in a sequence file: "path:line: message".
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// bufSize is the read buffer: large, so that the inner loop runs over
// long stretches of memory.
const bufSize = 1 << 20

// Reader streams the sequences of one file. Memory does not grow with
// the number of sequences, only with the longest header line.
type Reader struct {
	path    string
	format  Format
	codes   *[256]byte // byte -> residue code or code* action
	abc     *alphabet.Alphabet
	src     io.Reader
	closers []io.Closer

	buf      []byte
	pos, end int
	srcEOF   bool
	err      error  // sticky read or parse error
	line     int    // line number of buf[pos]
	lastLine int    // number of the line readLine last returned
	work     []byte // the current record's residues; bounded by the longest record plus the buffer
	nread    int
}

// Open opens a sequence file for digital reading with alphabet abc, as
// hmmsearch opens its target database. Path "-" reads stdin. gzip'd
// input is recognised by its magic bytes. The format (FASTA, EMBL or
// UniProt, GenBank) is guessed as Easel guesses it: from a ".fa" or
// ".gb" name, else from the first non-blank line.
func Open(path string, stdin io.Reader, abc *alphabet.Alphabet) (*Reader, error) {
	if abc == nil {
		return nil, &Error{Path: path, Msg: "no alphabet to read sequences with"}
	}
	r := &Reader{path: path, abc: abc, buf: make([]byte, bufSize), line: 1}
	var in io.Reader
	if path == "-" {
		if stdin == nil {
			return nil, &Error{Path: path, Msg: "no standard input to read sequences from"}
		}
		r.path = "stdin"
		in = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &Error{Path: path, Msg: "cannot open sequence file: " + err.Error()}
		}
		r.closers = append(r.closers, f)
		in = f
	}
	br := bufio.NewReaderSize(in, 512)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			r.Close()
			return nil, &Error{Path: r.path, Msg: "bad gzip data: " + err.Error()}
		}
		r.closers = append(r.closers, zr)
		r.src = gzipErrors{zr}
	} else {
		r.src = br
	}
	if err := r.detect(); err != nil {
		r.Close()
		return nil, err
	}
	r.codes = dataMap(abc, r.format)
	return r, nil
}

// detect sets the format. Like Easel it refuses a file with no bytes at
// all, and a file of blank lines unless its name says FASTA or GenBank.
func (r *Reader) detect() error {
	r.format = formatBySuffix(r.path)
	if !r.more() {
		if r.err != nil {
			return r.err
		}
		return &Error{Path: r.path, Msg: "file is empty: no sequences"}
	}
	if r.format != FormatUnknown {
		return nil
	}
	// Find the first non-blank line without consuming anything (pos
	// stays 0, so more() never moves the data).
	for off, line := 0, 1; ; {
		nl := bytes.IndexByte(r.buf[off:r.end], '\n')
		if nl < 0 && r.more() {
			continue
		}
		l := r.buf[off:r.end]
		if nl >= 0 {
			l = r.buf[off : off+nl+1]
		}
		if !isBlank(l) {
			if r.format = formatByLine(l); r.format != FormatUnknown {
				return nil
			}
			msg := "unrecognized sequence file format (hmmgo reads FASTA, EMBL/UniProt and GenBank)"
			if bytes.HasPrefix(l, []byte("# STOCKHOLM")) {
				msg = "alignment files are not supported as sequence databases (this is Stockholm); use FASTA"
			}
			// seqdb.Magic (seqdb imports this package). Commands open a
			// database by its path; through stdin or gzip it lands here.
			if bytes.HasPrefix(l, []byte("\x89HMMGODB")) {
				msg = "this is an hmmgo makedb database: hmmgo hmmsearch reads one only from its own path, not from standard input or gzip'd"
			}
			return &Error{Path: r.path, Line: line, Msg: msg}
		}
		if nl < 0 {
			if r.err != nil {
				return r.err
			}
			return &Error{Path: r.path, Msg: "no sequence data: the file has only blank lines"}
		}
		off, line = off+nl+1, line+1
	}
}

// Format is the file's format.
func (r *Reader) Format() Format { return r.format }

// Read returns the next sequence, or io.EOF after the last. Each
// sequence is newly allocated, exactly sized, and stays valid.
func (r *Reader) Read() (*Sequence, error) {
	s := &Sequence{}
	if err := r.read(s); err != nil {
		return nil, err
	}
	s.Dsq = append(make([]byte, 0, len(r.work)), r.work...)
	return s, nil
}

// ReadInto reads the next sequence into s, reusing the capacity of
// s.Dsq (and growing it only to the sequence's length); it returns
// io.EOF after the last sequence.
func (r *Reader) ReadInto(s *Sequence) error {
	if err := r.read(s); err != nil {
		return err
	}
	if cap(s.Dsq) < len(r.work) {
		s.Dsq = make([]byte, 0, len(r.work))
	}
	s.Dsq = append(s.Dsq[:0], r.work...)
	return nil
}

// read parses the next record: its residues into r.work, the rest into s.
func (r *Reader) read(s *Sequence) error {
	if r.err != nil {
		return r.err
	}
	s.Name, s.Acc, s.Desc, s.Dsq = "", "", "", s.Dsq[:0]
	r.work = r.work[:0]
	var err error
	switch r.format {
	case FASTA:
		err = r.readFASTA(s)
	default:
		err = r.readFlat(s)
	}
	if err != nil {
		if r.err == nil {
			r.err = err
		}
		return err
	}
	r.nread++
	return nil
}

// Close releases the file.
func (r *Reader) Close() error {
	var first error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	return first
}

// fill reads more input after buf[pos:end], moving that to the front
// when the buffer's tail is full. It returns false when no new bytes
// came (end of input or a read error, which it records in r.err).
func (r *Reader) fill() bool {
	if r.srcEOF || r.err != nil {
		return false
	}
	if r.end == len(r.buf) {
		if r.pos == 0 {
			return false // caller must grow the buffer
		}
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.pos, r.end = 0, n
	}
	for {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err == io.EOF {
			r.srcEOF = true
			return n > 0
		}
		if err != nil {
			r.err = r.readError(err)
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// more reads more input, first growing the buffer if it is full of
// unconsumed data; false at end of input or on a read error.
func (r *Reader) more() bool {
	if r.pos == 0 && r.end == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	return r.fill()
}

// readLine returns the next whole line (newline included, if any),
// growing the buffer for long lines; nil at end of input.
func (r *Reader) readLine() []byte {
	r.lastLine = r.line
	for {
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			l := r.buf[r.pos : r.pos+i+1]
			r.pos += i + 1
			r.line++
			return l
		}
		if r.srcEOF || r.err != nil {
			if r.pos == r.end {
				return nil
			}
			l := r.buf[r.pos:r.end]
			r.pos = r.end
			return l
		}
		r.more()
	}
}

// errTruncatedGzip marks a gzip stream that ended early.
var errTruncatedGzip = errors.New("truncated gzip data")

// gzipErrors renames the gzip reader's io.ErrUnexpectedEOF, which would
// otherwise look like an ordinary short read.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = errTruncatedGzip
	}
	return n, err
}

func (r *Reader) readError(err error) error {
	msg := "read error: " + err.Error()
	var pe *os.PathError
	switch {
	case errors.As(err, &pe): // it names the file again
		msg = "read error: " + pe.Err.Error()
	case errors.Is(err, errTruncatedGzip):
		msg = "truncated gzip data (unexpected end of compressed input)"
	case errors.Is(err, gzip.ErrChecksum):
		msg = "gzip data is corrupt (checksum mismatch)"
	case errors.Is(err, gzip.ErrHeader):
		msg = "gzip data is corrupt (bad header after the first member)"
	}
	return &Error{Path: r.path, Line: r.line, Msg: msg}
}

func (r *Reader) errorf(line int, format string, args ...any) error {
	return &Error{Path: r.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// describe names a byte in an error message.
func describe(c byte) string {
	if c >= 128 {
		return fmt.Sprintf("non-ASCII byte 0x%02x", c)
	}
	return fmt.Sprintf("illegal character %q", rune(c))
}
