package seqdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

// randomSeqs makes n sequences with every kind of field: empty and
// long sequences, names with odd bytes, accessions and descriptions
// present or not.
func randomSeqs(n int, abc *alphabet.Alphabet, seed uint64) []*seqio.Sequence {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]*seqio.Sequence, n)
	for i := range out {
		l := r.IntN(400)
		if i%97 == 5 {
			l = 0
		}
		if i%501 == 7 {
			l = 20000 + r.IntN(5000)
		}
		s := &seqio.Sequence{Name: fmt.Sprintf("seq%d|x/%d", i, r.IntN(1000)), Dsq: make([]byte, l)}
		for j := range s.Dsq {
			s.Dsq[j] = byte(r.IntN(abc.Kp)) // every code, degenerate and special ones too
		}
		if i%3 == 0 {
			s.Acc = fmt.Sprintf("P%05d.%d", i, i%7)
		}
		if i%4 != 0 {
			s.Desc = strings.Repeat("description words ", 1+r.IntN(5)) + fmt.Sprint(i)
		}
		out[i] = s
	}
	return out
}

func build(t testing.TB, seqs []*seqio.Sequence, abc *alphabet.Alphabet, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, abc, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seqs {
		if err := w.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	st, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) || st.Sequences != int64(len(seqs)) {
		t.Fatalf("stats %+v for %d bytes, %d sequences", st, buf.Len(), len(seqs))
	}
	return buf.Bytes()
}

func save(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "db.hmmgo")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func open(t testing.TB, b []byte) *DB {
	t.Helper()
	db, err := Open(save(t, b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func checkSame(t *testing.T, db *DB, seqs []*seqio.Sequence) {
	t.Helper()
	if db.NumSeqs() != len(seqs) {
		t.Fatalf("%d sequences, want %d", db.NumSeqs(), len(seqs))
	}
	var nres int64
	maxLen := 0
	src := db.NewSource()
	var prev *seqio.Sequence
	for i, want := range seqs {
		got, err := src.Read()
		if err != nil {
			t.Fatal(err)
		}
		if got == prev {
			t.Fatal("Read returned the same Sequence twice")
		}
		prev = got
		if got.Name != want.Name || got.Acc != want.Acc || got.Desc != want.Desc || !bytes.Equal(got.Dsq, want.Dsq) {
			t.Fatalf("sequence %d: got %q %q %q L=%d, want %q %q %q L=%d", i, got.Name, got.Acc, got.Desc, got.L(), want.Name, want.Acc, want.Desc, want.L())
		}
		if db.Len(i) != want.L() {
			t.Fatalf("Len(%d) = %d, want %d", i, db.Len(i), want.L())
		}
		r := db.Residues(i)
		if cap(r) != len(r) {
			t.Fatal("a residue view has spare capacity: append would write into the file")
		}
		nres += int64(want.L())
		maxLen = max(maxLen, want.L())
	}
	if _, err := src.Read(); err != io.EOF {
		t.Fatalf("after the last sequence: %v, want io.EOF", err)
	}
	if db.NumResidues() != nres || db.MaxLength() != maxLen {
		t.Fatalf("counts %d residues, longest %d; want %d, %d", db.NumResidues(), db.MaxLength(), nres, maxLen)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, typ := range []alphabet.Type{alphabet.Amino, alphabet.DNA, alphabet.RNA} {
		abc := alphabet.New(typ)
		seqs := randomSeqs(3000, abc, uint64(typ))
		db := open(t, build(t, seqs, abc, Options{Meta: []string{"source=test", "x=y"}}))
		if db.Alphabet().Type != typ {
			t.Fatalf("alphabet %s, want %s", db.Alphabet().Type, typ)
		}
		checkSame(t, db, seqs)
		if m := db.Meta(); len(m) != 2 || m[0] != "source=test" {
			t.Errorf("meta %q", m)
		}
	}
}

func TestSentinels(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	seqs := randomSeqs(50, abc, 3)
	db := open(t, build(t, seqs, abc, Options{}))
	for i := range seqs {
		a := db.start(i)
		if db.res[a-1] != Sentinel || db.res[a+uint64(db.Len(i))] != Sentinel {
			t.Fatalf("sequence %d is not between sentinels", i)
		}
	}
}

// Names and descriptions spill to temporary files past the memory
// limit; the result is the same and the files are gone afterwards.
func TestSpill(t *testing.T) {
	old := spoolLimit
	spoolLimit = 1000
	defer func() { spoolLimit = old }()
	abc := alphabet.New(alphabet.Amino)
	seqs := randomSeqs(2000, abc, 9)
	dir := t.TempDir()
	db := open(t, build(t, seqs, abc, Options{TempDir: dir}))
	checkSame(t, db, seqs)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d temporary files left behind", len(ents))
	}
}

func TestNoOptionalSections(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	seqs := []*seqio.Sequence{{Name: "a", Dsq: []byte{1, 2, 3}}, {Name: "b"}}
	b := build(t, seqs, abc, Options{})
	db := open(t, b)
	checkSame(t, db, seqs)
	for _, tag := range []Tag{TagAccs, TagDescs, TagMeta} {
		if _, ok := db.Section(tag, 0); ok {
			t.Errorf("section %s written though no sequence needs it", tag)
		}
	}
	empty := open(t, build(t, nil, abc, Options{}))
	checkSame(t, empty, nil)
}

func TestWriterRefusesBadCodes(t *testing.T) {
	abc := alphabet.New(alphabet.DNA)
	w, _ := NewWriter(io.Discard, abc, Options{})
	err := w.Add(&seqio.Sequence{Name: "x", Dsq: []byte{0, 1, byte(abc.Kp)}})
	if err == nil || !strings.Contains(err.Error(), "residue 3") {
		t.Fatalf("error %v", err)
	}
	w.Abort()
}

// Sections of kinds this version does not know: skipped when optional,
// refused when critical; either way checksummed.
func TestExtraSections(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	seqs := randomSeqs(10, abc, 4)
	tag := Tag{'W', 'B', 'L', 'K'}
	mk := func(flags uint32) []byte {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, abc, Options{})
		for _, s := range seqs {
			w.Add(s)
		}
		if err := w.AddSection(tag, 4, flags, []byte("warp blocks for T=4")); err != nil {
			t.Fatal(err)
		}
		if err := w.AddSection(tag, 4, flags, nil); err == nil {
			t.Fatal("a duplicate section was accepted")
		}
		if err := w.AddSection(TagNames, 0, 0, nil); err == nil {
			t.Fatal("a standard tag was accepted as an extra section")
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	db := open(t, mk(0))
	if b, ok := db.Section(tag, 4); !ok || string(b) != "warp blocks for T=4" {
		t.Fatalf("extra section: %q %v", b, ok)
	}
	if _, ok := db.Section(tag, 8); ok {
		t.Fatal("found a section with another param")
	}
	checkSame(t, db, seqs)
	_, err := Open(save(t, mk(FlagCritical)))
	if err == nil || !strings.Contains(err.Error(), "section WBLK is not known") {
		t.Fatalf("critical unknown section: %v", err)
	}
}

// Every kind of damage is a one-line error that names the file.
func TestDamage(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	good := build(t, randomSeqs(300, abc, 5), abc, Options{Meta: []string{"a=b"}})
	db := open(t, good)
	le := binary.LittleEndian
	tr, _ := decodeTrailer(good[len(good)-trailerSize:])
	cases := []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"not a database", func(b []byte) []byte { return []byte(">seq\nACDE\n") }, "not an hmmgo database"},
		{"empty", func(b []byte) []byte { return nil }, "not an hmmgo database"},
		{"header only", func(b []byte) []byte { return b[:preambleSize] }, "truncated"},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }, "truncated"},
		{"one byte short", func(b []byte) []byte { return b[:len(b)-1] }, "truncated"},
		{"appended to", func(b []byte) []byte { return append(append([]byte(nil), b...), b[len(b)-trailerSize:]...) }, "appended to"},
		{"newer version", func(b []byte) []byte { le.PutUint32(b[8:], Version+1); return b }, "format version 2"},
		{"header byte", func(b []byte) []byte { b[17] ^= 1; return b }, "checksum mismatch in the file header"},
		{"trailer byte", func(b []byte) []byte { b[len(b)-trailerSize+30] ^= 1; return b }, "checksum mismatch in the trailer"},
		{"table byte", func(b []byte) []byte { b[tr.tableOff+30] ^= 4; return b }, "checksum mismatch in the section table"},
	}
	for _, e := range db.sections {
		e := e
		cases = append(cases, struct {
			name string
			edit func([]byte) []byte
			want string
		}{"section " + e.tag.String(), func(b []byte) []byte { b[e.offset+e.length/2] ^= 0x10; return b },
			"checksum mismatch in section " + e.tag.String()})
	}
	for _, c := range cases {
		b := c.edit(append([]byte(nil), good...))
		path := save(t, b)
		_, err := Open(path)
		var de *Error
		if err == nil || !errors.As(err, &de) || de.Path != path || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v; want one line naming %s and saying %q", c.name, err, path, c.want)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.hmmgo")); err == nil || !strings.Contains(err.Error(), "missing.hmmgo: cannot open") {
		t.Errorf("missing file: %v", err)
	}
}

// OpenBytes reads what Open reads and refuses what Open refuses, with
// the given name in its messages.
func TestOpenBytes(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	seqs := randomSeqs(50, abc, 3)
	good := build(t, seqs, abc, Options{})
	db, err := OpenBytes("redis:x block 1", good)
	if err != nil {
		t.Fatal(err)
	}
	if db.NumSeqs() != len(seqs) {
		t.Fatalf("%d sequences, want %d", db.NumSeqs(), len(seqs))
	}
	for i, want := range seqs {
		var got seqio.Sequence
		db.Sequence(i, &got)
		if got.Name != want.Name || string(got.Dsq) != string(want.Dsq) {
			t.Fatalf("sequence %d differs", i)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, good[:len(good)-1], append(append([]byte(nil), good[:100]...), good[100:]...)[:200]} {
		if _, err := OpenBytes("redis:x block 1", bad); err == nil || !strings.HasPrefix(err.Error(), "redis:x block 1: ") {
			t.Errorf("%d bytes: %v", len(bad), err)
		}
	}
	damaged := append([]byte(nil), good...)
	damaged[len(damaged)/3] ^= 1
	if _, err := OpenBytes("b", damaged); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("damaged: %v", err)
	}
}

func TestIsDB(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	if !IsDB(save(t, build(t, nil, abc, Options{}))) {
		t.Error("a database is not recognised")
	}
	if IsDB(save(t, []byte(">x\nACGT\n"))) || IsDB(save(t, []byte("\x89HMM"))) {
		t.Error("a non-database is recognised")
	}
}

func TestSourceDB(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	db := open(t, build(t, randomSeqs(3, abc, 1), abc, Options{}))
	src := db.NewSource()
	if src.DB() != db {
		t.Fatal("Source.DB is not the database it reads")
	}
	var s seqio.Sequence
	if err := src.ReadInto(&s); err != nil || s.Name != db.Name(0) {
		t.Fatalf("ReadInto: %v, %q", err, s.Name)
	}
	if err := src.Close(); err != nil || db.NumSeqs() != 3 {
		t.Fatal("closing a source closed the database")
	}
}
