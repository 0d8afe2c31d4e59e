package plan7

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

func TestProb2Score(t *testing.T) {
	cases := []struct {
		p, null float32
		want    int32
	}{
		{0.5, 0.25, 1000},
		{0.25, 0.5, -1000},
		{1, 1, 0},
		{0, 1, -Infty},
		{0.05, 0.05, 0},
		{0.1, 0.05, 1000},
	}
	for _, c := range cases {
		if got := Prob2Score(c.p, c.null); got != c.want {
			t.Errorf("Prob2Score(%v, %v) = %d, want %d", c.p, c.null, got, c.want)
		}
	}
	if Score2Prob(-Infty, 0.5) != 0 || Score2Prob(1000, 0.25) != 0.5 {
		t.Error("Score2Prob")
	}
	if Scorify(12345) != 12.345 {
		t.Errorf("Scorify(12345) = %v", Scorify(12345))
	}
}

func TestILogsum(t *testing.T) {
	// log2(2^a + 2^b) in thousandths of a bit, within the table's step.
	for _, c := range [][2]int32{{0, 0}, {1000, 0}, {-5000, 3000}, {0, -30000}, {-Infty, 0}} {
		exact := math.Log2(math.Exp2(float64(c[0])/1000)+math.Exp2(float64(c[1])/1000)) * 1000
		if got := ILogsum(c[0], c[1]); math.Abs(float64(got)-exact) > 1.5 {
			t.Errorf("ILogsum(%d, %d) = %d, want about %.1f", c[0], c[1], got, exact)
		}
	}
}

func TestAlphabets(t *testing.T) {
	a := NewAlphabet(Amino)
	if a.Size != 20 || a.Iupac != 24 || a.Index('a') != 0 || a.Index('Y') != 19 {
		t.Fatal("amino alphabet order")
	}
	// Unknown characters, gaps and '*' all become X; U is its own code.
	for _, c := range []byte("XOJ*-.1~") {
		if a.Index(c) != 23 {
			t.Errorf("%q -> %d, want X (23)", c, a.Index(c))
		}
	}
	if a.Index('u') != 20 || !a.Degenerate[20][a.Index('S')] || a.DegenCount[23] != 20 {
		t.Error("U is scored as S; X is any of 20")
	}
	n := NewAlphabet(Nucleic)
	if n.Size != 4 || n.Iupac != 17 || n.Index('U') != 4 || n.Index('Z') != 16 || n.DegenCount[n.Index('N')] != 4 {
		t.Error("nucleic alphabet")
	}
}

// cHexFloat formats like C's printf("%a") for the values in the dumps.
func cHexFloat(f float32) string {
	s := strconv.FormatFloat(float64(f), 'x', -1, 32)
	i := strings.IndexByte(s, 'p')
	exp := strings.TrimLeft(s[i+2:], "0")
	if exp == "" {
		exp = "0"
	}
	return s[:i+2] + exp
}

// TestLogoddsMatchesHMMER2 compares every integer score with a dump that
// HMMER 2.3.2's own P7Logoddsify() produced for the same model files
// (testdata/hmmer2/logodds, made by a throwaway C driver linked against
// HMMER 2.3.2), in Viterbi mode and, for local models, Forward mode.
func TestLogoddsMatchesHMMER2(t *testing.T) {
	dumps, _ := filepath.Glob(testutil.Testdata(t, "hmmer2/logodds/*.txt.gz"))
	if len(dumps) == 0 {
		t.Fatal("no logodds dumps")
	}
	for _, d := range dumps {
		base := strings.TrimSuffix(filepath.Base(d), ".txt.gz")
		model, mode, _ := strings.Cut(base, ".")
		hmms, err := ReadFile(testutil.Testdata(t, "hmmer2/models/"+model+".hmm2"))
		if err != nil {
			t.Fatal(err)
		}
		h := hmms[0]
		p := h.Logoddsify(mode == "viterbi")
		var b strings.Builder
		fmt.Fprintf(&b, "M %d\n", h.M)
		row := func(name string, v []int32, from, to int) {
			b.WriteString(name)
			for k := from; k <= to; k++ {
				fmt.Fprintf(&b, " %d", v[k])
			}
			b.WriteString("\n")
		}
		for s := 0; s < 7; s++ {
			row(fmt.Sprintf("tsc%d", s), p.Tsc[s], 1, h.M-1)
		}
		for x := 0; x < h.Alph.Iupac; x++ {
			row(fmt.Sprintf("msc%d", x), p.Msc[x], 1, h.M)
		}
		for x := 0; x < h.Alph.Iupac; x++ {
			row(fmt.Sprintf("isc%d", x), p.Isc[x], 1, h.M-1)
		}
		row("bsc", p.Bsc, 1, h.M)
		row("esc", p.Esc, 1, h.M)
		b.WriteString("xsc")
		for k := 0; k < 4; k++ {
			fmt.Fprintf(&b, " %d %d", p.Xsc[k][0], p.Xsc[k][1])
		}
		b.WriteString("\nmat")
		for k := 1; k <= h.M; k++ {
			for x := 0; x < h.Alph.Size; x++ {
				b.WriteString(" " + cHexFloat(h.Mat[k][x]))
			}
		}
		fmt.Fprintf(&b, "\np1 %s tbd1 %s\n", cHexFloat(h.P1), cHexFloat(h.Tbd1))

		f, err := os.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		want := bufio.NewScanner(zr)
		want.Buffer(nil, 1<<22)
		got := strings.Split(b.String(), "\n")
		for i := 0; want.Scan(); i++ {
			if i >= len(got) || got[i] != want.Text() {
				g := ""
				if i < len(got) {
					g = got[i]
				}
				t.Errorf("%s line %d differs:\n got  %.120s\n want %.120s", base, i+1, g, want.Text())
				break
			}
		}
		f.Close()
	}
}

func TestReaderMultipleModels(t *testing.T) {
	hmms, err := ReadFile(testutil.Testdata(t, "hmmer2/models/multi.hmm2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(hmms) != 2 || hmms[0].Name != "fn3" || hmms[1].Name != "globin" {
		t.Fatalf("read %d models", len(hmms))
	}
	h := hmms[0]
	if !h.HasStats || !h.HasAcc || h.Acc != "PF00041" || !h.HasGA || h.GA != [2]float32{7.8, -1} || !h.HasCS {
		t.Errorf("fn3 annotation: %+v", h)
	}
}

func TestReaderErrors(t *testing.T) {
	src, err := os.ReadFile(testutil.Testdata(t, "hmmer2/models/rrm.hmm2"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	cases := map[string]string{
		"no magic":    "NAME x\n",
		"no HMM line": strings.Join(lines[:10], ""),
		"cut short":   strings.Join(lines[:40], ""),
		"bad ALPH":    strings.Replace(string(src), "ALPH  Amino", "ALPH  Klingon", 1),
	}
	for name, text := range cases {
		_, err := NewReader(strings.NewReader(text), "bad.hmm2").Next()
		if err == nil || !strings.Contains(err.Error(), "bad.hmm2 line ") {
			t.Errorf("%s: error %v should name the file and line", name, err)
		}
	}
}

// A COM line longer than HMMER2's 512-byte buffer is read in pieces.
func TestLongHeaderLine(t *testing.T) {
	src, err := os.ReadFile(testutil.Testdata(t, "hmmer2/models/rrm.hmm2"))
	if err != nil {
		t.Fatal(err)
	}
	long := "COM   " + strings.Repeat("x", 600) + "\n"
	text := strings.Replace(string(src), "NSEQ ", long+"NSEQ ", 1)
	h, err := NewReader(strings.NewReader(text), "long.hmm2").Next()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.Comlog, "x"); n != 505 {
		t.Errorf("COM kept %d characters of 600; HMMER2 keeps the first 505", n)
	}
}
