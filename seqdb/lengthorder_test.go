package seqdb

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// The LORD section: read back as written, absent from older files, and
// checked (size, a permutation, longest first with ties in database
// order) with errors naming the file.
func TestLengthOrder(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	seqs := randomSeqs(700, abc, 9)
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(seqs[order[a]].Dsq) > len(seqs[order[b]].Dsq) })
	lord, err := EncodeLengthOrder(order)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(section []byte) []byte {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, abc, Options{})
		for _, s := range seqs {
			w.Add(s)
		}
		if section != nil {
			if err := w.AddSection(TagLengthOrder, 0, 0, section); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	got, err := open(t, mk(lord)).LengthOrder()
	if err != nil || len(got) != len(order) {
		t.Fatalf("LengthOrder: %d entries, %v", len(got), err)
	}
	for k := range order {
		if got[k] != order[k] {
			t.Fatalf("entry %d is %d, want %d", k, got[k], order[k])
		}
	}
	if got, err := open(t, mk(nil)).LengthOrder(); got != nil || err != nil {
		t.Fatalf("no section: %v, %v", got, err)
	}
	old, err := Open(testutil.Testdata(t, "seqdb/globins45-v1-noplan.hmmgo"))
	if err != nil {
		t.Fatalf("a file made before the plan existed: %v", err)
	}
	if got, err := old.LengthOrder(); got != nil || err != nil || old.NumSeqs() != 45 {
		t.Fatalf("older file: %d sequences, order %v, %v", old.NumSeqs(), got, err)
	}
	old.Close()
	swap := func(a, b int) []byte {
		x := bytes.Clone(lord)
		copy(x[4*a:4*a+4], lord[4*b:4*b+4])
		copy(x[4*b:4*b+4], lord[4*a:4*a+4])
		return x
	}
	dup := bytes.Clone(lord)
	copy(dup[4:8], dup[0:4])
	big := bytes.Clone(lord)
	big[3] = 0x7f
	for _, c := range []struct {
		name    string
		section []byte
		want    string
	}{
		{"cut short", lord[:len(lord)-4], "section LORD has 2796 bytes for 700 sequences (want 2800)"},
		{"repeated", dup, "section LORD is not an order of the 700 sequences (entry 2)"},
		{"out of range", big, "section LORD is not an order of the 700 sequences (entry 1)"},
		{"not longest first", swap(0, 699), "section LORD is not longest first at entry 2"},
	} {
		path := save(t, mk(c.section))
		db, err := Open(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = db.LengthOrder()
		var de *Error
		if err == nil || !errors.As(err, &de) || de.Path != path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q naming %s", c.name, err, c.want, path)
		}
		db.Close()
	}
}
