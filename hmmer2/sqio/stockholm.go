package sqio

import (
	"io"
	"strings"
)

// msaSeq is one sequence of a Stockholm alignment being read.
type msaSeq struct {
	name, acc, desc string
	hasAcc, hasDesc bool
	aseq            []byte
	seen            bool // has a sequence line
}

// alignment is one Stockholm record, returned sequence by sequence.
type alignment struct {
	seqs  []*msaSeq
	index map[string]int
	next  int
	last  int // squid's msa->lastidx: where the next name is guessed
}

func (a *alignment) seqidx(name string) int {
	if g := a.last + 1; g < len(a.seqs) && a.seqs[g].name == name {
		return g
	}
	if i, ok := a.index[name]; ok {
		return i
	}
	a.seqs = append(a.seqs, &msaSeq{name: name})
	a.index[name] = len(a.seqs) - 1
	return len(a.seqs) - 1
}

// readStockholm parses the next alignment as squid's ReadStockholm()
// does, keeping what hmm2search uses: names, #=GS AC and DE, and the
// aligned sequences. It returns nil at end of input.
func (rd *Reader) readStockholm() (*alignment, error) {
	// The current line (rd.buf) is unread: skip blank lines to the header.
	for rd.buf == "" || blank(rd.buf) {
		if rd.eof && rd.buf == "" {
			return nil, nil
		}
		if err := rd.getLine(); err != nil {
			return nil, err
		}
		if rd.eof && rd.buf == "" {
			return nil, nil
		}
	}
	if !strings.HasPrefix(rd.buf, "# STOCKHOLM 1.") {
		return nil, rd.errorf("not in Stockholm format (expected \"# STOCKHOLM 1.0\")")
	}
	a := &alignment{index: map[string]int{}, last: -1}
	ended := false
	for {
		if err := rd.getLine(); err != nil {
			return nil, err
		}
		if rd.buf == "" && rd.eof {
			break
		}
		s := strings.TrimLeft(rd.buf, " \t")
		switch {
		case strings.HasPrefix(s, "#=GS"):
			f := fieldsN(s, 3)
			if f == nil {
				return nil, rd.errorf("Stockholm #=GS line needs a name, a feature and text")
			}
			raw, _, ok := strtok(f[3], "\n")
			if !ok {
				return nil, rd.errorf("Stockholm #=GS line needs a name, a feature and text")
			}
			text := strings.TrimLeft(raw, " \t")
			i := a.seqidx(f[1])
			a.last = i
			switch f[2] {
			case "AC":
				a.seqs[i].acc, a.seqs[i].hasAcc = text, true
			case "DE":
				a.seqs[i].desc, a.seqs[i].hasDesc = text, true
			}
		case strings.HasPrefix(s, "#"):
			// #=GF, #=GC, #=GR and comments carry nothing hmm2search uses.
		case strings.HasPrefix(s, "//"):
			ended = true
		case strings.HasPrefix(s, "\n") || s == "":
		default:
			f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
			if len(f) < 2 {
				return nil, rd.errorf("Stockholm sequence line needs a name and residues")
			}
			i := a.seqidx(f[0])
			a.last = i
			a.seqs[i].aseq = append(a.seqs[i].aseq, f[1]...)
			a.seqs[i].seen = true
		}
		if ended {
			break
		}
	}
	if !ended {
		if len(a.seqs) == 0 {
			return nil, nil // junk after the last alignment
		}
		return nil, rd.errorf("alignment has no // line at its end")
	}
	if len(a.seqs) == 0 {
		return nil, rd.errorf("no sequences in alignment")
	}
	alen := len(a.seqs[0].aseq)
	for _, q := range a.seqs {
		if !q.seen {
			return nil, rd.errorf("no sequence for %s in the alignment", q.name)
		}
		if len(q.aseq) != alen {
			return nil, rd.errorf("sequence %s has %d columns, expected %d", q.name, len(q.aseq), alen)
		}
	}
	// Leave the line after "//" unread for the next alignment.
	if err := rd.getLine(); err != nil {
		return nil, err
	}
	return a, nil
}

// fieldsN splits off the first n white-space separated fields and the
// rest of the line (sre_strtok with " \t\n" n times, then "\n").
func fieldsN(s string, n int) []string {
	out := make([]string, 0, n+1)
	for i := 0; i < n; i++ {
		tok, rest, ok := strtok(s, " \t\n")
		if !ok {
			return nil
		}
		out = append(out, tok)
		s = rest
	}
	return append(out, s)
}

// nextFromAlignment returns the next sequence of the current alignment,
// reading alignments as needed, dealigned (gap characters removed) as
// squid's ReadSeq() does for alignment formats.
func (rd *Reader) nextFromAlignment(s *Sequence) error {
	for rd.msa == nil || rd.msa.next >= len(rd.msa.seqs) {
		a, err := rd.readStockholm()
		if err != nil {
			return err
		}
		if a == nil {
			return io.EOF
		}
		rd.msa = a
	}
	q := rd.msa.seqs[rd.msa.next]
	rd.msa.next++
	s.Seq = s.Seq[:0]
	for _, c := range q.aseq {
		if c != ' ' && c != '.' && c != '_' && c != '-' && c != '~' {
			s.Seq = append(s.Seq, c)
		}
	}
	s.Name, s.Acc, s.Desc = rd.lastName, "", ""
	s.HasAcc, s.HasDesc, s.hasName = false, false, false
	s.setName(q.name)
	if q.hasAcc {
		s.setAcc(q.acc)
	}
	if q.hasDesc {
		s.addDesc(q.desc)
	}
	if s.hasName {
		rd.lastName = s.Name
	}
	return nil
}
