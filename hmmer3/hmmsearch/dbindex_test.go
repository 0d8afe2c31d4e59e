package hmmsearch

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/seqio"
)

func openSeqs(p string, in io.Reader, a *alphabet.Alphabet) (*seqio.Reader, error) {
	return seqio.Open(p, in, a)
}

// Read in blocks, a database gives the lengths of one pass over it, and a
// broken one the error hmmsearch's reader gives.
func TestIndexDatabaseBlocks(t *testing.T) {
	_, db := taskInputs(t)
	amino := alphabet.New(alphabet.Amino)
	want, err := serialLengths(db, amino, openSeqs)
	if err != nil {
		t.Fatal(err)
	}
	d, err := indexDatabase(db, amino, openSeqs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.lengths, want) || len(d.starts) != len(want)+1 {
		t.Fatalf("%d lengths, %d starts; one pass reads %d sequences", len(d.lengths), len(d.starts), len(want))
	}
	if _, ok := blockLengths(db, d.starts[:len(want)], d.size, amino, openSeqs); !ok {
		t.Fatal("the block reading fell back to one pass on a good database")
	}
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bad residue late": string(raw) + ">x\nACDE1FG\n",
		"junk first":       "junk line\n" + string(raw),
		"embl":             "ID   X; SV 1; linear; DNA; STD; PRO; 4 BP.\nSQ   Sequence 4 BP;\n     ACGT 4\n//\n",
		"empty":            "",
	} {
		path := filepath.Join(dir, "db.fa")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, werr := serialLengths(path, amino, openSeqs)
		_, err := indexDatabase(path, amino, openSeqs)
		if werr == nil || err == nil || err.Error() != werr.Error() {
			t.Errorf("%s: %v, want %v", name, err, werr)
		}
	}
}

// The index as cached reads back as it was; anything else is refused.
func TestIndexEncoding(t *testing.T) {
	_, db := taskInputs(t)
	d, err := scanDatabase(db, alphabet.New(alphabet.Amino), openSeqs)
	if err != nil {
		t.Fatal(err)
	}
	b := d.encode()
	got, ok := decodeIndex(db, b)
	if !ok || got.sha256 != d.sha256 || got.size != d.size || got.residues != d.residues ||
		!slices.Equal(got.starts, d.starts) || !slices.Equal(got.lengths, d.lengths) {
		t.Fatalf("round trip: %+v, ok %v; want %+v", got, ok, d)
	}
	for _, bad := range [][]byte{nil, b[:70], b[:len(b)-8], append(slices.Clone(b), 0)} {
		if _, ok := decodeIndex(db, bad); ok {
			t.Errorf("a %d-byte entry accepted", len(bad))
		}
	}
}
