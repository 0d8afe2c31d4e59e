package gpudb

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// asSection lays dsqs out back to back, one separator byte after each,
// as a makedb file's residues are, and returns the section and the
// targets re-sliced into it.
func asSection(dsqs [][]byte) ([]byte, [][]byte) {
	var section []byte
	offs := make([]int, len(dsqs))
	for i, d := range dsqs {
		offs[i] = len(section)
		section = append(append(section, d...), 0xff)
	}
	in := make([][]byte, len(dsqs))
	for i, d := range dsqs {
		in[i] = section[offs[i] : offs[i]+len(d) : offs[i]+len(d)]
	}
	return section, in
}

// TestInSection: targets inside the section get their offsets in it
// (empty ones any); one target elsewhere, or no section, gives nil, and
// the packer then copies the targets instead.
func TestInSection(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	section, dsqs := asSection(randomDsqs(rng, 500))
	raw, start := inSection(section, dsqs)
	if raw == nil {
		t.Fatal("targets inside the section were not found there")
	}
	for i, d := range dsqs {
		if got := raw[start[i] : start[i]+uint64(len(d))]; !bytes.Equal(got, d) {
			t.Fatalf("target %d at offset %d reads %v, want %v", i, start[i], got, d)
		}
	}
	// A view of the section that leaves out the last target, and one
	// that leaves out the first.
	last := len(dsqs) - 1
	for last >= 0 && len(dsqs[last]) == 0 {
		last--
	}
	end := start[last] + uint64(len(dsqs[last])) // the last target's end
	if raw, _ := inSection(section[:end-1], dsqs); raw != nil {
		t.Error("a target past the section's end was taken as inside it")
	}
	if raw, _ := inSection(section[1:], dsqs); raw != nil && len(dsqs[0]) > 0 {
		t.Error("a target before the section's start was taken as inside it")
	}
	moved := append([][]byte(nil), dsqs...)
	moved[last] = bytes.Clone(moved[last])
	if raw, _ := inSection(section, moved); raw != nil {
		t.Error("a target outside the section was taken as inside it")
	}
	if raw, _ := inSection(nil, dsqs); raw != nil {
		t.Error("no section gave one")
	}
	copied, cstart := concatenate(dsqs)
	for i, d := range dsqs {
		if got := copied[cstart[i] : cstart[i]+uint64(len(d))]; !bytes.Equal(got, d) {
			t.Fatalf("copied target %d reads %v, want %v", i, got, d)
		}
	}
}
