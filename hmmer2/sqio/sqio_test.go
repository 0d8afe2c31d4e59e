package sqio

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readAll(t *testing.T, path string, f Format) []Sequence {
	t.Helper()
	rd, err := Open(path, f, strings.NewReader(""), "")
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []Sequence
	for {
		var s Sequence
		err := rd.Next(&s)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		s.Seq = append([]byte(nil), s.Seq...)
		out = append(out, s)
	}
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFASTA(t *testing.T) {
	long := strings.Repeat("n", 70)
	desc := strings.Repeat("d", 140)
	p := write(t, "x.fa", ""+
		">one first  description  \n"+
		"AC DE\n12 fg*-.\n"+
		">-dash this name is ignored\n"+
		"MK\n"+
		">"+long+" "+desc+"\n"+
		"W\n"+
		">empty\n"+
		">tab\t-desc starting with a dash\n"+
		"Q\r\n"+
		">last no newline\n"+
		"YY")
	seqs := readAll(t, p, Unknown)
	if len(seqs) != 6 {
		t.Fatalf("%d sequences, want 6", len(seqs))
	}
	check := func(i int, name, desc, seq string, hasDesc bool) {
		t.Helper()
		s := seqs[i]
		if s.Name != name || s.Desc != desc || string(s.Seq) != seq || s.HasDesc != hasDesc {
			t.Errorf("record %d: %q %q %q %v, want %q %q %q %v", i, s.Name, s.Desc, s.Seq, s.HasDesc, name, desc, seq, hasDesc)
		}
	}
	check(0, "one", "first  description", "ACDEfg*-.", true)
	check(1, "one", "this name is ignored", "MK", true) // squid keeps the previous name
	check(2, long[:NameLen], desc[:DescLen], "W", true)
	check(3, "empty", "", "", false)
	check(4, "tab", "", "Q", false)
	check(5, "last", "no newline", "YY", true)
}

// A file whose last line is a header without a newline ends there:
// squid sees end of file and stops before that record.
func TestFASTATrailingHeader(t *testing.T) {
	seqs := readAll(t, write(t, "x.fa", ">a\nAC\n>b"), FASTA)
	if len(seqs) != 1 {
		t.Fatalf("%d records, want 1", len(seqs))
	}
}

func TestEMBL(t *testing.T) {
	p := write(t, "x.embl", ""+
		"ID   TEST_HUMAN     STANDARD;      PRT;   12 AA.\n"+
		"AC   P12345; Q99999;\n"+
		"AC   P00001;\n"+
		"DE   First line of\n"+
		"DE   the description.\n"+
		"SQ   SEQUENCE   12 AA;\n"+
		"     MKVL AAGI -GLL\n"+
		"//\n"+
		"ID   SECOND\n"+
		"SQ   SEQUENCE\n"+
		"     WW\n"+
		"//\n")
	seqs := readAll(t, p, Unknown)
	if len(seqs) != 2 {
		t.Fatalf("%d records", len(seqs))
	}
	s := seqs[0]
	if s.Name != "TEST_HUMAN" || s.Acc != "P00001" || s.Desc != "First line of the description." || string(s.Seq) != "MKVLAAGINGLL" {
		t.Errorf("got %q %q %q %q", s.Name, s.Acc, s.Desc, s.Seq)
	}
	if seqs[1].Name != "SECOND" || string(seqs[1].Seq) != "WW" || seqs[1].HasAcc {
		t.Errorf("second record %+v", seqs[1])
	}
}

func TestGenBank(t *testing.T) {
	p := write(t, "x.gb", ""+
		"LOCUS       ABC123     20 bp    DNA\n"+
		"DEFINITION  A test\n"+
		"            sequence.\n"+
		"ACCESSION   ABC123\n"+
		"ORIGIN\n"+
		"        1 acgtacgtac gtacgtacgt\n"+
		"//\n")
	seqs := readAll(t, p, Unknown)
	if len(seqs) != 1 || seqs[0].Name != "ABC123" || seqs[0].Desc != "A test sequence." ||
		string(seqs[0].Seq) != "acgtacgtacgtacgtacgt" || seqs[0].Acc != "ABC123" {
		t.Fatalf("got %+v", seqs)
	}
}

func TestGzipAndStdin(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(">z compressed\nACGT\n"))
	zw.Close()
	p := write(t, "x.fa.gz", buf.String())
	if seqs := readAll(t, p, Unknown); len(seqs) != 1 || string(seqs[0].Seq) != "ACGT" {
		t.Fatalf("gzip: %+v", seqs)
	}
	rd, err := Open("-", Unknown, strings.NewReader(">s\nMK\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	var s Sequence
	if err := rd.Next(&s); err != nil || s.Name != "s" {
		t.Fatalf("stdin: %v %+v", err, s)
	}
}

func TestDetect(t *testing.T) {
	cases := map[string]Format{
		"\n\n>x\nAC\n":                         FASTA,
		"ID   X\nSQ   \n":                      EMBL,
		"LOCUS       X\n":                      GenBank,
		"ENTRY           X\n":                  PIR,
		"# STOCKHOLM 1.0\n":                    Stockholm,
		"CLUSTAL W (1.81) multiple\n":          Clustal,
		"  3 10\n":                             PHYLIP,
		"seq1 ACDEFGHIKL\nseq2 ACDEFGHIKL\n":   SELEX,
		"!!AA_MULTIPLE_ALIGNMENT 1.0\n":        MSF,
		"x  MSF: 10  Type: P  Check: 1 ..\n":   MSF,
		"hello world\nthis is text, not seq\n": Unknown,
	}
	for text, want := range cases {
		got, err := detect(strings.NewReader(text), "t")
		if got != want || (want == Unknown) != (err != nil) {
			t.Errorf("detect(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	if _, err := detect(strings.NewReader("\n \n"), "blank"); err == nil || !strings.Contains(err.Error(), "no data") {
		t.Errorf("blank file: %v", err)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "none.fa"), Unknown, nil, ""); err == nil || !strings.Contains(err.Error(), "none.fa") {
		t.Errorf("missing file: %v", err)
	}
	p := write(t, "x.txt", "not fasta\n>a\nAC\n")
	rd, err := Open(p, FASTA, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var s Sequence
	if err := rd.Next(&s); err == nil || !strings.Contains(err.Error(), "x.txt line 1") {
		t.Errorf("forced FASTA on other text: %v", err)
	}
	if _, err := Open(write(t, "a.msf", "!!AA_MULTIPLE_ALIGNMENT 1.0\n"), Unknown, nil, ""); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("MSF: %v", err)
	}
	rd, err = Open(write(t, "bad.sto", "# STOCKHOLM 1.0\na ACD\nb AC\n//\n"), Unknown, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.Next(&s); err == nil || !strings.Contains(err.Error(), "bad.sto line 4") {
		t.Errorf("ragged alignment: %v", err)
	}
}

func TestStockholm(t *testing.T) {
	p := write(t, "x.sto", ""+
		"# STOCKHOLM 1.0\n"+
		"#=GF ID test\n"+
		"#=GS seq1 DE first sequence\n"+
		"#=GS seq1 AC P00001\n"+
		"\n"+
		"seq1  AC-D.E\n"+
		"seq2  ~~GHIK\n"+
		"#=GC SS_cons ......\n"+
		"\n"+
		"seq1  F_\n"+
		"seq2  LM\n"+
		"//\n"+
		"\n"+
		"# STOCKHOLM 1.0\n"+
		"seq3 WY\n"+
		"//\n")
	seqs := readAll(t, p, Unknown)
	if len(seqs) != 3 {
		t.Fatalf("%d sequences, want 3", len(seqs))
	}
	if s := seqs[0]; s.Name != "seq1" || s.Desc != "first sequence" || s.Acc != "P00001" || string(s.Seq) != "ACDEF" {
		t.Errorf("seq1: %+v", s)
	}
	if string(seqs[1].Seq) != "GHIKLM" || seqs[1].HasDesc || string(seqs[2].Seq) != "WY" {
		t.Errorf("seq2, seq3: %+v %+v", seqs[1], seqs[2])
	}
}

func TestParseFormat(t *testing.T) {
	if f, ok := ParseFormat("fAsTa"); !ok || f != FASTA {
		t.Error("fasta")
	}
	if _, ok := ParseFormat("nonsense"); ok {
		t.Error("nonsense")
	}
}

// TestAddSeq checks addSeq's run copies against its definition, one
// character at a time, on random lines of residues, digits, white space
// and every other byte.
func TestAddSeq(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := "ACDEFGHIKLMNPQRSTVWYacgtu*-.~09 \t\r\n\v\f\x00\x7f\x80\xff"
	for n := 0; n < 2000; n++ {
		line := make([]byte, rng.Intn(90))
		for i := range line {
			if rng.Intn(8) == 0 {
				line[i] = byte(rng.Intn(256))
			} else {
				line[i] = alphabet[rng.Intn(len(alphabet))]
			}
		}
		want := []byte("prefix")
		for _, c := range line {
			if !(c >= '0' && c <= '9') && !isSpace(c) {
				want = append(want, c)
			}
		}
		s := Sequence{Seq: []byte("prefix")}
		addSeq(&s, string(line))
		if !bytes.Equal(s.Seq, want) {
			t.Fatalf("addSeq(%q) = %q, want %q", line, s.Seq, want)
		}
	}
}

// BenchmarkReadFASTA reads a 20 MB FASTA file of 60-residue lines (bytes
// a second are the file's).
func BenchmarkReadFASTA(b *testing.B) {
	rng := rand.New(rand.NewSource(2))
	var buf bytes.Buffer
	for i := 0; buf.Len() < 20<<20; i++ {
		fmt.Fprintf(&buf, ">seq%d some description\n", i)
		n := 50 + rng.Intn(700)
		for j := 0; j < n; j += 60 {
			for k := j; k < min(j+60, n); k++ {
				buf.WriteByte("ACDEFGHIKLMNPQRSTVWY"[rng.Intn(20)])
			}
			buf.WriteByte('\n')
		}
	}
	p := filepath.Join(b.TempDir(), "db.fa")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		rd, err := Open(p, FASTA, nil, "")
		if err != nil {
			b.Fatal(err)
		}
		var s Sequence
		for rd.Next(&s) == nil {
		}
		rd.Close()
	}
}
