// Package alignio reads and writes the files PaPaRa works with: reference
// alignments in PHYLIP (sequential or interleaved, PaPaRa's relaxed
// flavour: a name is everything up to the first white space) or aligned
// FASTA, reads in FASTA, and the extended alignment in PaPaRa's PHYLIP
// layout or FASTA. Inputs may be gzip-compressed.
package alignio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Record is one named sequence with the line it starts on (for errors).
type Record struct {
	Name string
	Seq  []byte
	Line int
}

// Alignment is a set of equally long rows.
type Alignment struct {
	File   string
	Format string // "phylip" or "fasta"
	Rows   []Record
}

// Error is a problem with an input file, naming the file, the line (when
// known) and the record.
type Error struct {
	File   string
	Line   int
	Record string
	Reason string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Record != "" {
		return fmt.Sprintf("%s: record %q: %s", loc, e.Record, e.Reason)
	}
	return loc + ": " + e.Reason
}

// readAll reads a whole file, decompressing gzip data. A NUL byte is an
// error: no alignment or FASTA file has one, and inside a name it made a
// row that matched no tree tip.
func readAll(path string) ([]byte, error) {
	data, err := readAllBytes(path)
	if err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, &Error{File: path, Line: bytes.Count(data[:i], []byte{'\n'}) + 1, Reason: "NUL byte (a binary or damaged file?)"}
	}
	return data, nil
}

func readAllBytes(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		data, err := io.ReadAll(zr)
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%s: truncated gzip data (unexpected end of compressed input)", path)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return data, nil
	}
	return io.ReadAll(br)
}

// lines splits data into lines without their terminators (\n or \r\n).
func lines(data []byte) [][]byte {
	ls := bytes.Split(data, []byte{'\n'})
	if n := len(ls); n > 0 && len(ls[n-1]) == 0 {
		ls = ls[:n-1]
	}
	for i, l := range ls {
		ls[i] = bytes.TrimSuffix(l, []byte{'\r'})
	}
	return ls
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// appendResidues appends the non-space characters of s.
func appendResidues(dst, s []byte) []byte {
	for _, c := range s {
		if !isSpace(c) {
			dst = append(dst, c)
		}
	}
	return dst
}

// ReadAlignment reads a reference alignment, PHYLIP or aligned FASTA
// (recognised by a leading '>'), and checks that it is one: at least one
// row, unique names, all rows as long as the first (and as the PHYLIP
// header says).
func ReadAlignment(path string) (*Alignment, error) {
	data, err := readAll(path)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\v\f")
	var a *Alignment
	if len(trimmed) > 0 && trimmed[0] == '>' {
		recs, err := parseFasta(path, data)
		if err != nil {
			return nil, err
		}
		a = &Alignment{File: path, Format: "fasta", Rows: recs}
	} else {
		if a, err = parsePhylip(path, data); err != nil {
			return nil, err
		}
	}
	if len(a.Rows) == 0 {
		return nil, &Error{File: path, Reason: "no sequences in the alignment"}
	}
	seen := make(map[string]int, len(a.Rows))
	width := len(a.Rows[0].Seq)
	for _, r := range a.Rows {
		if prev, dup := seen[r.Name]; dup {
			return nil, &Error{File: path, Line: r.Line, Record: r.Name, Reason: fmt.Sprintf("duplicate name (first on line %d)", prev)}
		}
		seen[r.Name] = r.Line
		if len(r.Seq) != width {
			return nil, &Error{File: path, Line: r.Line, Record: r.Name,
				Reason: fmt.Sprintf("row has %d columns, the first row (%s) has %d", len(r.Seq), a.Rows[0].Name, width)}
		}
	}
	return a, nil
}

// parsePhylip reads PaPaRa's PHYLIP: a header "ntaxa ncolumns", one line
// per taxon "name sequence...", then, while the rows are shorter than the
// header says, blocks of one continuation line per taxon (interleaved).
func parsePhylip(path string, data []byte) (*Alignment, error) {
	ls := lines(data)
	i := 0
	for i < len(ls) && len(bytes.TrimSpace(ls[i])) == 0 {
		i++
	}
	if i == len(ls) {
		return nil, &Error{File: path, Reason: "empty file"}
	}
	hdr := bytes.Fields(ls[i])
	if len(hdr) < 2 {
		return nil, &Error{File: path, Line: i + 1, Reason: "expected a PHYLIP header \"<taxa> <columns>\" (or FASTA starting with '>')"}
	}
	ntaxa, err1 := strconv.Atoi(string(hdr[0]))
	ncols, err2 := strconv.Atoi(string(hdr[1]))
	if err1 != nil || err2 != nil || ntaxa <= 0 || ncols <= 0 {
		return nil, &Error{File: path, Line: i + 1, Reason: fmt.Sprintf("bad PHYLIP header %q", bytes.TrimSpace(ls[i]))}
	}
	i++
	for i < len(ls) && len(bytes.TrimSpace(ls[i])) == 0 {
		i++
	}
	a := &Alignment{File: path, Format: "phylip"}
	for t := 0; t < ntaxa; t++ {
		if i >= len(ls) {
			return nil, &Error{File: path, Line: i, Reason: fmt.Sprintf("the header announces %d taxa, the file ends after %d", ntaxa, t)}
		}
		l := ls[i]
		if len(l) == 0 || isSpace(l[0]) {
			return nil, &Error{File: path, Line: i + 1, Reason: "expected \"name sequence\"; the line starts with white space"}
		}
		ws := bytes.IndexAny(l, " \t\v\f")
		if ws < 0 {
			return nil, &Error{File: path, Line: i + 1, Reason: "expected \"name sequence\"; no white space after the name"}
		}
		a.Rows = append(a.Rows, Record{Name: string(l[:ws]), Seq: appendResidues(nil, l[ws:]), Line: i + 1})
		i++
	}
	for len(a.Rows[0].Seq) < ncols {
		for i < len(ls) && len(bytes.TrimSpace(ls[i])) == 0 {
			i++
		}
		if i >= len(ls) {
			break
		}
		for t := 0; t < ntaxa; t++ {
			if i >= len(ls) || len(bytes.TrimSpace(ls[i])) == 0 {
				return nil, &Error{File: path, Line: i + 1, Record: a.Rows[t].Name, Reason: "interleaved block ends early"}
			}
			a.Rows[t].Seq = appendResidues(a.Rows[t].Seq, ls[i])
			i++
		}
	}
	for _, r := range a.Rows {
		if len(r.Seq) != ncols {
			return nil, &Error{File: path, Line: r.Line, Record: r.Name,
				Reason: fmt.Sprintf("row has %d columns, the header says %d", len(r.Seq), ncols)}
		}
	}
	return a, nil
}

// parseFasta reads FASTA records: the name is the first word of the '>'
// line, the sequence every non-space character up to the next '>' line.
func parseFasta(path string, data []byte) ([]Record, error) {
	var recs []Record
	for n, l := range lines(data) {
		if len(l) > 0 && l[0] == '>' {
			f := bytes.Fields(l[1:])
			if len(f) == 0 {
				return nil, &Error{File: path, Line: n + 1, Reason: "record without a name"}
			}
			recs = append(recs, Record{Name: string(f[0]), Line: n + 1})
			continue
		}
		if len(recs) == 0 {
			if len(bytes.TrimSpace(l)) != 0 {
				return nil, &Error{File: path, Line: n + 1, Reason: "text before the first '>' record (not FASTA?)"}
			}
			continue
		}
		r := &recs[len(recs)-1]
		r.Seq = appendResidues(r.Seq, l)
	}
	return recs, nil
}

// ReadFasta reads the records of a FASTA file (the reads). Records without
// residues are errors.
func ReadFasta(path string) ([]Record, error) {
	data, err := readAll(path)
	if err != nil {
		return nil, err
	}
	recs, err := parseFasta(path, data)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, &Error{File: path, Reason: "no FASTA records"}
	}
	for _, r := range recs {
		if len(r.Seq) == 0 {
			return nil, &Error{File: path, Line: r.Line, Record: r.Name, Reason: "empty sequence"}
		}
	}
	return recs, nil
}

// WritePhylip writes rows in PaPaRa's PHYLIP layout: a header
// "<rows> <columns>", then every name left-justified in a field one wider
// than the longest name, followed by the sequence.
func WritePhylip(w io.Writer, names []string, seqs [][]byte) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	width, longest := 0, 0
	if len(seqs) > 0 {
		width = len(seqs[0])
	}
	for _, n := range names {
		longest = max(longest, len(n))
	}
	fmt.Fprintf(bw, "%d %d\n", len(names), width)
	pad := bytes.Repeat([]byte{' '}, longest+1)
	for i, n := range names {
		bw.WriteString(n)
		bw.Write(pad[:longest+1-len(n)])
		bw.Write(seqs[i])
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteFasta writes rows as FASTA, each sequence on one line (as PaPaRa).
func WriteFasta(w io.Writer, names []string, seqs [][]byte) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i, n := range names {
		bw.WriteByte('>')
		bw.WriteString(n)
		bw.WriteByte('\n')
		bw.Write(seqs[i])
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
