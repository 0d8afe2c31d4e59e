// Package alphabet implements Easel's digital biosequence alphabets:
// the symbol order, degenerate residues and synonyms that HMMER uses, so
// that residue codes, and therefore scores, match HMMER's exactly.
//
// A digital residue is a byte code x. Codes 0..K-1 are the canonical
// residues, K is the gap, K+1..Kp-4 are degenerate codes, Kp-3 is "any"
// (X or N), Kp-2 is the nonresidue '*' and Kp-1 is missing data '~'.
package alphabet

import "fmt"

// Type names an alphabet.
type Type int

const (
	Amino Type = iota + 1
	DNA
	RNA
)

// Illegal marks a character with no digital code in Inmap.
const Illegal = 255

// Alphabet is one digital alphabet.
type Alphabet struct {
	Type  Type
	K     int    // canonical residues
	Kp    int    // all codes, degenerate and special ones included
	Sym   string // the symbol of each code, in code order
	Inmap [128]byte
	// Degen[x][y] says whether degenerate code x includes canonical residue y.
	Degen  [][]bool
	NDegen []int
}

// New returns the alphabet of the given type.
func New(t Type) *Alphabet {
	switch t {
	case Amino:
		a := custom(Amino, "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~", 20)
		a.equiv('_', '-')
		a.equiv('.', '-')
		a.caseInsensitive()
		a.degenerate('B', "ND")
		a.degenerate('J', "IL")
		a.degenerate('Z', "QE")
		a.degenerate('U', "C") // selenocysteine is scored as cysteine
		a.degenerate('O', "K") // pyrrolysine is scored as lysine
		return a
	case DNA, RNA:
		sym, t2u := "ACGT-RYMKSWHBVDN*~", byte('T')
		other := byte('U')
		if t == RNA {
			sym, t2u, other = "ACGU-RYMKSWHBVDN*~", 'U', 'T'
		}
		a := custom(t, sym, 4)
		a.equiv(other, t2u)
		a.equiv('X', 'N')
		a.equiv('I', 'A') // inosine
		a.equiv('_', '-')
		a.equiv('.', '-')
		a.caseInsensitive()
		tt := string(t2u)
		for _, d := range []struct {
			c   byte
			set string
		}{{'R', "AG"}, {'Y', "C" + tt}, {'M', "AC"}, {'K', "G" + tt}, {'S', "CG"},
			{'W', "A" + tt}, {'H', "AC" + tt}, {'B', "CG" + tt}, {'V', "ACG"}, {'D', "AG" + tt}} {
			a.degenerate(d.c, d.set)
		}
		return a
	}
	panic(fmt.Sprintf("alphabet: unknown type %d", t))
}

// Names of the alphabets as HMMER writes them on a model's ALPH line.
func (t Type) String() string {
	switch t {
	case Amino:
		return "amino"
	case DNA:
		return "DNA"
	case RNA:
		return "RNA"
	}
	return "unknown"
}

// ParseType reads an ALPH value (case-insensitive).
func ParseType(s string) (Type, bool) {
	switch lower(s) {
	case "amino":
		return Amino, true
	case "dna":
		return DNA, true
	case "rna":
		return RNA, true
	}
	return 0, false
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func custom(t Type, sym string, k int) *Alphabet {
	kp := len(sym)
	a := &Alphabet{Type: t, K: k, Kp: kp, Sym: sym}
	for i := range a.Inmap {
		a.Inmap[i] = Illegal
	}
	for x := 0; x < kp; x++ {
		a.Inmap[sym[x]] = byte(x)
	}
	a.Degen = make([][]bool, kp)
	a.NDegen = make([]int, kp)
	for x := range a.Degen {
		a.Degen[x] = make([]bool, k)
	}
	for x := 0; x < k; x++ {
		a.Degen[x][x] = true
		a.NDegen[x] = 1
	}
	any := kp - 3
	for y := 0; y < k; y++ {
		a.Degen[any][y] = true
	}
	a.NDegen[any] = k
	return a
}

func (a *Alphabet) equiv(sym, c byte) { a.Inmap[sym] = a.Inmap[c] }

func (a *Alphabet) caseInsensitive() {
	for c := 'A'; c <= 'Z'; c++ {
		lc := c + 'a' - 'A'
		if a.Inmap[c] != Illegal && a.Inmap[lc] == Illegal {
			a.Inmap[lc] = a.Inmap[c]
		} else if a.Inmap[lc] != Illegal && a.Inmap[c] == Illegal {
			a.Inmap[c] = a.Inmap[lc]
		}
	}
}

func (a *Alphabet) degenerate(c byte, set string) {
	x := a.Inmap[c]
	for i := range a.Degen[x] {
		a.Degen[x][i] = false
	}
	for i := 0; i < len(set); i++ {
		a.Degen[x][a.Inmap[set[i]]] = true
	}
	a.NDegen[x] = len(set)
}

// Gap, Nonresidue and Missing are the special codes.
func (a *Alphabet) Gap() byte        { return byte(a.K) }
func (a *Alphabet) Nonresidue() byte { return byte(a.Kp - 2) }
func (a *Alphabet) Missing() byte    { return byte(a.Kp - 1) }
func (a *Alphabet) Unknown() byte    { return byte(a.Kp - 3) }

// IsCanonical reports whether x is one of the K base residues.
func (a *Alphabet) IsCanonical(x byte) bool { return int(x) < a.K }

// IsResidue reports whether x is a canonical or degenerate residue.
func (a *Alphabet) IsResidue(x byte) bool {
	return int(x) < a.K || (int(x) > a.K && int(x) <= a.Kp-3)
}

// FExpectScVec fills sc[K+1..Kp-3] (degenerate codes) with the
// background-weighted mean of their members' scores, accumulated in float
// in alphabet order as Easel's esl_abc_FExpectScVec does.
func (a *Alphabet) FExpectScVec(sc []float32, p []float32) {
	for x := a.K + 1; x <= a.Kp-3; x++ {
		var result, denom float32
		for i := 0; i < a.K; i++ {
			if a.Degen[x][i] {
				result += float32(sc[i] * p[i])
				denom += p[i]
			}
		}
		sc[x] = result / denom
	}
}

// FAvgScVec fills sc[K+1..Kp-3] with the plain mean of the members'
// scores (Easel's esl_abc_FAvgScVec).
func (a *Alphabet) FAvgScVec(sc []float32) {
	for x := a.K + 1; x <= a.Kp-3; x++ {
		var result float32
		for i := 0; i < a.K; i++ {
			if a.Degen[x][i] {
				result += sc[i]
			}
		}
		sc[x] = result / float32(a.NDegen[x])
	}
}
