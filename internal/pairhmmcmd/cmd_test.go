package pairhmmcmd

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestFormatsMatchC compares our number formatting with a golden file
// printed by C++ (g++ 12, glibc 2.36): `std::cout << v` and printf("%.5f").
func TestFormatsMatchC(t *testing.T) {
	data, err := os.ReadFile("testdata/cout_golden.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	for _, l := range lines {
		f := strings.Split(l, "\t")
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatalf("bad value %q", f[0])
		}
		if got := string(AppendCout(nil, v)); got != f[1] {
			t.Errorf("cout of %s: got %q, C++ %q", f[0], got, f[1])
		}
		if got := string(AppendFixed5(nil, v)); got != f[2] {
			t.Errorf("%%.5f of %s: got %q, C %q", f[0], got, f[2])
		}
	}
}

// runCmd runs the command on the CPU (--nogpu), so that these tests
// behave the same on a GPU host; gpu_test.go covers the GPU.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return runRaw(t, stdin, append([]string{"--nogpu"}, args...)...)
}

func runRaw(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Command.Run(cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func numbers(t *testing.T, s string) []float64 {
	t.Helper()
	var v []float64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("not a number: %q", f)
		}
		v = append(v, x)
	}
	return v
}

// TestReadmeExample: gpuPairHMM's README example, in both formats.
func TestReadmeExample(t *testing.T) {
	in := testutil.SharedData(t, "gpuPairHMM/readme_example.in")
	code, out, errs := runCmd(t, "", "--format", "matrix", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, _ := os.ReadFile(testutil.SharedData(t, "gpuPairHMM/readme_example.out"))
	if !strings.HasPrefix(out, "2 2\n") {
		t.Errorf("matrix output does not repeat the record header: %q", out)
	}
	g, w := numbers(t, out), numbers(t, string(want))
	if len(g) != len(w) {
		t.Fatalf("got %q, want %q", out, want)
	}
	for i := range g {
		// 6 significant digits in the README, float precision in both
		if math.Abs(g[i]-w[i]) > 2e-5 {
			t.Errorf("value %d: %v, README %v", i, g[i], w[i])
		}
	}
	code, out, _ = runCmd(t, "", in)
	if code != 0 || out != "-5.97153\n-3.1966\n-6.34042\n-1.66333\n" {
		t.Errorf("lines format: exit %d, %q", code, out)
	}
}

// TestMatrixAgainstGpuPairHMM: on 10s, gpuPairHMM (float, FMA) and GATK's
// arithmetic agree to float precision; the printed matrices may differ
// only in the last printed digit.
func TestMatrixAgainstGpuPairHMM(t *testing.T) {
	in := testutil.SharedData(t, "PairHMM/10s.in")
	ref := testutil.SharedData(t, "gpuPairHMM/expected_H200_cuda13/10s.gpuPairHMM.out")
	dir := t.TempDir()
	outPath := filepath.Join(dir, "10s.matrix")
	if code, _, errs := runCmd(t, "", in, "-o", outPath, "--format", "matrix", "--threads", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(outPath)
	want, _ := os.ReadFile(ref)
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, gpuPairHMM %d", len(gl), len(wl))
	}
	for i := range gl {
		g, w := numbers(t, gl[i]), numbers(t, wl[i])
		if len(g) != len(w) {
			t.Fatalf("line %d: %q vs %q", i+1, gl[i], wl[i])
		}
		for k := range g {
			if math.Abs(g[k]-w[k]) > 2e-5 {
				t.Errorf("line %d value %d: %v, gpuPairHMM %v", i+1, k+1, g[k], w[k])
			}
		}
	}
}

// TestLinesAgainstReference: the default output of 1m, read from standard
// input as gzip, against the reference log10_tri3 to the printed precision.
func TestLinesAgainstReference(t *testing.T) {
	in, err := os.ReadFile(testutil.SharedData(t, "PairHMM/1m.in.gz"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, string(in), "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(testutil.SharedData(t, "PairHMM/generated/1m.reference.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	sc.Scan()
	got := strings.Split(strings.TrimSpace(out), "\n")
	i := 0
	for sc.Scan() {
		want, _ := strconv.ParseFloat(strings.Split(sc.Text(), "\t")[8], 64)
		g, err := strconv.ParseFloat(got[i], 64)
		if err != nil || math.Abs(g-want) > 1e-4+5e-6*math.Abs(want) {
			t.Errorf("pair %d: printed %q, reference %v", i+1, got[i], want)
		}
		i++
	}
	if i != len(got) || i != 29307 {
		t.Errorf("%d lines printed, %d reference rows", len(got), i)
	}
}

// TestBadInput: every kind of bad input gives a one-line error that names
// the file and line, exit status 1, and no output file.
func TestBadInput(t *testing.T) {
	good := "1 1\nACGT IIII IIII IIII ++++\nACGTAC\n"
	cases := []struct{ name, input, want string }{
		{"short read line", "1 1\nACGT IIII IIII IIII\nACGT\n", "line 2: read 1: expected 5 fields"},
		{"unequal lengths", "1 1\nACGT III IIII IIII ++++\nACGT\n", "line 2: read 1: base qualities have length 3, bases 4"},
		{"lower case base", "1 1\nACgT IIII IIII IIII ++++\nACGT\n", "line 2: read 1: base 3 is 'g'"},
		{"IUPAC base in haplotype", "1 1\nACGT IIII IIII IIII ++++\nACRT\n", "line 3: haplotype 1: base 3 is 'R'"},
		{"quality out of range", "1 1\nACGT II\x7fI IIII IIII ++++\nACGT\n", "line 2: read 1: base quality character '\\x7f' at position 3"},
		{"bad header", "x 1\n", "line 1: record header \"x 1\""},
		{"too few lines", "2 1\nACGT IIII IIII IIII ++++\nACGT IIII IIII IIII ++++\n", "line 4: input ends inside the record of line 1, which declares 2 reads and 1 haplotypes (2 lines found)"},
		{"too many haplotypes", good + "ACGT\n", "line 4: expected a record header"},
		{"read line where a haplotype belongs", "1 1\nACGT IIII IIII IIII ++++\nACGT IIII IIII IIII ++++\n", "line 3: haplotype 1 of the record of line 1: expected one sequence, found 5 fields"},
		{"haplotype with spaces", "1 1\nACGT IIII IIII IIII ++++\nAC GT\n", "line 3: haplotype 1 of the record of line 1: expected one sequence, found 2 fields"},
		// Huge counts in a header must not be allocated up front.
		{"header claims 2e8 reads", "200000000 1\n" + good[4:], "line 3: read 2: expected 5 fields"},
		{"header claims 2e8 haplotypes", "1 200000000\n" + good[4:], "line 4: input ends inside the record of line 1, which declares 1 reads and 200000000 haplotypes (2 lines found)"},
		{"header counts overflow", "1000000000000 1000000000000\n", "line 1: record header \"1000000000000 1000000000000\" declares more than 1073741824 lines"},
		{"header counts overflow int", "9223372036854775807 1\n", "line 1: record header \"9223372036854775807 1\" declares more than"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		in := filepath.Join(dir, "in.txt")
		if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.txt")
		code, _, errs := runCmd(t, "", in, "-o", out)
		if code != 1 || !strings.Contains(errs, in+": "+c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want %q", c.name, code, errs, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: an output file was left behind", c.name)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("%s: temporary files left: %v", c.name, entries)
		}
	}
	// Truncated gzip.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 0; i < 200; i++ {
		zw.Write([]byte(good))
	}
	zw.Close()
	trunc := filepath.Join(dir, "trunc.gz")
	os.WriteFile(trunc, buf.Bytes()[:buf.Len()-20], 0o644)
	code, _, errs := runCmd(t, "", trunc, "-o", filepath.Join(dir, "t.out"))
	if code != 1 || !strings.Contains(errs, "truncated") || !strings.Contains(errs, trunc) {
		t.Errorf("truncated gzip: exit %d, %q", code, errs)
	}
	// -o naming the input would replace it.
	same := filepath.Join(dir, "same.in")
	os.WriteFile(same, []byte(good), 0o644)
	if code, _, errs := runCmd(t, "", same, "-o", same); code != 1 || !strings.Contains(errs, "is the input file") {
		t.Errorf("-o the input: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(same); string(b) != good {
		t.Errorf("the input was replaced: %q", b)
	}
	// Usage errors exit 2.
	if code, _, _ := runCmd(t, "", "--format", "csv", "x"); code != 2 {
		t.Errorf("bad --format: exit %d", code)
	}
	if code, _, _ := runCmd(t, ""); code != 2 {
		t.Errorf("no input: exit %d", code)
	}
	if code, _, errs := runCmd(t, "", filepath.Join(dir, "missing")); code != 1 || !strings.Contains(errs, "missing") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	// A good input still works, CRLF line ends included.
	if code, out, errs := runCmd(t, strings.ReplaceAll(good, "\n", "\r\n"), "-"); code != 0 || len(numbers(t, out)) != 1 {
		t.Errorf("good input: exit %d, %q %q", code, out, errs)
	}
}

// TestOutputToDevice: -o /dev/null must write to the device, not replace it.
func TestOutputToDevice(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skip("no /dev/null device here")
	}
	in := filepath.Join(t.TempDir(), "in.txt")
	os.WriteFile(in, []byte("1 1\nACGT IIII IIII IIII ++++\nACGT\n"), 0o644)
	if code, _, errs := runCmd(t, "", in, "-o", os.DevNull); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	st, err = os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v", os.DevNull, st.Mode())
	}
}

// TestChunkGrowth: chunks start small (the GPU starts while the rest is
// read) and double up to the backend's size; a GPU that falls back to the
// CPU gets the CPU's bound again.
func TestChunkGrowth(t *testing.T) {
	pb := &pendingBackend{gpu: true}
	var got []int64
	for c := pb.chunkCells(0); len(got) < 10; c = pb.chunkCells(c) {
		got = append(got, c)
	}
	if got[0] != firstChunkCells || got[1] != 2*firstChunkCells || got[len(got)-1] != gpuChunkCells {
		t.Errorf("GPU chunk sizes %v", got)
	}
	pb.cpu.Store(true)
	if c := pb.chunkCells(gpuChunkCells); c != cpuChunkCells {
		t.Errorf("after falling back to the CPU: %d cells", c)
	}
	cpu := &pendingBackend{}
	if a, b := cpu.chunkCells(0), cpu.chunkCells(cpuChunkCells); a != cpuChunkCells || b != cpuChunkCells {
		t.Errorf("CPU chunk sizes %d, %d", a, b)
	}
}
