package seqio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// The fixtures must read exactly as Easel reads them (testdata/*.sqdump
// were written by testdata/sqdump.c, our driver around Easel 0.48).
func TestGoldenFixtures(t *testing.T) {
	for _, c := range []struct {
		file, golden string
		t            alphabet.Type
	}{
		{"edge.fa", "edge.fa", alphabet.Amino},
		{"edge.fa.gz", "edge.fa", alphabet.Amino},
		{"edge_dna.fa", "edge_dna.fa", alphabet.DNA},
		{"uniprot.embl", "uniprot.embl", alphabet.Amino},
		{"synth.gb", "synth.gb", alphabet.DNA},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", c.golden+".sqdump"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sqdump(filepath.Join("testdata", c.file), c.t); got != string(want) {
			t.Errorf("%s: reads differently from Easel\n got:\n%s\nwant:\n%s", c.file, got, want)
		}
	}
}

// The SHA-256 of Easel's reading of every sequence file in Debian's
// hmmer-examples and the shared data set must match ours.
func TestManyFiles(t *testing.T) {
	f, err := os.Open("testdata/sqdump.sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		sum, alph, id := fs[0], fs[1], fs[2]
		n++
		t.Run(id, func(t *testing.T) {
			var path string
			if strings.HasPrefix(id, "examples:") {
				path = testutil.HMMERExamples(t, strings.TrimPrefix(id, "examples:"))
			} else {
				path = testutil.SharedData(t, strings.TrimPrefix(id, "shared:"))
			}
			ty := alphabet.Amino
			if alph == "dna" {
				ty = alphabet.DNA
			}
			h := sha256.Sum256([]byte(sqdump(path, ty)))
			if got := hex.EncodeToString(h[:]); got != sum {
				t.Errorf("%s reads differently from Easel (rerun testdata/sqdump.c to see how)", path)
			}
		})
	}
	if n < 20 {
		t.Fatalf("manifest has only %d files", n)
	}
}

func TestEdgeSemantics(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	r, err := Open("testdata/edge.fa", nil, abc)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seqs []*Sequence
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, s)
	}
	if len(seqs) != 9 {
		t.Fatalf("read %d sequences, want 9", len(seqs))
	}
	s2 := seqs[1]
	// '*' is the nonresidue code, '.' and '_' the gap, '~' missing data;
	// each counts toward L.
	if s2.Dsq[5] != abc.Nonresidue() || s2.Dsq[10] != abc.Gap() || s2.Dsq[15] != abc.Gap() || s2.Dsq[19] != abc.Missing() {
		t.Errorf("special residues coded %v", s2.Dsq[:20])
	}
	if s2.Desc != "desc with   inner  spaces   \t  " {
		t.Errorf("description %q", s2.Desc)
	}
	if seqs[2].Name != "s3\x01odd" || seqs[3].Desc != "ctrl-A separates" {
		t.Errorf("ctrl-A: name %q, desc %q", seqs[2].Name, seqs[3].Desc)
	}
	if seqs[4].L() != 0 || seqs[6].Name != "s7" || seqs[7].Name != "s8" || seqs[8].L() != 3 {
		t.Error("empty sequence, '>' inside a line, or last line without newline")
	}
}

// Live cross-check: hmmsearch's count of targets and residues.
func TestLiveHmmsearchCounts(t *testing.T) {
	hmmsearch := testutil.Tool(t, "hmmsearch")
	model := testutil.Testdata(t, "globins4.hmm")
	re := regexp.MustCompile(`Target sequences:\s+(\d+)\s+\((\d+) residues searched\)`)
	for _, f := range []string{"testdata/edge.fa", "testdata/edge.fa.gz", "testdata/uniprot.embl", testutil.Testdata(t, "globins45.fa")} {
		out, err := exec.Command(hmmsearch, "--cpu", "1", model, f).Output()
		if err != nil {
			t.Fatalf("hmmsearch %s: %v", f, err)
		}
		m := re.FindSubmatch(out)
		if m == nil {
			t.Fatalf("no target count in hmmsearch output for %s", f)
		}
		wantN, _ := strconv.Atoi(string(m[1]))
		wantRes, _ := strconv.Atoi(string(m[2]))
		r, err := Open(f, nil, alphabet.New(alphabet.Amino))
		if err != nil {
			t.Fatal(err)
		}
		n, res := 0, 0
		for {
			s, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n, res = n+1, res+s.L()
		}
		r.Close()
		if n != wantN || res != wantRes {
			t.Errorf("%s: %d sequences, %d residues; hmmsearch read %d, %d", f, n, res, wantN, wantRes)
		}
	}
}

// Stdin, gzip'd or not, and a sequence far longer than HMMER's 100,000
// residue pipeline limit, spread over buffer refills.
func TestStdinAndLongSequence(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString(">long a sequence longer than the read buffer\n")
	const L = 3*bufSize + 12345
	for i := 0; i < L; i++ {
		plain.WriteByte("ACDEFGHIKLMNPQRSTVWY"[i%20])
		if i%70 == 69 {
			plain.WriteString("\r\n")
		}
	}
	plain.WriteString("\n>short\nMKV\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	abc := alphabet.New(alphabet.Amino)
	for name, in := range map[string][]byte{"plain": plain.Bytes(), "gzip": gz.Bytes()} {
		r, err := Open("-", bytes.NewReader(in), abc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Read()
		if err != nil || s.L() != L || s.Dsq[L-1] != abc.Inmap["ACDEFGHIKLMNPQRSTVWY"[(L-1)%20]] {
			t.Fatalf("%s: long sequence: %v, L=%d", name, err, s.L())
		}
		if s2, err := r.Read(); err != nil || s2.Name != "short" || s2.L() != 3 {
			t.Fatalf("%s: after the long sequence: %v %+v", name, err, s2)
		}
		if _, err := r.Read(); err != io.EOF {
			t.Fatalf("%s: want io.EOF, got %v", name, err)
		}
		r.Close()
	}
}

// ReadInto reuses the caller's buffer; Read gives independent sequences.
func TestReadIntoReuses(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	r, _ := Open("testdata/edge.fa", nil, abc)
	defer r.Close()
	s := Sequence{Dsq: make([]byte, 0, 1000)}
	p := &s.Dsq[:1][0]
	for r.ReadInto(&s) == nil {
		if s.L() > 0 && &s.Dsq[0] != p {
			t.Fatal("ReadInto allocated although the buffer was large enough")
		}
	}
	r2, _ := Open("testdata/edge.fa", nil, abc)
	defer r2.Close()
	a, _ := r2.Read()
	b, _ := r2.Read()
	if a.L() != 153 || b.L() != 60 || a.Dsq[0] != abc.Inmap['V'] {
		t.Error("a sequence from Read changed when the next one was read")
	}
}

// Memory stays bounded: the read buffer keeps its size and the scratch
// space only grows to the longest sequence, however many are read.
func TestBoundedMemory(t *testing.T) {
	data := syntheticFASTA(8 << 20)
	r, err := Open("-", bytes.NewReader(data), alphabet.New(alphabet.Amino))
	if err != nil {
		t.Fatal(err)
	}
	n, maxL := 0, 0
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n, maxL = n+1, max(maxL, s.L())
	}
	if n < 10000 || len(r.buf) != bufSize || cap(r.work) > 2*(bufSize+maxL) {
		t.Errorf("%d sequences: buffer %d bytes (want %d), scratch %d for longest sequence %d", n, len(r.buf), bufSize, cap(r.work), maxL)
	}
}
