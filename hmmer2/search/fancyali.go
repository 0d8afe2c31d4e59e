package search

import (
	"fmt"
	"io"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
)

// aliWidth is HMMER2's ALILENGTH: alignment columns per output block.
const aliWidth = 50

// fancyAli is a domain alignment ready to print (fancyali_s): the
// optional RF and CS lines, the model consensus, the match line and the
// aligned target residues, all one column per trace state.
type fancyAli struct {
	rf, cs            []byte // nil when the model has no RF/CS annotation
	model, mline, seq []byte
	query, target     string
	sqfrom, sqto      int
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newFancyAli builds the alignment display of a domain trace as
// CreateFancyAli() does: model residues in upper case where the match
// emission probability is at least 0.5 (0.9 for DNA), identities on the
// match line, '+' for positive-scoring substitutions and insertions.
func newFancyAli(tr *viterbi.Trace, p *plan7.Profile, dsq []byte, name string) *fancyAli {
	h := p.HMM
	a := h.Alph
	n := tr.Len()
	ali := &fancyAli{query: h.Name, target: name}
	blank := func() []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = ' '
		}
		return b
	}
	ali.model, ali.mline, ali.seq = blank(), blank(), blank()
	if h.HasRF {
		ali.rf = blank()
	}
	if h.HasCS {
		ali.cs = blank()
	}
	mthresh := float32(0.9)
	if a.Type == plan7.Amino {
		mthresh = 0.5
	}
	for t := 0; t < n; t++ {
		if tr.Pos[t] > 0 {
			ali.sqfrom = int(tr.Pos[t])
			break
		}
	}
	for t := n - 1; t >= 0; t-- {
		if tr.Pos[t] > 0 {
			ali.sqto = int(tr.Pos[t])
			break
		}
	}
	sym := a.Symbols
	for t := 0; t < n; t++ {
		k := tr.Node[t]
		switch tr.St[t] {
		case viterbi.StS, viterbi.StT:
			ali.model[t] = '*'
		case viterbi.StN, viterbi.StJ, viterbi.StC:
			ali.model[t] = '-'
			if tr.Pos[t] > 0 {
				ali.seq[t] = lower(sym[dsq[tr.Pos[t]-1]])
			}
		case viterbi.StB:
			ali.model[t] = '>'
		case viterbi.StE:
			ali.model[t] = '<'
		case viterbi.StM, viterbi.StD:
			if h.HasRF {
				ali.rf[t] = h.RF[k]
			}
			if h.HasCS {
				ali.cs[t] = h.CS[k]
			}
			best := plan7.FArgMax(h.Mat[k][:a.Size])
			ali.model[t] = sym[best]
			if h.Mat[k][best] < mthresh {
				ali.model[t] = lower(ali.model[t])
			}
			if tr.St[t] == viterbi.StD {
				ali.seq[t] = '-'
				break
			}
			x := dsq[tr.Pos[t]-1]
			if int(x) == best {
				ali.mline[t] = sym[x]
				if h.Mat[k][best] < mthresh {
					ali.mline[t] = lower(ali.mline[t])
				}
			} else if p.Msc[x][k] > 0 {
				ali.mline[t] = '+'
			}
			ali.seq[t] = sym[x]
		case viterbi.StI:
			ali.model[t] = '.'
			x := dsq[tr.Pos[t]-1]
			if p.Isc[x][k] > 0 {
				ali.mline[t] = '+'
			}
			ali.seq[t] = lower(sym[x])
		}
	}
	return ali
}

func isGap(c byte) bool { return c == ' ' || c == '.' || c == '_' || c == '-' || c == '~' }

// print writes the alignment in blocks of 50 columns (PrintFancyAli).
func (ali *fancyAli) print(w io.Writer) {
	n := len(ali.model)
	endi := ali.sqfrom - 1
	for pos := 0; pos < n; pos += aliWidth {
		end := min(pos+aliWidth, n)
		starti := endi + 1
		for i := pos; i < end; i++ {
			if !isGap(ali.seq[i]) {
				endi++
			}
		}
		if ali.cs != nil {
			fmt.Fprintf(w, "  %16s %s\n", "CS", ali.cs[pos:end])
		}
		if ali.rf != nil {
			fmt.Fprintf(w, "  %16s %s\n", "RF", ali.rf[pos:end])
		}
		fmt.Fprintf(w, "  %16s %s\n", " ", ali.model[pos:end])
		fmt.Fprintf(w, "  %16s %s\n", " ", ali.mline[pos:end])
		tgt := ali.target
		if len(tgt) > 10 {
			tgt = tgt[:10]
		}
		if endi >= starti {
			fmt.Fprintf(w, "  %10s %5d %s %-5d\n\n", tgt, starti, ali.seq[pos:end], endi)
		} else {
			fmt.Fprintf(w, "  %10s %5s %s %-5s\n\n", tgt, "-", ali.seq[pos:end], "-")
		}
	}
}

// memBytes is what TophitsReport() counts for one alignment.
func (ali *fancyAli) memBytes() int {
	lines := 3
	if ali.rf != nil {
		lines++
	}
	if ali.cs != nil {
		lines++
	}
	return fancyAliStructBytes + lines*(len(ali.model)+1) + len(ali.query) + 1 + len(ali.target) + 1
}
