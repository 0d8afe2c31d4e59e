package hits

import (
	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/seqio"
)

// DisplayModel is what an alignment display needs to know of the query
// model. The annotation strings follow HMMER's layout: length M+1 with a
// blank at index 0, or empty when the model lacks that annotation.
type DisplayModel struct {
	Name, Acc, Desc string
	M               int
	RF, MM, CS      string
	Consensus       string // required: the residue shown on the model line
	Abc             *alphabet.Alphabet
	// MatchOdds returns the Forward profile's match emission odds ratio
	// of node k for residue code x. The match line shows '+' for a
	// non-identical residue whose odds exceed 1.
	MatchOdds func(k int, x byte) float32
}

// NewDisplayModel collects the display fields of h. odds is the
// prepared profile's match odds (see DisplayModel.MatchOdds). When the
// file gave no consensus line (formats before 3/e), the consensus is made
// as p7_hmm_SetConsensus makes it: the most probable residue of each match
// state, upper case when its probability reaches 0.5 (amino) or 0.9
// (nucleic), else lower case.
func NewDisplayModel(h *hmm.HMM, odds func(k int, x byte) float32) *DisplayModel {
	cons := h.Consensus
	if cons == "" {
		cons = consensusOf(h)
	}
	return &DisplayModel{
		Name: h.Name, Acc: h.Acc, Desc: h.Desc, M: h.M,
		RF: h.RF, MM: h.MM, CS: h.CS, Consensus: cons,
		Abc: h.Alph, MatchOdds: odds,
	}
}

func consensusOf(h *hmm.HMM) string {
	thresh := float32(0.5)
	if h.Alph.Type == alphabet.DNA || h.Alph.Type == alphabet.RNA {
		thresh = 0.9
	}
	b := make([]byte, h.M+1)
	b[0] = ' '
	for k := 1; k <= h.M; k++ {
		best := 0
		for x := 1; x < h.Alph.K; x++ {
			if h.Mat[k][x] > h.Mat[k][best] {
				best = x
			}
		}
		c := h.Alph.Sym[best]
		if h.Mat[k][best] >= thresh {
			b[k] = upper(c)
		} else {
			b[k] = lower(c)
		}
	}
	return string(b)
}

// NewAliDisplay builds the alignment display of domain number which
// (0-based: the which'th B..E segment of tr) as HMMER 3.3.2's
// p7_alidisplay_Create does: the display runs from the domain's first to
// its last match state. It returns nil when the trace has no such domain
// or the domain has no match state.
//
// Trace coordinates are 1-based (I[z] in 1..L); sq.Dsq is 0-based.
// Like HMMER 3.3.2, the MM line is never filled in, even when the model
// has one (its construction is commented out upstream), so reports match.
func NewAliDisplay(tr *Trace, which int, m *DisplayModel, sq *seqio.Sequence) *AliDisplay {
	z1, z2, ok := domainSpan(tr, which)
	if !ok {
		return nil
	}
	n := z2 - z1 + 1
	ad := &AliDisplay{
		N:       n,
		HMMName: m.Name, HMMAcc: m.Acc, HMMDesc: m.Desc,
		HMMFrom: tr.K[z1], HMMTo: tr.K[z2], M: m.M,
		SqName: sq.Name, SqAcc: sq.Acc, SqDesc: sq.Desc,
		SqFrom: int64(tr.I[z1]), SqTo: int64(tr.I[z2]), L: int64(sq.L()),
	}

	// Insert columns get '.' on the per-node annotation lines.
	annotate := func(src string) string {
		if src == "" {
			return ""
		}
		b := make([]byte, n)
		for z := z1; z <= z2; z++ {
			if tr.St[z] == StI {
				b[z-z1] = '.'
			} else {
				b[z-z1] = src[tr.K[z]]
			}
		}
		return string(b)
	}
	ad.RFLine = annotate(m.RF)
	ad.CSLine = annotate(m.CS)

	if tr.PP != nil {
		b := make([]byte, n)
		for z := z1; z <= z2; z++ {
			if tr.St[z] == StD {
				b[z-z1] = '.'
			} else {
				b[z-z1] = EncodePostProb(tr.PP[z])
			}
		}
		ad.PPLine = string(b)
	}

	model := make([]byte, n)
	mline := make([]byte, n)
	aseq := make([]byte, n)
	sym := m.Abc.Sym
	for z := z1; z <= z2; z++ {
		k, i := tr.K[z], tr.I[z]
		switch tr.St[z] {
		case StM:
			x := sq.Dsq[i-1]
			model[z-z1] = m.Consensus[k]
			switch {
			case x == digitize(m.Abc, m.Consensus[k]):
				mline[z-z1] = m.Consensus[k]
			case m.MatchOdds(k, x) > 1.0: // odds, not log-odds: > 1 means a positive score
				mline[z-z1] = '+'
			default:
				mline[z-z1] = ' '
			}
			aseq[z-z1] = upper(sym[x])
		case StI:
			model[z-z1] = '.'
			mline[z-z1] = ' '
			aseq[z-z1] = lower(sym[sq.Dsq[i-1]])
		case StD:
			model[z-z1] = m.Consensus[k]
			mline[z-z1] = ' '
			aseq[z-z1] = '-'
		default:
			return nil // only M, D and I can lie between the first and last M
		}
	}
	ad.Model, ad.MLine, ad.ASeq = string(model), string(mline), string(aseq)
	return ad
}

// domainSpan finds the trace positions of the first and last match state
// of domain which, the way HMMER does for an unindexed trace: skip to the
// which'th B, the next M after it, then back from the following E to the
// last M before it.
func domainSpan(tr *Trace, which int) (z1, z2 int, ok bool) {
	n := len(tr.St)
	for z1 = 0; which >= 0 && z1 < n; z1++ {
		if tr.St[z1] == StB {
			which--
		}
	}
	if which >= 0 || z1 == n {
		return 0, 0, false
	}
	for ; z1 < n && tr.St[z1] != StM; z1++ {
	}
	if z1 == n {
		return 0, 0, false
	}
	for z2 = z1; z2 < n && tr.St[z2] != StE; z2++ {
	}
	if z2 == n {
		z2 = n - 1
	}
	for ; z2 >= 0 && tr.St[z2] != StM; z2-- {
	}
	if z2 < 0 {
		return 0, 0, false
	}
	return z1, z2, true
}

// EncodePostProb maps a posterior probability to HMMER's one-character
// code: '0' for [0,0.05), '1' for [0.05,0.15) ... '9', and '*' for
// [0.95,1]. The sum is taken in double precision as in C (float + 0.05).
func EncodePostProb(p float32) byte {
	v := float64(p) + 0.05
	if v >= 1.0 {
		return '*'
	}
	return byte(int(v*10.0)) + '0'
}

// digitize is the residue code of symbol c, or alphabet.Illegal.
func digitize(abc *alphabet.Alphabet, c byte) byte {
	if c >= 128 {
		return alphabet.Illegal
	}
	return abc.Inmap[c]
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}
