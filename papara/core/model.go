package core

import (
	"fmt"
	"math/bits"
)

// Model is a PaPaRa sequence model: DNA (the default) or protein (-a).
//
// Characters map to "c-states" (an index into Symbols) and to parsimony
// states (a bit set of residues; the gap state has every bit set). For DNA
// the two coincide: the index of a symbol is its 4-bit set A=1 C=2 G=4 T=8.
type Model struct {
	Name    string
	Protein bool
	// Symbols lists the characters PaPaRa knows, in c-state order; the
	// last one is the gap.
	Symbols string
	// States is the parsimony state of each c-state.
	States []uint32
	// GapState is the parsimony state of a gap (all residue bits).
	GapState uint32
	// valid holds the characters a file may contain without being an error
	// (PaPaRa's symbols in either case plus the other IUPAC codes and gap
	// marks it silently deletes from reads).
	valid [256]bool
	index [256]int8 // c-state of a raw character, -1 if not a symbol
}

// DNA is PaPaRa's DNA/RNA model.
var DNA = newModel("DNA", false, "_ACMGRSVTWYHKDB-", nil, "ACGTURYSWKMBDHVNacgturyswkmbdhvn-.?_")

// Protein is PaPaRa's protein model (RAxML's amino-acid bit vectors; B is
// N|D, Z is Q|E).
var Protein = newModel("protein", true, "ARNDCQEGHILKMFPSTWYVBZ-", proteinStates(),
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-.?*_")

func proteinStates() []uint32 {
	s := make([]uint32, 23)
	for i := 0; i < 20; i++ {
		s[i] = 1 << i
	}
	s[20] = 1<<2 | 1<<3 // B = N|D
	s[21] = 1<<5 | 1<<6 // Z = Q|E
	s[22] = 1<<20 - 1   // gap
	return s
}

func newModel(name string, protein bool, symbols string, states []uint32, valid string) *Model {
	m := &Model{Name: name, Protein: protein, Symbols: symbols}
	if states == nil {
		states = make([]uint32, len(symbols))
		for i := range states {
			states[i] = uint32(i)
		}
	}
	m.States = states
	m.GapState = states[len(states)-1]
	for i := range m.index {
		m.index[i] = -1
	}
	for i := 0; i < len(symbols); i++ {
		m.index[symbols[i]] = int8(i)
	}
	for i := 0; i < len(valid); i++ {
		m.valid[valid[i]] = true
	}
	return m
}

// NumCStates is the number of c-states (PaPaRa's profile rows).
func (m *Model) NumCStates() int { return len(m.Symbols) }

// Normalize maps a reference character as PaPaRa does before looking it
// up: upper case and, for DNA, U as T and N ? . as gaps.
func (m *Model) Normalize(c byte) byte {
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	if m.Protein {
		return c
	}
	switch c {
	case 'U':
		return 'T'
	case 'N', '?', '.':
		return '-'
	}
	return c
}

// RefState returns the parsimony state of a reference alignment character.
func (m *Model) RefState(c byte) (uint32, bool) {
	i := m.index[m.Normalize(c)]
	if i < 0 {
		return 0, false
	}
	return m.States[i], true
}

// IsGapState reports whether a parsimony state is the gap.
func (m *Model) IsGapState(s uint32) bool { return s == m.GapState }

// IsSingle reports whether a parsimony state is a residue PaPaRa aligns:
// for DNA anything but the gap and the empty set, for protein exactly one
// amino acid.
func (m *Model) IsSingle(s uint32) bool {
	if m.Protein {
		return bits.OnesCount32(s) == 1
	}
	return s != m.GapState && s != 0
}

// Known reports whether a raw read character is one of PaPaRa's symbols
// (compared as is: PaPaRa deletes lower-case letters and N from reads).
func (m *Model) Known(c byte) bool { return m.index[c] >= 0 }

// Valid reports whether a character may appear in this model's files.
func (m *Model) Valid(c byte) bool { return m.valid[c] }

// CState returns the c-state of a known raw character.
func (m *Model) CState(c byte) uint8 { return uint8(m.index[c]) }

// StateChar maps a parsimony state back to a character ('X' for protein
// states that are no symbol).
func (m *Model) StateChar(s uint32) byte {
	for i, st := range m.States {
		if st == s {
			return m.Symbols[i]
		}
	}
	return 'X'
}

// describe names a character for error messages.
func describe(c byte) string {
	if c >= 0x21 && c < 0x7f {
		return fmt.Sprintf("'%c'", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
