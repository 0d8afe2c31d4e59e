package plan7

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// fgetsSize is the buffer HMMER2's save-file parser reads lines into:
// a longer line is consumed in pieces of 511 bytes, and we cut it the
// same way so that such files parse as they do in hmm2search.
const fgetsSize = 512

// Reader reads HMMER2.0 ASCII save files, one model after another.
type Reader struct {
	name   string
	r      *bufio.Reader
	line   int    // number of the last line read (1-based)
	partly bool   // the last piece did not end its line
	buf    []byte // the current piece
	eof    bool
	alph   *Alphabet // set by the first ALPH line; later models must agree
	nread  int
	err    error // a read error or a NUL byte: ends the input like EOF, but reported
}

// NewReader reads models from r; name is used in error messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, r: bufio.NewReaderSize(r, 1<<16)}
}

// ReadFile reads every model in a file.
func ReadFile(path string) ([]*HMM, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open HMM file %s: %w", path, err)
	}
	defer f.Close()
	rd := NewReader(f, path)
	var hmms []*HMM
	for {
		h, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		hmms = append(hmms, h)
	}
	if len(hmms) == 0 {
		return nil, fmt.Errorf("%s: no HMMs in file", path)
	}
	return hmms, nil
}

// gets returns the next fgets() piece: at most 511 bytes, ending at and
// including a newline when one comes first. ok is false at end of file.
func (rd *Reader) gets() (piece []byte, ok bool) {
	if rd.eof {
		return nil, false
	}
	rd.buf = rd.buf[:0]
	for len(rd.buf) < fgetsSize-1 {
		c, err := rd.r.ReadByte()
		if err != nil {
			rd.eof = true
			if err != io.EOF {
				var pe *os.PathError
				if errors.As(err, &pe) { // it would name the file twice
					err = pe.Err
				}
				rd.err = fmt.Errorf("%s: %v", rd.name, err)
			}
			break
		}
		rd.buf = append(rd.buf, c)
		if c == '\n' {
			break
		}
	}
	if len(rd.buf) == 0 {
		return nil, false
	}
	if !rd.partly {
		rd.line++
	}
	// hmm2search's C strings end at a NUL, which silently drops the rest
	// of the line (and so fields); HMMER2 then fails or misreads the
	// model. A NUL is never part of a valid model: say so.
	if bytes.IndexByte(rd.buf, 0) >= 0 {
		rd.eof, rd.err = true, rd.errorf("NUL byte in the model file")
		return nil, false
	}
	rd.partly = rd.buf[len(rd.buf)-1] != '\n'
	return rd.buf, true
}

func (rd *Reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s line %d: %s", rd.name, rd.line, fmt.Sprintf(format, args...))
}

// tokens splits like strtok(s, " \t\n").
func tokens(s []byte) []string {
	return strings.FieldsFunc(string(s), func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
}

// chop removes trailing white space (StringChop).
func chop(s []byte) string {
	return strings.TrimRightFunc(string(s), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	})
}

// atoi parses like C's atoi: leading white space, optional sign, digits;
// anything after is ignored and no digits give 0.
func atoi(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	n := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<31 {
			n = 1 << 31
		}
	}
	if neg {
		n = -n
	}
	return int(int32(n))
}

// ascii2prob decodes a saved score: "*" is probability zero.
func ascii2prob(s string, null float32) float32 {
	if strings.HasPrefix(s, "*") {
		return 0
	}
	return Score2Prob(int32(atoi(s)), null)
}

// after returns the text of a header line from byte 6 on (buffer+6).
func after(line []byte) []byte {
	if len(line) <= 6 {
		return nil
	}
	return line[6:]
}

// Next reads the next model, renormalised and ready for Logoddsify. It
// returns io.EOF when no model is left.
func (rd *Reader) Next() (*HMM, error) {
	if rd.line == 0 {
		if head, _ := rd.r.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
			return nil, fmt.Errorf("%s: gzip-compressed model files are not supported (nor by hmm2search 2.3.2): gunzip it first", rd.name)
		}
	}
	first, ok := rd.gets()
	if !ok {
		if rd.err != nil {
			return nil, rd.err
		}
		return nil, io.EOF
	}
	if !bytes.HasPrefix(first, []byte("HMMER2.0")) {
		if rd.nread == 0 && bytes.HasPrefix(first, []byte("HMMER3")) {
			return nil, rd.errorf("this is a HMMER3 model; hmm2search reads HMMER2 models (convert it with HMMER3's hmmconvert -2)")
		}
		if rd.nread == 0 && len(first) >= 4 && first[0]&0x80 != 0 {
			return nil, rd.errorf("binary HMMER2 model files are not supported; convert with hmm2convert")
		}
		if rd.nread == 0 {
			return nil, rd.errorf("not a HMMER2.0 ASCII model file (first line must start with \"HMMER2.0\")")
		}
		return nil, rd.errorf("expected \"HMMER2.0\" to start the next model")
	}
	rd.nread++
	h := &HMM{}
	M := -1
	sawHMM := false
	hasName := false
	for {
		line, ok := rd.gets()
		if !ok {
			break
		}
		tag := string(line[:min(5, len(line))])
		switch {
		case tag == "NAME ":
			h.Name, hasName = chop(after(line)), true
		case tag == "ACC  ":
			h.Acc, h.HasAcc = chop(after(line)), true
		case tag == "DESC ":
			h.Desc, h.HasDesc = chop(after(line)), true
		case tag == "LENG ":
			M = atoi(string(after(line)))
		case tag == "NSEQ ":
			h.Nseq = atoi(string(after(line)))
		case tag == "ALPH ":
			v := strings.ToUpper(string(after(line)))
			var t AlphabetType
			switch {
			case strings.HasPrefix(v, "AMINO"):
				t = Amino
			case strings.HasPrefix(v, "NUCLEIC"):
				t = Nucleic
			default:
				return nil, rd.errorf("ALPH must be Amino or Nucleic")
			}
			if rd.alph == nil {
				rd.alph = NewAlphabet(t)
			} else if rd.alph.Type != t {
				return nil, rd.errorf("alphabet mismatch: this model is %s, an earlier one was %s", t, rd.alph.Type)
			}
			h.Alph = rd.alph
		case tag == "RF   ":
			h.HasRF = upperIs(after(line), 'Y')
		case tag == "CS   ":
			h.HasCS = upperIs(after(line), 'Y')
		case tag == "MAP  ":
			h.HasMap = upperIs(after(line), 'Y')
		case tag == "COM  ":
			if h.Comlog == "" {
				h.Comlog = chop(after(line))
			} else {
				h.Comlog += "\n" + chop(after(line))
			}
		case tag == "DATE ":
			h.Ctime = chop(after(line))
		case tag == "GA   " || tag == "TC   " || tag == "NC   ":
			f := tokens(after(line))
			if len(f) < 2 {
				return nil, rd.errorf("%s line needs two cutoffs", strings.TrimSpace(tag))
			}
			v := [2]float32{float32(atof(f[0])), float32(atof(f[1]))}
			switch tag {
			case "GA   ":
				h.GA, h.HasGA = v, true
			case "TC   ":
				h.TC, h.HasTC = v, true
			default:
				h.NC, h.HasNC = v, true
			}
		case tag == "XT   ":
			f := tokens(after(line))
			if len(f) < 8 {
				return nil, rd.errorf("XT line needs 8 fields, has %d", len(f))
			}
			for k := 0; k < 4; k++ {
				for x := 0; x < 2; x++ {
					h.Xt[k][x] = ascii2prob(f[2*k+x], 1.0)
				}
			}
		case tag == "NULT ":
			f := tokens(after(line))
			if len(f) < 2 {
				return nil, rd.errorf("NULT line needs 2 fields")
			}
			p1 := ascii2prob(f[0], 1.)
			h.P1 = p1 / (p1 + ascii2prob(f[1], 1.0))
		case tag == "NULE ":
			if h.Alph == nil {
				return nil, rd.errorf("ALPH must precede NULE")
			}
			f := tokens(after(line))
			if len(f) < h.Alph.Size {
				return nil, rd.errorf("NULE line needs %d fields, has %d", h.Alph.Size, len(f))
			}
			u := float32(1. / float64(float32(h.Alph.Size)))
			for x := 0; x < h.Alph.Size; x++ {
				h.Null[x] = ascii2prob(f[x], u)
			}
		case tag == "EVD  ":
			f := tokens(after(line))
			if len(f) < 2 {
				return nil, rd.errorf("EVD line needs mu and lambda")
			}
			h.HasStats = true
			h.Mu, h.Lambda = float32(atof(f[0])), float32(atof(f[1]))
		case tag == "CKSUM":
			h.Checksum = atoi(string(after(line)))
		case tag == "HMM  ":
			sawHMM = true
		}
		if sawHMM {
			break
		}
	}
	switch {
	case rd.err != nil:
		return nil, rd.err
	case !sawHMM:
		return nil, rd.errorf("model ended before its \"HMM\" line")
	case M < 1:
		return nil, rd.errorf("missing or bad LENG line")
	case !hasName:
		return nil, rd.errorf("missing NAME line")
	case h.Alph == nil:
		return nil, rd.errorf("missing ALPH line")
	}
	if err := rd.readBody(h, M); err != nil {
		return nil, err
	}
	h.Renormalize()
	return h, nil
}

func upperIs(s []byte, c byte) bool {
	return len(s) > 0 && (s[0] == c || s[0] == c+'a'-'A')
}

func (rd *Reader) need(what string) ([]string, error) {
	line, ok := rd.gets()
	if !ok {
		if rd.err != nil {
			return nil, rd.err
		}
		return nil, rd.errorf("file ends inside the model (expected %s)", what)
	}
	return tokens(line), nil
}

// readBody parses the main model section: an annotation line, the B->D1
// line, then three lines per node.
func (rd *Reader) readBody(h *HMM, M int) error {
	h.newBody(M)
	K := h.Alph.Size
	if _, err := rd.need("the transition header line"); err != nil {
		return err
	}
	f, err := rd.need("the B->D1 line")
	if err != nil {
		return err
	}
	if len(f) < 3 {
		return rd.errorf("B->D1 line needs 3 fields")
	}
	p := ascii2prob(f[0], 1.0)
	h.Tbd1 = ascii2prob(f[2], 1.0)
	h.Tbd1 = h.Tbd1 / (p + h.Tbd1)

	for k := 1; k <= M; k++ {
		f, err := rd.need(fmt.Sprintf("node %d match emissions", k))
		if err != nil {
			return err
		}
		want := 1 + K
		if h.HasMap {
			want++
		}
		if len(f) < want {
			return rd.errorf("node %d: match emission line needs %d fields, has %d", k, want, len(f))
		}
		if atoi(f[0]) != k {
			return rd.errorf("expected node %d, found %q", k, f[0])
		}
		for x := 0; x < K; x++ {
			h.Mat[k][x] = ascii2prob(f[1+x], h.Null[x])
		}
		if h.HasMap {
			h.Map[k] = atoi(f[1+K])
		}

		if f, err = rd.need(fmt.Sprintf("node %d insert emissions", k)); err != nil {
			return err
		}
		if len(f) < 1 || (k < M && len(f) < 1+K) {
			return rd.errorf("node %d: insert emission line needs %d fields, has %d", k, 1+K, len(f))
		}
		if h.HasRF {
			h.RF[k] = f[0][0]
		}
		if k < M {
			for x := 0; x < K; x++ {
				h.Ins[k][x] = ascii2prob(f[1+x], h.Null[x])
			}
		}

		if f, err = rd.need(fmt.Sprintf("node %d transitions", k)); err != nil {
			return err
		}
		if len(f) < 10 {
			return rd.errorf("node %d: transition line needs 10 fields, has %d", k, len(f))
		}
		if h.HasCS {
			h.CS[k] = f[0][0]
		}
		if k < M {
			for x := 0; x < 7; x++ {
				h.T[k][x] = ascii2prob(f[1+x], 1.0)
			}
		}
		h.Begin[k] = ascii2prob(f[8], 1.0)
		h.End[k] = ascii2prob(f[9], 1.0)
	}
	// Skip to the record separator, as HMMER2 does.
	for {
		line, ok := rd.gets()
		if !ok {
			if rd.err != nil {
				return rd.err
			}
			break
		}
		if bytes.HasPrefix(line, []byte("//")) {
			break
		}
	}
	return nil
}

// atof parses like C's atof on the numbers that appear in save files:
// the longest leading prefix that is a number; trailing junk is ignored.
func atof(s string) float64 {
	s = strings.TrimLeft(s, " \t")
	end := 0
	for end < len(s) && strings.IndexByte("+-0123456789.eE", s[end]) >= 0 {
		end++
	}
	for ; end > 0; end-- {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		}
	}
	return 0
}
