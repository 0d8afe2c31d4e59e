// Package sqio reads sequence databases the way HMMER 2.3.2's squid
// library (version 1.9g) does: the same format autodetection, the same
// record boundaries, the same truncation of names (63 characters) and
// descriptions (127), and the same residue rule: every character of a
// sequence line that is not a digit or white space is a residue, so '*',
// '-' and '.' count (HMMER2 then scores them as X).
//
// Supported formats: FASTA, EMBL/Swiss-Prot, GenBank, PIR and Stockholm
// alignments (whose sequences are read dealigned), plain or
// gzip-compressed, from a file or standard input. The other alignment
// formats and the rarer squid formats (GCG, IG, Strider, Zuker) are
// reported as unsupported rather than misread.
package sqio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format is a sequence file format.
type Format int

const (
	Unknown Format = iota
	FASTA
	EMBL
	GenBank
	PIR
	// Formats squid knows but this reader does not parse.
	GCG
	GCGData
	IG
	Strider
	Zuker
	Raw
	Stockholm
	SELEX
	MSF
	Clustal
	A2M
	PHYLIP
)

var formatNames = map[Format]string{
	FASTA: "FASTA", EMBL: "EMBL", GenBank: "GenBank", PIR: "PIR", GCG: "GCG",
	GCGData: "GCGdata", IG: "IG", Strider: "Strider", Zuker: "Zuker", Raw: "raw",
	Stockholm: "Stockholm", SELEX: "SELEX", MSF: "MSF", Clustal: "Clustal",
	A2M: "A2M", PHYLIP: "PHYLIP",
}

func (f Format) String() string {
	if s, ok := formatNames[f]; ok {
		return s
	}
	return "unknown"
}

// ParseFormat maps a --informat name to a format, case-insensitively,
// with squid's String2SeqfileFormat() names.
func ParseFormat(s string) (Format, bool) {
	switch strings.ToUpper(s) {
	case "FASTA":
		return FASTA, true
	case "GENBANK":
		return GenBank, true
	case "EMBL":
		return EMBL, true
	case "GCG":
		return GCG, true
	case "GCGDATA":
		return GCGData, true
	case "RAW":
		return Raw, true
	case "IG":
		return IG, true
	case "STRIDER":
		return Strider, true
	case "ZUKER":
		return Zuker, true
	case "PIR":
		return PIR, true
	case "STOCKHOLM":
		return Stockholm, true
	case "SELEX":
		return SELEX, true
	case "MSF":
		return MSF, true
	case "CLUSTAL":
		return Clustal, true
	case "A2M":
		return A2M, true
	case "PHYLIP":
		return PHYLIP, true
	}
	return Unknown, false
}

func (f Format) supported() bool { return (f >= FASTA && f <= PIR) || f == Stockholm }

// Field limits of squid's SQINFO.
const (
	NameLen = 63
	DescLen = 127
)

// Sequence is one record. Seq holds the residue characters exactly as
// squid keeps them.
type Sequence struct {
	Name, Acc, Desc string
	HasAcc, HasDesc bool
	Seq             []byte
	Line            int // line where the record starts
	hasName         bool
}

// Reader reads records one after another.
type Reader struct {
	name   string
	format Format
	br     *bufio.Reader
	closer []io.Closer

	buf  string // current line, with its newline; "" after end of file
	eof  bool   // feof(): a read has reached the end of the input
	line int    // number of the current line

	lastName string // squid leaves a rejected name as it was before

	msa *alignment // the Stockholm alignment being returned
}

// Open opens a sequence file. Path "-" is standard input; a name ending
// in ".gz" is decompressed. Those two cannot be rewound, so like
// hmm2search they are taken as FASTA unless a format is given. A path
// that does not exist is also looked up in the directories listed in
// the environment variable env (squid's BLASTDB convention), if env is
// not empty.
func Open(path string, format Format, stdin io.Reader, env string) (*Reader, error) {
	rd := &Reader{name: path}
	var src io.Reader
	switch {
	case path == "-":
		rd.name = "[STDIN]"
		src = stdin
		if format == Unknown {
			format = FASTA
		}
	default:
		f, err := os.Open(path)
		if err != nil && env != "" && !filepath.IsAbs(path) {
			for _, dir := range strings.Split(os.Getenv(env), ":") {
				if dir == "" {
					continue
				}
				if f2, err2 := os.Open(filepath.Join(dir, path)); err2 == nil {
					f, err = f2, nil
					break
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("cannot open sequence file %s: %v", path, unwrapPath(err))
		}
		rd.closer = append(rd.closer, f)
		src = f
		if strings.HasSuffix(path, ".gz") {
			zr, err := gzip.NewReader(f)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: not a gzip file: %v", path, err)
			}
			rd.closer = append(rd.closer, zr)
			src = zr
			if format == Unknown {
				format = FASTA
			}
		} else if format == Unknown {
			format, err = detect(f, path)
			if err != nil {
				f.Close()
				return nil, err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %v", path, err)
			}
		}
	}
	if !format.supported() {
		rd.Close()
		return nil, fmt.Errorf("%s: %s format is not supported by hmmgo hmm2search; convert it to FASTA", path, format)
	}
	rd.format = format
	rd.br = bufio.NewReaderSize(src, 1<<20)
	if err := rd.getLine(); err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Format returns the format being read.
func (rd *Reader) Format() Format { return rd.format }

// Close releases the input.
func (rd *Reader) Close() error {
	var first error
	for i := len(rd.closer) - 1; i >= 0; i-- {
		if err := rd.closer[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	rd.closer = nil
	return first
}

// getLine is SeqfileGetLine(): the next whole line, newline included;
// at end of input the line is empty. eof becomes true as soon as a read
// reaches the end, which for a last line without a newline is while that
// line is still current (feof() after fgets()).
func (rd *Reader) getLine() error {
	s, err := rd.br.ReadString('\n')
	rd.line++
	rd.buf = s
	if err != nil {
		rd.eof = true
		if err == io.ErrUnexpectedEOF { // from the gzip reader
			err = errors.New("truncated gzip data (unexpected end of compressed input)")
		}
		if err != io.EOF {
			rd.buf = ""
			return fmt.Errorf("%s line %d: %v", rd.name, rd.line, unwrapPath(err))
		}
	}
	// squid's C strings end at a NUL, and its line reader then joins the
	// next line to the cut one: hmm2search scores something that is not
	// in the file. Refuse the file instead.
	if strings.IndexByte(s, 0) >= 0 {
		rd.eof, rd.buf = true, ""
		return rd.errorf("NUL byte in the sequence file")
	}
	return nil
}

func (rd *Reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s line %d: %s", rd.name, rd.line, fmt.Sprintf(format, args...))
}

// Next reads the next record into s, reusing its storage. It returns
// io.EOF when no record is left.
func (rd *Reader) Next(s *Sequence) error {
	if rd.format == Stockholm {
		return rd.nextFromAlignment(s)
	}
	if rd.eof {
		// squid's ReadSeq() stops as soon as feof() is set, even when a
		// last line without a newline is still in its buffer.
		return io.EOF
	}
	s.Seq = s.Seq[:0]
	s.Name, s.Acc, s.Desc = rd.lastName, "", ""
	s.HasAcc, s.HasDesc, s.hasName = false, false, false
	s.Line = rd.line
	var err error
	switch rd.format {
	case FASTA:
		err = rd.readFASTA(s)
	case EMBL:
		err = rd.readEMBL(s)
	case GenBank:
		err = rd.readGenBank(s)
	case PIR:
		err = rd.readPIR(s)
	}
	if err != nil {
		return err
	}
	if s.hasName {
		rd.lastName = s.Name
	}
	return nil
}

// addSeq appends the residues of a line: every character that is not a
// digit or white space. The runs between skipped characters are copied
// whole (a sequence line has one, before its newline): on large
// databases the reader is what most likely bounds hmm2search --gpu.
func addSeq(s *Sequence, line string) {
	start := 0
	for i := 0; i < len(line); i++ {
		if notResidue[line[i]] {
			s.Seq = append(s.Seq, line[start:i]...)
			start = i + 1
		}
	}
	s.Seq = append(s.Seq, line[start:]...)
}

// notResidue marks the characters addSeq skips: digits and white space.
var notResidue = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = (c >= '0' && c <= '9') || isSpace(byte(c))
	}
	return t
}()

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// readLoop adds lines until endTest says the record has ended; the end
// line is added only when addEnd says so.
func (rd *Reader) readLoop(s *Sequence, endTest func(string) (end, addEnd bool)) error {
	for {
		if err := rd.getLine(); err != nil {
			return err
		}
		done := rd.buf == "" && rd.eof
		end, addEnd := endTest(rd.buf)
		done = done || end
		if addEnd || !done {
			addSeq(s, rd.buf)
		}
		if done {
			return nil
		}
	}
}

// strtok emulates one call of C's strtok on s: skip leading delimiters,
// return the token and the rest after its terminating delimiter.
func strtok(s, delim string) (tok, rest string, ok bool) {
	i := 0
	for i < len(s) && strings.IndexByte(delim, s[i]) >= 0 {
		i++
	}
	if i == len(s) {
		return "", "", false
	}
	j := i
	for j < len(s) && strings.IndexByte(delim, s[j]) < 0 {
		j++
	}
	if j < len(s) {
		return s[i:j], s[j+1:], true
	}
	return s[i:j], "", true
}

// field cleans a value as SetSeqinfoString() does: leading spaces and
// trailing white space go; a value starting with '-' is ignored.
func field(v string, max int) (string, bool) {
	v = strings.TrimLeft(v, " ")
	v = strings.TrimRightFunc(v, func(r rune) bool { return r < 128 && isSpace(byte(r)) })
	if strings.HasPrefix(v, "-") {
		return "", false
	}
	if len(v) > max {
		v = v[:max]
	}
	return v, true
}

func (s *Sequence) setName(v string) {
	if n, ok := field(v, NameLen); ok {
		s.Name, s.hasName = n, true
	}
}

func (s *Sequence) setAcc(v string) {
	if a, ok := field(v, NameLen); ok {
		s.Acc, s.HasAcc = a, true
	}
}

// addDesc sets or, for a second description line, appends with a
// space, within squid's 127 characters.
func (s *Sequence) addDesc(v string) {
	d, ok := field(v, DescLen)
	if !ok {
		return
	}
	if !s.HasDesc {
		s.Desc, s.HasDesc = d, true
		return
	}
	if len(s.Desc) < DescLen-1 {
		s.Desc += " " + d
		if len(s.Desc) > DescLen {
			s.Desc = s.Desc[:DescLen]
		}
	}
}

func (rd *Reader) readFASTA(s *Sequence) error {
	if !strings.HasPrefix(rd.buf, ">") {
		return rd.errorf("not in FASTA format: a record must start with '>' (use --informat if the format was misdetected)")
	}
	if name, rest, ok := strtok(rd.buf[1:], "\n\t "); ok {
		s.setName(name)
		if desc, _, ok := strtok(rest, "\n"); ok {
			s.addDesc(desc)
		}
	}
	if err := rd.readLoop(s, func(l string) (bool, bool) { return strings.HasPrefix(l, ">"), false }); err != nil {
		return err
	}
	for !(rd.eof || strings.HasPrefix(rd.buf, ">")) {
		if err := rd.getLine(); err != nil {
			return err
		}
	}
	return nil
}

func (rd *Reader) skipTo(prefix string) error {
	for !rd.eof && !strings.HasPrefix(rd.buf, prefix) {
		if err := rd.getLine(); err != nil {
			return err
		}
	}
	return nil
}

func (rd *Reader) readEMBL(s *Sequence) error {
	if err := rd.skipTo("ID  "); err != nil {
		return err
	}
	if len(rd.buf) > 5 {
		if name, _, ok := strtok(rd.buf[5:], "\n\t "); ok {
			s.setName(name)
		}
	}
	for {
		if err := rd.getLine(); err != nil {
			return err
		}
		if !rd.eof && strings.HasPrefix(rd.buf, "AC  ") && len(rd.buf) > 5 {
			if acc, _, ok := strtok(rd.buf[5:], ";  \t\n"); ok {
				s.setAcc(acc)
			}
		} else if !rd.eof && strings.HasPrefix(rd.buf, "DE  ") && len(rd.buf) > 5 {
			if desc, _, ok := strtok(rd.buf[5:], "\n"); ok {
				s.addDesc(desc)
			}
		}
		if rd.eof || strings.HasPrefix(rd.buf, "SQ") {
			break
		}
	}
	// Sequence lines start with five spaces; anything else ends them.
	if err := rd.readLoop(s, func(l string) (bool, bool) { return !strings.HasPrefix(l, "     "), false }); err != nil {
		return err
	}
	for i, c := range s.Seq {
		if c == '-' { // squid's hack for Staden experiment files
			s.Seq[i] = 'N'
		}
	}
	return rd.skipTo("ID  ")
}

func (rd *Reader) readGenBank(s *Sequence) error {
	for !strings.HasPrefix(rd.buf, "LOCUS") {
		if rd.eof {
			return io.EOF
		}
		if err := rd.getLine(); err != nil {
			return err
		}
	}
	if len(rd.buf) > 12 {
		if name, _, ok := strtok(rd.buf[12:], "\n\t "); ok {
			s.setName(name)
		}
	}
	inDefinition := false
	for !rd.eof {
		if err := rd.getLine(); err != nil {
			return err
		}
		switch {
		case !rd.eof && strings.HasPrefix(rd.buf, "DEFINITION"):
			if len(rd.buf) > 12 {
				if desc, _, ok := strtok(rd.buf[12:], "\n"); ok {
					s.addDesc(desc)
				}
			}
			inDefinition = true
		case !rd.eof && strings.HasPrefix(rd.buf, "ACCESSION"):
			if len(rd.buf) > 12 {
				if acc, _, ok := strtok(rd.buf[12:], "\n\t "); ok {
					s.setAcc(acc)
				}
			}
			inDefinition = false
		case !rd.eof && strings.HasPrefix(rd.buf, "VERSION"):
			inDefinition = false
		case !strings.HasPrefix(rd.buf, "ORIGIN"):
			if inDefinition {
				s.addDesc(rd.buf)
			}
		default:
			goto origin
		}
	}
origin:
	if err := rd.readLoop(s, func(l string) (bool, bool) {
		return strings.Contains(l, "//") || strings.HasPrefix(l, "LOCUS"), false
	}); err != nil {
		return err
	}
	for !(rd.eof || (rd.buf != "" && strings.HasPrefix(rd.buf, "LOCUS"))) {
		if err := rd.getLine(); err != nil {
			return err
		}
	}
	for !rd.eof && !strings.HasPrefix(rd.buf, "LOCUS  ") {
		if err := rd.getLine(); err != nil {
			return err
		}
	}
	return nil
}

func (rd *Reader) readPIR(s *Sequence) error {
	if err := rd.skipTo("ENTRY"); err != nil {
		return err
	}
	if rd.eof {
		return io.EOF
	}
	if len(rd.buf) > 15 {
		if name, _, ok := strtok(rd.buf[15:], "\n\t "); ok {
			s.setName(name)
		}
	}
	for {
		if err := rd.getLine(); err != nil {
			return err
		}
		if !rd.eof && strings.HasPrefix(rd.buf, "TITLE") && len(rd.buf) > 15 {
			s.addDesc(rd.buf[15:])
		} else if !rd.eof && strings.HasPrefix(rd.buf, "ACCESSION") && len(rd.buf) > 15 {
			if acc, _, ok := strtok(rd.buf[15:], " \t\n"); ok {
				s.setAcc(acc)
			}
		}
		if rd.eof || strings.HasPrefix(rd.buf, "SEQUENCE") {
			break
		}
	}
	if err := rd.getLine(); err != nil { // the coordinate ruler line
		return err
	}
	if err := rd.readLoop(s, func(l string) (bool, bool) {
		return strings.HasPrefix(l, "///") || strings.HasPrefix(l, "ENTRY"), false
	}); err != nil {
		return err
	}
	return rd.skipTo("ENTRY")
}
