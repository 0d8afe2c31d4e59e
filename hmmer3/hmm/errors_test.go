package hmm

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readAll opens path and reads every model, returning the first error.
func readAll(path string) error {
	r, err := OpenFile(path, nil)
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

// Each broken model must fail with one line naming the file and the line.
func TestMalformedModels(t *testing.T) {
	good, err := os.ReadFile(repoTestdata(t, "globins4.hmm"))
	if err != nil {
		t.Fatal(err)
	}
	made1, err := os.ReadFile("testdata/MADE1.hmm")
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	lines := strings.SplitAfter(g, "\n")
	del := func(i int) string { // delete line i (1-based)
		return strings.Join(append(append([]string{}, lines[:i-1]...), lines[i:]...), "")
	}
	sub := func(old, new string) string { return strings.Replace(g, old, new, 1) }
	g3b, err := os.ReadFile("testdata/globins4.3b.hmm")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty", "", "file is empty"},
		{"blank", "\n  \n# only a comment\n", "no models"},
		{"unknown format", strings.Replace(g, "HMMER3/f", "HMMER4/a", 1), ":1: format tag is \"HMMER4/a\""},
		{"no NAME", del(2), ":16: model has no NAME line"},
		{"no LENG", del(3), ":16: model globins4 has no LENG line"},
		{"no ALPH", del(4), ":16: model globins4 has no ALPH line"},
		{"no HMM line", strings.Join(lines[:16], ""), ":16: unexpected end of file: the model header has no HMM line"},
		{"bad LENG", sub("LENG  149", "LENG  many"), ":3: invalid model length \"many\""},
		{"bad ALPH", sub("ALPH  amino", "ALPH  coins"), ":4: unrecognized or unsupported alphabet type \"coins\""},
		{"bad yes/no", sub("MAP   yes", "MAP   maybe"), ":9: MAP header line must say yes or no"},
		{"STATS missing", del(15), ":16: model globins4 lacks one or more of its three STATS lines"},
		{"bad number", sub("1.70038", "1.7x038"), ":22: bad probability field \"1.7x038\" on match emission line"},
		{"negative log", sub("1.70038", "-1.70038"), ":22: bad probability field \"-1.70038\""},
		{"NaN", sub("1.70038", "nan"), ":22: bad probability field \"nan\""},
		{"not a distribution", sub("1.70038  4.17733", "0.00000  4.17733"), ":22: the probabilities on match emission line do not sum to 1"},
		{"bad transition", sub("0.03156  3.86736", "0.03156  0.00000"), ":24: the transition probabilities of node 1 do not sum to 1"},
		{"too few fields", sub("0.03156  3.86736  4.58970  0.61958  0.77255  0.34406  1.23405", "0.03156  3.86736"), ":24: too few fields on the transition line of node 1: expected 7, found 2"},
		{"node numbering", sub("\n      2   ", "\n      3   "), ":25: expected the match line of node 2 (of 149), found \"3\""},
		{"LENG too small", sub("LENG  149", "LENG  148"), "expected closing // after node 148 (LENG 148), found \"149\""},
		{"LENG too large", sub("LENG  149", "LENG  150"), "expected the match line of node 150 (of 150), found \"//\""},
		{"missing annotation", sub("      9 v - - -\n", "      9 v\n"), ":22: missing RF field on the match line of node 1"},
		{"truncated", strings.Join(lines[:100], ""), ":100: unexpected end of file: no insert emission line for node 27"},
		{"no //", strings.TrimSuffix(g, "//\n"), "unexpected end of file: no closing // after node 149 of model globins4"},
		{"garbage after //", g + "junk\n", ":470: expected HMMER3/f to start the next model, found \"junk\""},
		{"mixed formats", g + string(g3b), "expected HMMER3/f to start the next model, found \"HMMER3/b\""},
		{"mixed alphabets", g + string(made1), ":476: alphabet type mismatch: earlier models are amino, this one is DNA"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.hmm")
			os.WriteFile(path, []byte(c.text), 0o644)
			err := readAll(path)
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+":") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q; want one line %q starting with the path", msg, c.want)
			}
		})
	}
}

func TestMalformedBinaryAndGzip(t *testing.T) {
	dir := t.TempDir()
	bin, _ := os.ReadFile("testdata/globins4.3f.bin")
	gz, _ := os.ReadFile("testdata/globins4.3a.bin.gz")
	var textgz bytes.Buffer
	zw := gzip.NewWriter(&textgz)
	g, _ := os.ReadFile(repoTestdata(t, "globins4.hmm"))
	zw.Write(g)
	zw.Close()
	badMagic := append([]byte{0xb6, 0xed, 0xed, 0xe9}, bin[4:]...)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated binary", bin[:len(bin)/2], "model 1: unexpected end of binary data reading the probability parameters"},
		{"truncated annotation", bin[:len(bin)-10], "model 1: unexpected end of binary data reading the model annotation"},
		{"second model cut", append(append([]byte{}, bin...), bin[:100]...), "model 2: unexpected end of binary data"},
		{"unknown binary magic", badMagic, "format tag appears binary"},
		{"truncated gzip binary", gz[:len(gz)/2], "truncated gzip data"},
		{"truncated gzip text", textgz.Bytes()[:textgz.Len()-20], "truncated gzip data"},
		{"corrupt gzip", append(append([]byte{}, textgz.Bytes()[:textgz.Len()-8]...), 1, 2, 3, 4, 5, 6, 7, 8), "gzip data is corrupt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			os.WriteFile(path, c.data, 0o644)
			err := readAll(path)
			if err == nil || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want %q", err, c.want)
			}
		})
	}
	if err := readAll(filepath.Join(dir, "nonexistent.hmm")); err == nil || !strings.Contains(err.Error(), "cannot open HMM file: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	// The path once, not "d: read error: read d: is a directory".
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if err := readAll(sub); err == nil || !strings.HasPrefix(err.Error(), sub+": read error: is a directory") {
		t.Errorf("directory: %v", err)
	}
}
