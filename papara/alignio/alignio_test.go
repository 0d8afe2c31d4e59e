package alignio

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(data string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(data))
	w.Close()
	return b.Bytes()
}

func rows(a *Alignment) string {
	var s []string
	for _, r := range a.Rows {
		s = append(s, r.Name+"="+string(r.Seq))
	}
	return strings.Join(s, " ")
}

func TestReadAlignmentFormats(t *testing.T) {
	const want = "a=ACGT-ACGTT b=AC-TTACG-T c=ACGTAAC-TT"
	for name, data := range map[string][]byte{
		"sequential":            []byte("3 10\na  ACGT-ACGTT\nb\tAC-TTACG-T\nc ACGTA AC-TT\n"),
		"interleaved":           []byte("3 10\na ACGT-\nb AC-TT\nc ACGTA\n\nACGTT\nACG-T\nAC-TT\n"),
		"interleaved no blank":  []byte("3 10\na ACGT-\nb AC-TT\nc ACGTA\nACGTT\nACG-T\nAC-TT\n"),
		"interleaved 3 blocks":  []byte(" 3 10\n\na ACGT\nb AC-T\nc ACGT\n\n-AC\nTAC\nAAC\n\nGTT\nG-T\n-TT\n\n"),
		"crlf":                  []byte("3 10\r\na ACGT-ACGTT\r\nb AC-TTACG-T\r\nc ACGTAAC-TT\r\n"),
		"fasta":                 []byte(">a desc\nACGT-\nACGTT\n>b\nAC-TTACG-T\n\n>c\nACGTAAC-TT\n"),
		"gzip phylip":           gz("3 10\na ACGT-ACGTT\nb AC-TTACG-T\nc ACGTAAC-TT\n"),
		"fasta leading newline": []byte("\n>a\nACGT-ACGTT\n>b\nAC-TTACG-T\n>c\nACGTAAC-TT"),
	} {
		a, err := ReadAlignment(write(t, "aln", data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := rows(a); got != want {
			t.Errorf("%s: %s", name, got)
		}
	}
}

func TestReadAlignmentErrors(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"3 10\na ACGT-ACGTT\nb AC-TTACG-\nc ACGTAAC-TT\n", `aln:3: record "b": row has 9 columns, the header says 10`},
		{"3 10\na ACGT-ACGTT\nb AC-TTACG-T\n", "the header announces 3 taxa, the file ends after 2"},
		{"3 10\na ACGT-ACGTT\n b AC-TTACG-T\nc ACGTAAC-TT\n", "aln:3: expected \"name sequence\"; the line starts with white space"},
		{"2 4\naACGT\nb ACGT\n", "aln:2: expected \"name sequence\"; no white space after the name"},
		{"2 4\na ACGT\na ACGT\n", `aln:3: record "a": duplicate name (first on line 2)`},
		{">a\nACGT\n>b\nACG\n", `aln:3: record "b": row has 3 columns, the first row (a) has 4`},
		{"two 4\na ACGT\n", `bad PHYLIP header "two 4"`},
		{"", "empty file"},
		{"3 10\na ACGT-\nb AC-TT\nc ACGTA\n\nACGTT\nACG-T\n", `record "c": interleaved block ends early`},
		{"2 4\na ACGT\nb\x00 ACGT\n", "aln:3: NUL byte"},
		{string(gz("2 4\na ACGT\nb ACGT\n" + strings.Repeat("\n", 5000))[:30]), "aln: truncated gzip data"},
	} {
		_, err := ReadAlignment(write(t, "aln", []byte(c.data)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.data, err, c.want)
		}
	}
}

func TestReadFasta(t *testing.T) {
	recs, err := ReadFasta(write(t, "r.fa", []byte(">r1 some text\nAC GT\nAA\n>r2\n\nTT\n")))
	if err != nil || len(recs) != 2 || recs[0].Name != "r1" || string(recs[0].Seq) != "ACGTAA" || recs[1].Line != 4 {
		t.Fatalf("%v %+v", err, recs)
	}
	for _, c := range []struct{ data, want string }{
		{">r1\nACGT\n>r2\n>r3\nAA\n", `r.fa:3: record "r2": empty sequence`},
		{"ACGT\n>r1\nAA\n", "r.fa:1: text before the first '>' record"},
		{"", "no FASTA records"},
		{">\nACGT\n", "r.fa:1: record without a name"},
	} {
		_, err := ReadFasta(write(t, "r.fa", []byte(c.data)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.data, err, c.want)
		}
	}
}

func ExampleWritePhylip() {
	WritePhylip(os.Stdout, []string{"ref1", "r", "longname"}, [][]byte{[]byte("ACGT"), []byte("-CG-"), []byte("AC-T")})
	// Output:
	// 3 4
	// ref1     ACGT
	// r        -CG-
	// longname AC-T
}

func ExampleWriteFasta() {
	WriteFasta(os.Stdout, []string{"ref1", "r"}, [][]byte{[]byte("ACGT"), []byte("-CG-")})
	// Output:
	// >ref1
	// ACGT
	// >r
	// -CG-
}
