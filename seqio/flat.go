package seqio

import (
	"bytes"
	"io"
)

// EMBL/UniProt and GenBank records are read line by line, as Easel does:
// a header of tagged lines, then sequence lines (digits and blanks
// ignored) up to a line starting "//".

// readFlat reads one EMBL or GenBank record.
func (r *Reader) readFlat(s *Sequence) error {
	var err error
	if r.format == EMBL {
		err = r.emblHeader(s)
	} else {
		err = r.genbankHeader(s)
	}
	if err != nil {
		return err
	}
	return r.flatData(s)
}

// emblHeader: blank lines, then "ID   name ...", then tagged lines up to
// "SQ   ". The accession is the first one on the first AC line; DE lines
// are joined with single spaces (each with its trailing white space
// removed, leading blanks kept).
func (r *Reader) emblHeader(s *Sequence) error {
	var line []byte
	for {
		if line = r.readLine(); line == nil {
			if r.err != nil {
				return r.err
			}
			return io.EOF
		}
		if !isBlank(line) {
			break
		}
	}
	if !bytes.HasPrefix(line, []byte("ID   ")) {
		return r.errorf(r.lastLine, "expected an ID line to start an EMBL/UniProt record")
	}
	if s.Name = token(line[5:], " ;"); s.Name == "" {
		return r.errorf(r.lastLine, "no sequence name on ID line")
	}
	var desc []byte
	for {
		if line = r.readLine(); line == nil {
			return r.truncated("no SQ line in the record of " + s.Name)
		}
		switch {
		case bytes.HasPrefix(line, []byte("AC   ")) && s.Acc == "":
			s.Acc = token(line[5:], ";")
		case bytes.HasPrefix(line, []byte("DE   ")):
			desc = appendDesc(desc, line[5:])
		case bytes.HasPrefix(line, []byte("SQ   ")):
			s.Desc = string(desc)
			return nil
		}
	}
}

// genbankHeader: any lines up to "LOCUS   " (files may start with a
// release header), the name at column 13, then lines up to ORIGIN. The
// VERSION is the accession; DEFINITION lines (not their continuation
// lines) make the description.
func (r *Reader) genbankHeader(s *Sequence) error {
	var line []byte
	for {
		if line = r.readLine(); line == nil {
			if r.err != nil {
				return r.err
			}
			return io.EOF
		}
		if bytes.HasPrefix(line, []byte("LOCUS   ")) {
			break
		}
	}
	if len(line) > 12 {
		s.Name = token(line[12:], " ")
	}
	if s.Name == "" {
		return r.errorf(r.lastLine, "no sequence name on LOCUS line")
	}
	var desc []byte
	for {
		if line = r.readLine(); line == nil {
			return r.truncated("no ORIGIN line in the record of " + s.Name)
		}
		switch {
		case bytes.HasPrefix(line, []byte("VERSION   ")) && len(line) > 12:
			s.Acc = token(line[12:], " \t\n")
		case bytes.HasPrefix(line, []byte("DEFINITION ")) && len(line) >= 12:
			desc = appendDesc(desc, line[12:])
		case bytes.HasPrefix(line, []byte("ORIGIN")):
			s.Desc = string(desc)
			return nil
		}
	}
}

// flatData reads sequence lines up to the "//" line.
func (r *Reader) flatData(s *Sequence) error {
	codes := r.codes
	dsq := r.work
	for {
		line := r.readLine()
		if line == nil {
			r.work = dsq
			return r.truncated("no // at the end of the record of " + s.Name)
		}
		if cap(dsq)-len(dsq) < len(line) {
			dsq = grow(dsq, len(line))
		}
		n, bad := convert(dsq[len(dsq):len(dsq)+len(line)], line, codes)
		dsq = dsq[:len(dsq)+n]
		if bad >= 0 && codes[line[bad]] != codeEnd {
			r.work = dsq
			return r.errorf(r.lastLine, "%s in sequence %s", describe(line[bad]), s.Name)
		}
		if bad >= 0 {
			r.work = dsq
			if !bytes.HasPrefix(line, []byte("//")) {
				return r.errorf(r.lastLine, "a '/' in sequence %s on a line that is not the // record end", s.Name)
			}
			return nil
		}
	}
}

func (r *Reader) truncated(what string) error {
	if r.err != nil {
		return r.err
	}
	return r.errorf(r.line, "unexpected end of file: %s (truncated?)", what)
}

// token is esl_strtok: skip leading delimiters, then take bytes up to
// the next delimiter. Easel would keep a line's newline in a token that
// ends the line; we drop it.
func token(b []byte, delims string) string {
	b = bytes.TrimRight(b, "\r\n")
	i := 0
	for i < len(b) && bytes.IndexByte([]byte(delims), b[i]) >= 0 {
		i++
	}
	j := i
	for j < len(b) && bytes.IndexByte([]byte(delims), b[j]) < 0 {
		j++
	}
	return string(b[i:j])
}

// appendDesc is esl_sq_AppendDesc of a line chopped of trailing white
// space: a space joins it to a description that is not empty.
func appendDesc(desc, line []byte) []byte {
	line = bytes.TrimRightFunc(line, func(c rune) bool { return c < 128 && isSpace(byte(c)) })
	if len(desc) > 0 {
		desc = append(desc, ' ')
	}
	return append(desc, line...)
}
