package pairhmm

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// RecordReader reads the record format of GATK's PairHMM test data and of
// gpuPairHMM: a line "R H", then R read lines of five whitespace-separated
// strings of equal length (bases, base qualities, insertion qualities,
// deletion qualities, gap continuation qualities, qualities as Phred+33
// text), then H haplotype lines. Gzip input is recognised by its magic
// bytes. Errors name the input and the line.
type RecordReader struct {
	name string
	br   *bufio.Reader
	line int
	gz   *gzip.Reader
}

// NewRecordReader reads records from r; name is used in error messages.
func NewRecordReader(r io.Reader, name string) (*RecordReader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	rr := &RecordReader{name: name, br: br}
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not readable as gzip: %v", name, err)
		}
		rr.gz = gz
		rr.br = bufio.NewReaderSize(gz, 1<<20)
	}
	return rr, nil
}

// nextLine returns the next line without its end-of-line bytes, or io.EOF.
func (rr *RecordReader) nextLine() ([]byte, error) {
	b, err := rr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A line longer than the buffer: gather it whole.
		long := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			b, err = rr.br.ReadSlice('\n')
			long = append(long, b...)
		}
		b = long
	}
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: line %d: input ends in the middle of the gzip stream (truncated file?)", rr.name, rr.line+1)
		}
		return nil, fmt.Errorf("%s: line %d: %v", rr.name, rr.line+1, err)
	}
	if err == io.EOF && len(b) == 0 {
		return nil, io.EOF
	}
	rr.line++
	b = bytes.TrimRight(b, "\r\n")
	return b, nil
}

func (rr *RecordReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: line %d: %s", rr.name, rr.line, fmt.Sprintf(format, args...))
}

// Next returns the next record, or io.EOF after the last one. Blank lines
// between records are skipped.
func (rr *RecordReader) Next() (*Group, error) {
	var header [][]byte
	for {
		b, err := rr.nextLine()
		if err != nil {
			return nil, err
		}
		header = bytes.Fields(b)
		if len(header) > 0 {
			break
		}
	}
	headerLine := rr.line
	if len(header) != 2 {
		return nil, rr.errorf("expected a record header \"R H\" (numbers of reads and haplotypes), found %d fields%s",
			len(header), hintExtraLine(len(header)))
	}
	nr, err1 := strconv.Atoi(string(header[0]))
	nh, err2 := strconv.Atoi(string(header[1]))
	if err1 != nil || err2 != nil || nr < 0 || nh < 0 {
		return nil, rr.errorf("record header %q: R and H must be non-negative integers", string(bytes.Join(header, []byte(" "))))
	}
	if nr > maxRecordLines || nh > maxRecordLines-nr {
		return nil, rr.errorf("record header %q declares more than %d lines", string(bytes.Join(header, []byte(" "))), maxRecordLines)
	}
	// The header is only a claim until the lines are there: a damaged
	// "2000000000 1" must fail at the end of the file, not in the allocator.
	g := &Group{Reads: make([]Read, min(nr, 1024)), Haplotypes: make([][]byte, 0, min(nh, 1024))}
	for i := 0; i < nr+nh; i++ {
		if i < nr && i == len(g.Reads) {
			g.Reads = append(g.Reads, make([]Read, min(nr-i, len(g.Reads)))...)
		}
		b, err := rr.nextLine()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: line %d: input ends inside the record of line %d, which declares %d reads and %d haplotypes (%d lines found)",
				rr.name, rr.line+1, headerLine, nr, nh, i)
		}
		if err != nil {
			return nil, err
		}
		f := bytes.Fields(b)
		if i < nr {
			if err := rr.parseRead(&g.Reads[i], f, i+1); err != nil {
				return nil, err
			}
			continue
		}
		if len(f) != 1 {
			return nil, rr.errorf("haplotype %d of the record of line %d: expected one sequence, found %d fields", i-nr+1, headerLine, len(f))
		}
		hap := append([]byte(nil), f[0]...)
		if _, err := encodeBases(nil, hap); err != nil {
			return nil, rr.errorf("haplotype %d: %v", i-nr+1, err)
		}
		g.Haplotypes = append(g.Haplotypes, hap)
	}
	return g, nil
}

func hintExtraLine(fields int) string {
	if fields == 1 || fields == 5 {
		return " (does the previous record hold more lines than its header declares?)"
	}
	return ""
}

// maxRecordLines bounds the reads plus haplotypes one record header may
// declare (GATK's records have hundreds), so that R+H cannot overflow.
const maxRecordLines = 1 << 30

var qualityNames = [4]string{"base", "insertion", "deletion", "gap continuation"}

func (rr *RecordReader) parseRead(r *Read, f [][]byte, n int) error {
	if len(f) != 5 {
		return rr.errorf("read %d: expected 5 fields (bases and four quality strings), found %d", n, len(f))
	}
	bases := append([]byte(nil), f[0]...)
	if _, err := encodeBases(nil, bases); err != nil {
		return rr.errorf("read %d: %v", n, err)
	}
	quals := [4][]byte{}
	for k := 0; k < 4; k++ {
		s := f[k+1]
		if len(s) != len(bases) {
			return rr.errorf("read %d: %s qualities have length %d, bases %d", n, qualityNames[k], len(s), len(bases))
		}
		q := make([]byte, len(s))
		for i, c := range s {
			if c < 33 || c > 126 {
				return rr.errorf("read %d: %s quality character %q at position %d is outside Phred+33 ('!'..'~')", n, qualityNames[k], c, i+1)
			}
			q[i] = c - 33
		}
		quals[k] = q
	}
	*r = Read{Bases: bases, BaseQuals: quals[0], InsQuals: quals[1], DelQuals: quals[2], GCPQuals: quals[3]}
	return nil
}

// Close releases the gzip reader, if any.
func (rr *RecordReader) Close() error {
	if rr.gz != nil {
		return rr.gz.Close()
	}
	return nil
}
