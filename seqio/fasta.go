package seqio

import (
	"bytes"
	"io"
)

// readFASTA reads one FASTA record with Easel's rules. The header: blanks
// after '>' are skipped, the name runs to the first white space (and may
// not be empty), the description is the rest of the line after blanks,
// up to CR, LF or ctrl-A (NCBI's separator of merged deflines). The
// sequence runs to the next '>', wherever it is on a line.
func (r *Reader) readFASTA(s *Sequence) error {
	// Skip white space (blank lines included) to the '>'.
	for {
		if r.pos == r.end && !r.fill() {
			if r.err != nil {
				return r.err
			}
			return io.EOF
		}
		c := r.buf[r.pos]
		if !isSpace(c) {
			if c != '>' {
				return r.errorf(r.line, "%s where a FASTA record should start with '>'", describe(c))
			}
			break
		}
		if c == '\n' {
			r.line++
		}
		r.pos++
	}
	if err := r.fastaHeader(s); err != nil {
		return err
	}
	return r.fastaData(s)
}

// fastaHeader parses the header at buf[pos] == '>' and leaves pos at the
// CR or LF that ends it (or at the end of input).
func (r *Reader) fastaHeader(s *Sequence) error {
	var hdr []byte
	for {
		rest := r.buf[r.pos:r.end]
		nl := bytes.IndexByte(rest, '\n')
		if nl >= 0 {
			rest = rest[:nl]
		}
		if cr := bytes.IndexByte(rest, '\r'); cr >= 0 {
			hdr = rest[:cr]
			break
		}
		if nl >= 0 {
			hdr = rest
			break
		}
		if !r.more() {
			if r.err != nil {
				return r.err
			}
			hdr = r.buf[r.pos:r.end]
			break
		}
	}
	i := 1
	for i < len(hdr) && (hdr[i] == ' ' || hdr[i] == '\t') {
		i++
	}
	j := i
	for j < len(hdr) && !isSpace(hdr[j]) {
		j++
	}
	if j == i {
		return r.errorf(r.line, "no sequence name after '>'")
	}
	s.Name = string(hdr[i:j])
	for j < len(hdr) && (hdr[j] == ' ' || hdr[j] == '\t') {
		j++
	}
	desc := hdr[j:]
	if k := bytes.IndexByte(desc, 1); k >= 0 {
		desc = desc[:k]
	}
	s.Desc = string(desc)
	r.pos += len(hdr)
	return nil
}

// fastaData reads residues up to the next '>' or the end of input, all
// that is buffered at a time.
func (r *Reader) fastaData(s *Sequence) error {
	codes := r.codes
	dsq := r.work
	for {
		if r.pos == r.end && !r.fill() {
			if r.err != nil {
				return r.err
			}
			break
		}
		seg := r.buf[r.pos:r.end]
		if cap(dsq)-len(dsq) < len(seg) {
			dsq = grow(dsq, len(seg))
		}
		n, stop := convertLines(dsq[len(dsq):len(dsq)+len(seg)], seg, codes)
		dsq = dsq[:len(dsq)+n]
		if stop < 0 {
			r.line += bytes.Count(seg, []byte{'\n'})
			r.pos += len(seg)
			continue
		}
		r.line += bytes.Count(seg[:stop], []byte{'\n'})
		if codes[seg[stop]] != codeEnd {
			r.work = dsq
			return r.errorf(r.line, "%s in sequence %s", describe(seg[stop]), s.Name)
		}
		r.pos += stop
		break
	}
	r.work = dsq
	return nil
}

// convert maps src through codes into dst (len(dst) >= len(src)),
// dropping ignored bytes, and returns the number of residues written,
// or the index of the first byte that must stop it (bad >= 0; the
// residues before it are written). The common case, residues with a
// newline now and then, is one branch-free pass and a few copies.
func convert(dst, src []byte, codes *[256]byte) (n, bad int) {
	dst = dst[:len(src)]
	var or byte
	i := 0
	for ; i+4 <= len(src); i += 4 {
		s := src[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		x0, x1, x2, x3 := codes[s[0]], codes[s[1]], codes[s[2]], codes[s[3]]
		d[0], d[1], d[2], d[3] = x0, x1, x2, x3
		or |= x0 | x1 | x2 | x3
	}
	for ; i < len(src); i++ {
		x := codes[src[i]]
		dst[i] = x
		or |= x
	}
	if or&flagStop != 0 {
		return convertSlow(dst, src, codes)
	}
	if or&codeIgnore == 0 {
		return len(src), -1
	}
	// Squeeze out the ignored bytes (all coded codeIgnore), run by run.
	n = bytes.IndexByte(dst, codeIgnore)
	for j := n; j < len(dst); {
		for j < len(dst) && dst[j] == codeIgnore {
			j++
		}
		k := bytes.IndexByte(dst[j:], codeIgnore)
		if k < 0 {
			k = len(dst) - j
		}
		n += copy(dst[n:], dst[j:j+k])
		j += k
	}
	return n, -1
}

// convertLines converts src line by line: each line (its CR, if any,
// aside) goes straight to its place in dst, so that the common line of
// residues needs no squeezing afterwards. It stops at the first byte
// with a stop code (stop >= 0): the '>' of the next record, usually
// found first thing on a line, or an illegal byte.
func convertLines(dst, src []byte, codes *[256]byte) (n, stop int) {
	for off := 0; off < len(src); {
		if codes[src[off]] == codeEnd {
			return n, off
		}
		line := src[off:]
		next := len(src)
		if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
			line, next = line[:nl], off+nl+1
		}
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		k, b := convert(dst[n:n+len(line)], line, codes)
		if b >= 0 {
			return n + k, off + b
		}
		n += k
		off = next
	}
	return n, -1
}

// convertSlow handles input with a byte that stops conversion.
func convertSlow(dst, src []byte, codes *[256]byte) (n, bad int) {
	for i, c := range src {
		x := codes[c]
		if x&flagStop != 0 {
			return n, i
		}
		if x < 0x80 {
			dst[n] = x
			n++
		}
	}
	return n, -1
}

// grow returns b with room for at least n more bytes.
func grow(b []byte, n int) []byte {
	c := 2 * cap(b)
	if c < len(b)+n {
		c = len(b) + n
	}
	if c < 256 {
		c = 256
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}
