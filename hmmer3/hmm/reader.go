package hmm

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hmmgo/hmmgo/alphabet"
)

// Error is a problem in a model file. It prints as "path:line: message",
// or "path: message" where no line applies (binary files, opening).
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

// Reader reads the models of one file in order.
type Reader struct {
	path    string // as the caller named it, for messages
	format  Format
	binary  bool
	pressed bool // reading path.h3m instead of path
	lr      *lineReader
	br      *bufio.Reader // binary input
	abc     *alphabet.Alphabet
	closers []io.Closer
	started bool  // the first model's tag line has been consumed
	nread   int   // models returned so far
	err     error // sticky: once reading failed it keeps failing
}

// OpenFile opens a model file as hmmsearch does. "-" reads stdin (which
// may be gzip'd). A gzip'd file is recognised by its magic bytes, not
// only by a ".gz" suffix. If path.h3m exists (hmmpress output) and path
// does not end in ".gz", the binary file is read instead of path, and
// then path.h3f, path.h3p and path.h3i must exist too, as in HMMER.
func OpenFile(path string, stdin io.Reader) (*Reader, error) {
	r := &Reader{path: path}
	var in io.Reader
	switch {
	case path == "-":
		if stdin == nil {
			return nil, &Error{Path: path, Msg: "no standard input to read models from"}
		}
		r.path = "stdin"
		in = stdin
	default:
		f, err := os.Open(path)
		if !strings.HasSuffix(path, ".gz") {
			if pf, perr := os.Open(path + ".h3m"); perr == nil {
				if f != nil {
					f.Close()
				}
				f, err = pf, nil
				r.pressed = true
				r.path = path + ".h3m"
				for _, ext := range []string{".h3f", ".h3p", ".h3i"} {
					if _, serr := os.Stat(path + ext); serr != nil {
						pf.Close()
						return nil, &Error{Path: r.path, Msg: "a pressed HMM file, but " + path + ext + " is missing"}
					}
				}
			}
		}
		if err != nil {
			return nil, &Error{Path: path, Msg: "cannot open HMM file: " + reason(err)}
		}
		r.closers = append(r.closers, f)
		in = f
	}
	if err := r.detect(in); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// reason strips the path that os errors repeat.
func reason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// detect looks at the first bytes: gzip, binary magic, or an ASCII tag.
func (r *Reader) detect(in io.Reader) error {
	br := bufio.NewReaderSize(in, 1<<16)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &Error{Path: r.path, Msg: "bad gzip data: " + err.Error()}
		}
		r.closers = append(r.closers, zr)
		br = bufio.NewReaderSize(gzipErrors{zr}, 1<<16)
	}
	head, err := br.Peek(4)
	if len(head) == 0 {
		if err != nil && err != io.EOF {
			return r.ioError(err, 0)
		}
		return &Error{Path: r.path, Msg: "file is empty: no models"}
	}
	if len(head) == 4 {
		magic := uint32(head[0]) | uint32(head[1])<<8 | uint32(head[2])<<16 | uint32(head[3])<<24
		if f, ok := binaryMagic[magic]; ok {
			r.format, r.binary, r.br = f, true, br
			return nil
		}
		if r.pressed {
			return &Error{Path: r.path, Msg: "binary format tag unrecognized"}
		}
		if magic&0x80000000 != 0 {
			return &Error{Path: r.path, Msg: "format tag appears binary, but is not one HMMER 3.3.2 reads"}
		}
	}
	r.lr = newLineReader(br)
	if !r.lr.next() {
		if r.lr.err != nil {
			return r.ioError(r.lr.err, r.lr.num)
		}
		return &Error{Path: r.path, Msg: "no models: file has no data lines"}
	}
	tag := r.lr.token()
	if r.format = formatOfTag(string(tag)); r.format == FormatUnknown {
		return r.errorf("format tag is %q: not a model file HMMER 3.3.2 reads (HMMER3/a to HMMER3/f, HMMER2.0)", tag)
	}
	return nil
}

// Format is the format of the file's models.
func (r *Reader) Format() Format { return r.format }

// Path is the file actually read: path, path.h3m, or "stdin".
func (r *Reader) Path() string { return r.path }

// Read returns the next model, or io.EOF after the last. Every model of
// a file must use the same alphabet, as in HMMER.
func (r *Reader) Read() (*HMM, error) {
	if r.err != nil {
		return nil, r.err
	}
	var h *HMM
	var err error
	switch {
	case r.binary:
		h, err = r.readBinary()
	case r.format == Format20:
		h, err = r.readASCII2()
	default:
		h, err = r.readASCII3()
	}
	if err != nil {
		r.err = err
		return nil, err
	}
	r.nread++
	return h, nil
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

func (r *Reader) errorf(format string, args ...any) error {
	line := 0
	if r.lr != nil {
		line = r.lr.num
	}
	return &Error{Path: r.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// errTruncatedGzip marks a gzip stream that ended early, which the gzip
// package reports as io.ErrUnexpectedEOF: the same error io.ReadFull
// gives for a short plain file.
var errTruncatedGzip = errors.New("truncated gzip data")

// gzipErrors renames the gzip reader's io.ErrUnexpectedEOF.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = errTruncatedGzip
	}
	return n, err
}

// ioError describes a failed read, naming damaged gzip data as such.
func (r *Reader) ioError(err error, line int) error {
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
	return &Error{Path: r.path, Line: line, Msg: msg}
}

// eof is the error for input that ends inside a model: a read error if
// there was one, else a format error saying what was missing.
func (r *Reader) eof(what string, args ...any) error {
	if r.lr.err != nil {
		return r.ioError(r.lr.err, r.lr.num)
	}
	return &Error{Path: r.path, Line: r.lr.num, Msg: "unexpected end of file: " + fmt.Sprintf(what, args...)}
}

// setAlphabet checks that every model of the file has the same alphabet.
func (r *Reader) setAlphabet(t alphabet.Type) error {
	if r.abc == nil {
		r.abc = alphabet.New(t)
		return nil
	}
	if r.abc.Type != t {
		return r.errorf("alphabet type mismatch: earlier models are %s, this one is %s", r.abc.Type, t)
	}
	return nil
}

// newHMM returns a model with HMMER's "unset" values for what files may omit.
func newHMM(f Format) *HMM {
	h := &HMM{NSeq: -1, EffNSeq: -1, MaxLength: -1, Format: f}
	for i := range h.EvParam {
		h.EvParam[i] = Unset
	}
	for i := range h.Cutoff {
		h.Cutoff[i] = Unset
	}
	return h
}

// allocBody sizes the model's arrays for M nodes of alphabet abc, with
// the conventions for the unused node-0 entries (Mat[0] = {1,0,...},
// T[0][TDM] = 1).
func (h *HMM) allocBody(abc *alphabet.Alphabet) {
	h.Alph = abc
	k := abc.K
	mat := make([]float32, (h.M+1)*k)
	ins := make([]float32, (h.M+1)*k)
	h.Mat = make([][]float32, h.M+1)
	h.Ins = make([][]float32, h.M+1)
	for i := 0; i <= h.M; i++ {
		h.Mat[i] = mat[i*k : (i+1)*k : (i+1)*k]
		h.Ins[i] = ins[i*k : (i+1)*k : (i+1)*k]
	}
	h.T = make([][NTransitions]float32, h.M+1)
	h.Mat[0][0] = 1
	h.T[0][TDM] = 1
}
