package synthdb

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

func generate(t testing.TB, p Params) ([]byte, Summary) {
	t.Helper()
	var buf bytes.Buffer
	sum, err := Write(&buf, p)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Bytes != int64(buf.Len()) {
		t.Fatalf("summary says %d bytes, wrote %d", sum.Bytes, buf.Len())
	}
	return buf.Bytes(), sum
}

// parse reads FASTA text back with the project's reader (Easel's rules).
func parse(t testing.TB, fa []byte) []*seqio.Sequence {
	t.Helper()
	dir := t.TempDir()
	path := dir + "/db.fa"
	if err := writeFile(path, fa); err != nil {
		t.Fatal(err)
	}
	r, err := seqio.Open(path, nil, alphabet.New(alphabet.Amino))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*seqio.Sequence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
}

func globins(t testing.TB) []*hmm.HMM {
	t.Helper()
	ms, err := readModels(testutil.Testdata(t, "globins4.hmm"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// The bytes depend on the parameters and the seed only: not on the
// number of threads. The line width changes the layout, not the residues.
func TestSameOutputForAnyThreads(t *testing.T) {
	p := DefaultParams(3_500_000, 11)
	p.Models, p.PerModel = globins(t), 7
	p.Threads = 1
	one, s1 := generate(t, p)
	p.Threads = 5
	five, s5 := generate(t, p)
	if !bytes.Equal(one, five) || s1 != s5 {
		t.Fatal("output differs between 1 and 5 threads")
	}
	p.Width = 0
	flat, _ := generate(t, p)
	a, b := parse(t, one), parse(t, flat)
	if len(a) != len(b) {
		t.Fatalf("%d sequences at width 60, %d unwrapped", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Dsq, b[i].Dsq) {
			t.Fatalf("sequence %d differs between widths", i)
		}
	}
	p.Seed = 12
	other, _ := generate(t, p)
	if bytes.Equal(other[:1000], flat[:1000]) {
		t.Fatal("seeds 11 and 12 gave the same database")
	}
}

// A fixed database must never change: these digests were recorded when
// the generator was written. A change here means every database made
// before it is different from one made after: bump the docs if intended.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		p    func() Params
	}{
		{"background", func() Params { return DefaultParams(200_000, 7) }},
		{"planted-core", func() Params {
			p := DefaultParams(200_000, 7)
			p.Models, p.PerModel = globins(t), 3
			return p
		}},
		{"planted-local", func() Params {
			p := DefaultParams(200_000, 7)
			p.Models, p.PerModel, p.Mode = globins(t), 3, Local
			return p
		}},
	}
	for _, c := range cases {
		out, _ := generate(t, c.p())
		got := fmt.Sprintf("%x", sha256.Sum256(out))
		if got != goldenDigests[c.name] {
			t.Errorf("%s: digest %s, want %s", c.name, got, goldenDigests[c.name])
		}
	}
}

var goldenDigests = map[string]string{
	"background":    "0451fd0ebea89d28f83daf139d094ae5356057e14c9c99666b96784d8d4ea309",
	"planted-core":  "c78434060597fd68c5b531498a50713fab0d03b7db97f90ed15031dd947e5d84",
	"planted-local": "83af6535530e2d783effef30784a5b42ccfe244007c53e2a0997b2c833a7d060",
}

func TestExactSizeAndNames(t *testing.T) {
	p := DefaultParams(1_000_003, 3)
	p.Models, p.PerModel = globins(t), 4
	out, sum := generate(t, p)
	seqs := parse(t, out)
	var total int64
	names := map[string]bool{}
	planted := 0
	for _, s := range seqs {
		total += int64(s.L())
		if names[s.Name] {
			t.Fatalf("duplicate name %s", s.Name)
		}
		names[s.Name] = true
		if strings.Contains(s.Name, "-sample") {
			planted++
			if !strings.HasPrefix(s.Desc, "synthdb core sample of ") {
				t.Errorf("planted %s has description %q", s.Name, s.Desc)
			}
		}
		if s.L() == 0 {
			t.Errorf("%s is empty", s.Name)
		}
	}
	if total != p.Residues || sum.Residues != total {
		t.Fatalf("%d residues written, summary %d, asked %d", total, sum.Residues, p.Residues)
	}
	if planted != 4 || sum.Planted != 4 || int64(len(seqs)) != sum.Sequences {
		t.Fatalf("planted %d (summary %d), sequences %d (summary %d)", planted, sum.Planted, len(seqs), sum.Sequences)
	}
	for i := 1; i <= 4; i++ {
		if !names[fmt.Sprintf("MYG_PHYCA-sample%d", i)] && !names[fmt.Sprintf("globins4-sample%d", i)] {
			t.Errorf("planted sample %d missing", i)
		}
	}
}

// Residue frequencies follow the Swiss-Prot table to within sampling error.
func TestComposition(t *testing.T) {
	const n = 4_000_000
	out, _ := generate(t, DefaultParams(n, 5))
	var count [256]int
	for _, line := range bytes.Split(out, []byte{'\n'}) {
		if len(line) > 0 && line[0] != '>' {
			for _, c := range line {
				count[c]++
			}
		}
	}
	var total float64
	for _, f := range SwissProt {
		total += f
	}
	for i, f := range SwissProt {
		p := f / total
		got := float64(count[aminoSymbols[i]]) / n
		sd := math.Sqrt(p * (1 - p) / n)
		if math.Abs(got-p) > 5*sd+1.0/65536 {
			t.Errorf("%c: frequency %.5f, want %.5f (sd %.5f)", aminoSymbols[i], got, p, sd)
		}
	}
	other := n
	for _, c := range aminoSymbols {
		other -= count[c]
	}
	if other != 0 {
		t.Errorf("%d residues outside the 20 amino acids", other)
	}
}

// Lengths are lognormal with the documented mean and median.
func TestLengths(t *testing.T) {
	p := DefaultParams(8_000_000, 9)
	out, _ := generate(t, p)
	seqs := parse(t, out)
	seqs = seqs[:len(seqs)-1] // the last one is cut to fit
	var lens []float64
	var sum, logsum, log2sum float64
	for _, s := range seqs {
		l := float64(s.L())
		lens = append(lens, l)
		sum += l
		logsum += math.Log(l)
		log2sum += math.Log(l) * math.Log(l)
	}
	n := float64(len(seqs))
	mean := sum / n
	sort.Float64s(lens)
	median := lens[len(lens)/2]
	sdlog := math.Sqrt(log2sum/n - (logsum/n)*(logsum/n))
	// Standard error of the mean is about 270/sqrt(22000) = 1.8.
	if math.Abs(mean-DefaultMeanLength) > 9 {
		t.Errorf("mean length %.1f, want about %d", mean, DefaultMeanLength)
	}
	wantMedian := math.Exp(math.Log(DefaultMeanLength) - DefaultSigma*DefaultSigma/2)
	if math.Abs(median-wantMedian) > 0.03*wantMedian {
		t.Errorf("median length %.0f, want about %.0f", median, wantMedian)
	}
	if math.Abs(sdlog-DefaultSigma) > 0.02 {
		t.Errorf("sd of log length %.3f, want %.2f", sdlog, DefaultSigma)
	}
	if lens[0] < DefaultMinLength {
		t.Errorf("shortest length %.0f below the minimum", lens[0])
	}
}

func TestBadParams(t *testing.T) {
	for _, c := range []struct {
		edit func(*Params)
		want string
	}{
		{func(p *Params) { p.Residues = 0 }, "at least one residue"},
		{func(p *Params) { p.Sigma = -1 }, "sigma"},
		{func(p *Params) { p.MinLength = 0 }, "length bounds"},
		{func(p *Params) { p.Width = -1 }, "line width"},
		{func(p *Params) { p.Residues = 100; p.Models = globins(t); p.PerModel = 5 }, "smaller than the"},
	} {
		p := DefaultParams(1000, 1)
		c.edit(&p)
		_, err := Write(io.Discard, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one about %q", err, c.want)
		}
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int64{"175000000": 175_000_000, "175M": 175_000_000, "2k": 2000, "1G": 1e9} {
		if got, err := ParseCount(in); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0", "-5", "1.5M", "M", "12x"} {
		if _, err := ParseCount(in); err == nil {
			t.Errorf("ParseCount(%q) accepted", in)
		}
	}
}

func TestResidueTable(t *testing.T) {
	tab, err := residueTable([]float64{1, 1, 2}, "ABC")
	if err != nil {
		t.Fatal(err)
	}
	var count [256]int
	for _, c := range tab {
		count[c]++
	}
	if count['A'] != 16384 || count['B'] != 16384 || count['C'] != 32768 {
		t.Fatalf("counts %d %d %d", count['A'], count['B'], count['C'])
	}
	if _, err := residueTable([]float64{0, 0}, "AB"); err == nil {
		t.Error("an all-zero composition was accepted")
	}
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }

type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, fmt.Errorf("disk full")
	}
	f.left--
	return len(p), nil
}

// A write error stops the generator (no deadlock, no further writes) and
// comes back to the caller.
func TestWriteError(t *testing.T) {
	p := DefaultParams(50_000_000, 1)
	p.Threads = 3
	_, err := Write(&failingWriter{left: 2}, p)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v", err)
	}
}
