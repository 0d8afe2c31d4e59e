// Package plan7 holds a HMMER 2.3.2 Plan 7 profile HMM: the HMMER2.0
// ASCII save-file reader, the alphabets HMMER2 digitises sequences with,
// and the conversion of probabilities to the scaled integer log-odds
// scores that every HMMER2 dynamic programming routine uses.
//
// HMMER2 differs from HMMER3 in ways that change numbers: scores are
// integers (bits times 1000, rounded by floor(x+0.5)), probabilities are
// single-precision floats that are renormalised after reading, and the
// alphabet order and degenerate symbols are its own. Everything here
// follows 2.3.2's arithmetic step by step, float32 where it used float.
package plan7

// AlphabetType says whether a model scores protein or nucleic acid.
type AlphabetType int

const (
	Amino   AlphabetType = 3 // HMMER2's hmmAMINO
	Nucleic AlphabetType = 2 // HMMER2's hmmNUCLEIC
)

func (t AlphabetType) String() string {
	switch t {
	case Amino:
		return "Amino"
	case Nucleic:
		return "Nucleic"
	}
	return "unknown"
}

// MaxCode is the largest alphabet size including degenerate symbols
// (HMMER2's MAXCODE); score tables have this many rows.
const MaxCode = 24

// MaxAbet is the largest canonical alphabet size (MAXABET).
const MaxAbet = 20

// Alphabet is HMMER2's digital alphabet. Symbols lists the canonical
// residues first, then the degenerate ones; the last symbol is the
// "unknown residue" code that any unrecognised character becomes.
type Alphabet struct {
	Type    AlphabetType
	Symbols string
	Size    int // canonical residues: 20 or 4
	Iupac   int // all symbols: 24 or 17
	// Degenerate[x][y] is true when symbol x stands for canonical y.
	Degenerate [MaxCode][MaxAbet]bool
	DegenCount [MaxCode]int
	index      [256]byte
}

// NewAlphabet returns the alphabet of the given type, set up as
// SetAlphabet() does in HMMER 2.3.2.
func NewAlphabet(t AlphabetType) *Alphabet {
	a := &Alphabet{Type: t}
	switch t {
	case Amino:
		a.Symbols = "ACDEFGHIKLMNPQRSTVWYUBZX"
		a.Size, a.Iupac = 20, 24
	case Nucleic:
		a.Symbols = "ACGTUNRYMKSWHBVDX"
		a.Size, a.Iupac = 4, 17
	default:
		panic("plan7: no such alphabet type")
	}
	for x := 0; x < a.Size; x++ {
		a.Degenerate[x][x] = true
		a.DegenCount[x] = 1
	}
	if t == Amino {
		a.degenerate('U', "S") // HMMER2 scores selenocysteine as serine
		a.degenerate('B', "ND")
		a.degenerate('Z', "QE")
		a.degenerate('X', "ACDEFGHIKLMNPQRSTVWY")
	} else {
		a.degenerate('U', "T")
		a.degenerate('N', "ACGT")
		a.degenerate('X', "ACGT")
		a.degenerate('R', "AG")
		a.degenerate('Y', "CT")
		a.degenerate('M', "AC")
		a.degenerate('K', "GT")
		a.degenerate('S', "CG")
		a.degenerate('W', "AT")
		a.degenerate('H', "ACT")
		a.degenerate('B', "CGT")
		a.degenerate('V', "ACG")
		a.degenerate('D', "AGT")
	}
	// Any character that is not a symbol (after upper-casing) becomes
	// the last symbol, X: SymbolIndex() in HMMER2.
	for c := 0; c < 256; c++ {
		a.index[c] = byte(a.Iupac - 1)
	}
	for i := 0; i < len(a.Symbols); i++ {
		s := a.Symbols[i]
		a.index[s] = byte(i)
		a.index[s+'a'-'A'] = byte(i)
	}
	return a
}

func (a *Alphabet) code(c byte) int {
	for i := 0; i < len(a.Symbols); i++ {
		if a.Symbols[i] == c {
			return i
		}
	}
	panic("plan7: symbol not in alphabet")
}

func (a *Alphabet) degenerate(iupac byte, syms string) {
	x := a.code(iupac)
	a.DegenCount[x] = len(syms)
	for i := 0; i < len(syms); i++ {
		a.Degenerate[x][a.code(syms[i])] = true
	}
}

// Index returns the digital code of character c: its position in
// Symbols, case-insensitively, or the unknown-residue code.
func (a *Alphabet) Index(c byte) byte { return a.index[c] }

// Digitize converts a text sequence to codes. dst is reused when it is
// large enough. Unlike HMMER2's dsq there are no sentinel bytes: code i
// of the result is residue i+1.
func (a *Alphabet) Digitize(seq []byte, dst []byte) []byte {
	if cap(dst) < len(seq) {
		dst = make([]byte, len(seq))
	}
	dst = dst[:len(seq)]
	for i, c := range seq {
		dst[i] = a.index[c]
	}
	return dst
}
