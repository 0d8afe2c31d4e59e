package seqio

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
)

func readAllFile(path string, t alphabet.Type) error {
	r, err := Open(path, nil, alphabet.New(t))
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Read(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// Bad input: one line naming the file and line. Easel agrees on which
// inputs are errors (checked with testdata/sqdump.c and hmmsearch).
func TestBadInput(t *testing.T) {
	var full bytes.Buffer
	zw := gzip.NewWriter(&full)
	zw.Write(bytes.Repeat([]byte(">s\nACDEFGHIKL\n"), 2000))
	zw.Close()
	gz := full.Bytes()
	emblRec := "ID   T_HUMAN  Reviewed; 5 AA.\nDE   x\nSQ   SEQUENCE 5 AA;\n     MKVLA\n//\n"
	for _, c := range []struct {
		name, file, data, want string
		dna                    bool
	}{
		{"digit", "a.fa", ">s1\nACDE\nAC1DE\n", "a.fa:3: illegal character '1' in sequence s1", false},
		{"dash", "a.fa", ">s1 x\n\nAC-DE\n", "a.fa:3: illegal character '-' in sequence s1", false},
		{"punctuation", "a.fa", ">s1\nAC#DE\n", "a.fa:2: illegal character '#' in sequence s1", false},
		{"vertical tab", "a.fa", ">s1\nAC\vDE\n", "a.fa:2: illegal character '\\v' in sequence s1", false},
		{"non-ASCII", "a.fa", ">s1\nAC\xc3\xa9DE\n", "a.fa:2: non-ASCII byte 0xc3 in sequence s1", false},
		{"not DNA", "a.fa", ">s1\nACGTE\n", "a.fa:2: illegal character 'E' in sequence s1", true},
		{"second record", "a.fa", ">s1\nACDE\n>s2\nAC DE\nA!\n", "a.fa:5: illegal character '!' in sequence s2", false},
		{"text before >", "a.fa", "\n\nhello\n>s1\nACDE\n", "a.fa:3: illegal character 'h' where a FASTA record should start with '>'", false},
		{"no name", "a.fa", ">s1\nAC\n> \t\nDE\n", "a.fa:3: no sequence name after '>'", false},
		{"empty file", "a.fa", "", "a.fa: file is empty: no sequences", false},
		{"blank file, no suffix", "a", "\n \n", "a: no sequence data: the file has only blank lines", false},
		{"unknown format", "a", "\nhello\n", "a:2: unrecognized sequence file format", false},
		{"Stockholm", "a", "# STOCKHOLM 1.0\n", "a:1: alignment files are not supported", false},
		{"hmmgo database", "a", "\x89HMMGODB\x01\x00\x00", "a:1: this is an hmmgo makedb database", false},
		{"truncated gzip", "a.fa.gz", string(gz[:len(gz)/2]), "a.fa.gz:", false},
		{"EMBL without ID", "a", "ID   X\nSQ   \nMK\n//\n\nDE   x\n", "a:6: expected an ID line to start an EMBL/UniProt record", false},
		{"EMBL truncated", "a", emblRec[:len(emblRec)-3], "a:5: unexpected end of file: no // at the end of the record of T_HUMAN", false},
		{"EMBL no SQ", "a", "ID   X\nDE   y\n", "a:3: unexpected end of file: no SQ line in the record of X", false},
		{"EMBL stray slash", "a", strings.Replace(emblRec, "MKVLA", "MK/LA", 1), "a:4: a '/' in sequence T_HUMAN on a line that is not the // record end", false},
		{"EMBL illegal", "a", strings.Replace(emblRec, "MKVLA", "MK-LA", 1), "a:4: illegal character '-' in sequence T_HUMAN", false},
		{"GenBank no ORIGIN", "a.gb", "LOCUS       X  5 bp\nDEFINITION  y\n", "a.gb:3: unexpected end of file: no ORIGIN line in the record of X", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			os.WriteFile(path, []byte(c.data), 0o644)
			ty := alphabet.Amino
			if c.dna {
				ty = alphabet.DNA
			}
			err := readAllFile(path, ty)
			want := dir + string(filepath.Separator) + c.want
			if c.name == "truncated gzip" && (err == nil || !strings.Contains(err.Error(), "truncated gzip data")) {
				t.Errorf("got %v, want truncated gzip data", err)
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v\nwant one line starting %q", err, want)
			}
		})
	}
	if err := readAllFile(filepath.Join(t.TempDir(), "none.fa"), alphabet.Amino); err == nil || !strings.Contains(err.Error(), "cannot open sequence file: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	if err := readAllFile(dir, alphabet.Amino); err == nil || !strings.HasPrefix(err.Error(), dir+":1: read error: is a directory") {
		t.Errorf("directory: %v", err)
	}
}

// A FASTA file of blank lines has no sequences, but is not an error when
// its name ends ".fa" (Easel then knows the format without looking).
func TestBlankFASTAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blank.fa")
	os.WriteFile(path, []byte("\n\n  \n"), 0o644)
	r, err := Open(path, nil, alphabet.New(alphabet.Amino))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("want io.EOF, got %v", err)
	}
}
