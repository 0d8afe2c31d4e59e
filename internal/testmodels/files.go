package testmodels

import (
	"io"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/seqio"
)

// ReadModel returns the first model of an HMMER3 file; the test fails on
// any error.
func ReadModel(t testing.TB, path string) *hmm.HMM {
	t.Helper()
	r, err := hmm.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// ReadModels returns the first model of every file matching the glob
// pattern, in file name order.
func ReadModels(t testing.TB, pattern string) []*hmm.HMM {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	sort.Strings(files)
	var hs []*hmm.HMM
	for _, f := range files {
		hs = append(hs, ReadModel(t, f))
	}
	return hs
}

// ReadSequences reads a whole sequence file in the alphabet abc.
func ReadSequences(t testing.TB, path string, abc *alphabet.Alphabet) []*seqio.Sequence {
	t.Helper()
	r, err := seqio.Open(path, nil, abc)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seqs []*seqio.Sequence
	for {
		sq, err := r.Read()
		if err == io.EOF {
			return seqs
		}
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, sq)
	}
}

// ReadDsqs is ReadSequences' digital residues only.
func ReadDsqs(t testing.TB, path string, abc *alphabet.Alphabet) [][]byte {
	t.Helper()
	var out [][]byte
	for _, sq := range ReadSequences(t, path, abc) {
		out = append(out, sq.Dsq)
	}
	return out
}
