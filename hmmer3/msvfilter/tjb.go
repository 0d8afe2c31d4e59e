package msvfilter

import (
	"sync"

	"github.com/hmmgo/hmmgo/hmmer3/oprofile"
)

// The GPU filter's host pass turns every target's raw kernel result into
// a score with the N/J->B cost of the target's length (TJBFor, a glibc
// logf). Over a 485,000-target database that log was a third of the pass,
// repeated for every query, although it depends on the length and the
// profile's scale alone (the same 3/ln 2 in every model). tjbTable keeps
// the costs of lengths below tjbTableLen for each scale it meets.

const tjbTableLen = 1 << 16

var tjbTables sync.Map // float32 scale -> []uint8

// tjbTable returns TJBFor(L) for L < tjbTableLen under om's scale.
func tjbTable(om *oprofile.MSVProfile) []uint8 {
	if t, ok := tjbTables.Load(om.Scale); ok {
		return t.([]uint8)
	}
	t := make([]uint8, tjbTableLen)
	for L := range t {
		t[L] = om.TJBFor(L)
	}
	tjbTables.Store(om.Scale, t)
	return t
}

// tjbOf is om.TJBFor(L), from the table when L is in it.
func tjbOf(table []uint8, om *oprofile.MSVProfile, L int) uint8 {
	if L < len(table) {
		return table[L]
	}
	return om.TJBFor(L)
}
