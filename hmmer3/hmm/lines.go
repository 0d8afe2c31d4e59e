package hmm

import (
	"bufio"
	"bytes"
	"io"
)

// lineReader splits a model file into lines and whitespace-separated
// tokens the way Easel's fileparser does for HMMER: lines with no token,
// or whose first token starts with '#', are skipped; a token starting
// with '#' ends its line; tokens are separated by space, tab, CR and LF.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte // holds a line that did not fit in br's buffer
	line []byte // the current line, newline included
	pos  int    // tokenizing position in line
	num  int    // 1-based number of the current line
	err  error  // first read error other than io.EOF
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<16)}
}

// rawLine reads the next physical line; false at end of input or error.
func (lr *lineReader) rawLine() bool {
	if lr.err != nil {
		return false
	}
	line, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.buf = append(lr.buf[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.br.ReadSlice('\n')
			lr.buf = append(lr.buf, line...)
		}
		line = lr.buf
	}
	if err != nil && err != io.EOF {
		lr.err = err
		return false
	}
	if len(line) == 0 {
		return false
	}
	lr.line, lr.pos = line, 0
	lr.num++
	return true
}

// next moves to the next line that has a token; false at end of input.
func (lr *lineReader) next() bool {
	for lr.rawLine() {
		i := 0
		for i < len(lr.line) && isSpace(lr.line[i]) {
			i++
		}
		if i < len(lr.line) && lr.line[i] != '#' {
			lr.pos = i
			return true
		}
	}
	return false
}

// token returns the next token on the current line, or nil at its end.
// The slice is valid until the next call to next.
func (lr *lineReader) token() []byte {
	l, i := lr.line, lr.pos
	for i < len(l) && isDelim(l[i]) {
		i++
	}
	j := i
	for j < len(l) && !isDelim(l[j]) {
		j++
	}
	lr.pos = j
	if i == j || l[i] == '#' {
		lr.pos = len(l)
		return nil
	}
	return l[i:j]
}

// rest returns the rest of the current line after leading white space,
// up to the first CR or LF: the value of DESC, DATE and COM lines.
func (lr *lineReader) rest() []byte {
	l, i := lr.line, lr.pos
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	r := l[i:]
	if k := bytes.IndexAny(r, "\r\n"); k >= 0 {
		r = r[:k]
	}
	lr.pos = len(l)
	return r
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// isDelim is the token separator set of HMMER's model parser.
func isDelim(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
