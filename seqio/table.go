package seqio

import "github.com/hmmgo/hmmgo/alphabet"

// Codes of a sequence-data byte map beyond the residue codes (which are
// all below 0x40). Bit 7 says "not a residue", bit 6 "stop and look":
// the inner loop advances on bit 7 clear and collects bit 6 for later.
const (
	codeIgnore   = 0x80 // skip it (blanks, CR, LF; digits in EMBL/GenBank)
	codeEnd      = 0xc1 // the record's sequence ends here ('>' or '/')
	codeNonASCII = 0xc2
	codeIllegal  = 0xc3
	flagStop     = 0x40
)

// dataMap builds Easel's digital input map for sequence data of a file
// format: the alphabet's own map (letters, '.', '_' and '~' synonyms,
// '*' as the nonresidue) except that '-' is illegal, since these are
// unaligned formats; blanks and CR are ignored; '>' ends a FASTA record;
// EMBL and GenBank ignore digits (coordinates) and end records at '/'.
// Everything else (other punctuation, control characters) is illegal.
func dataMap(abc *alphabet.Alphabet, f Format) *[256]byte {
	var m [256]byte
	for c := 0; c < 256; c++ {
		switch {
		case c >= 128:
			m[c] = codeNonASCII
		case abc.Inmap[c] != alphabet.Illegal:
			m[c] = abc.Inmap[c]
		default:
			m[c] = codeIllegal
		}
	}
	m['-'] = codeIllegal
	m['*'] = abc.Nonresidue()
	m[' '], m['\t'], m['\r'], m['\n'] = codeIgnore, codeIgnore, codeIgnore, codeIgnore
	if f == FASTA {
		m['>'] = codeEnd
	} else {
		for c := '0'; c <= '9'; c++ {
			m[c] = codeIgnore
		}
		m['/'] = codeEnd
	}
	return &m
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
