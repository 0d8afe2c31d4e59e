package hmmsearch

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// End-to-end exactness: our command (real readers, real pipeline) against
// HMMER 3.3.2 hmmsearch on the same inputs. Expected outputs come from
// the hmmsearch on PATH when there is one, else from the golden files in
// testdata/hmmer3/hmmsearch/<case>/, which
//
//	go test ./hmmer3/hmmsearch -run TestEndToEnd -update
//
// rewrites from the hmmsearch on PATH (every case, long ones included).
// Tables are compared field by field and standard output after
// whitespace normalisation. hmmsearch runs with --cpu 0 (its serial
// loop): in threaded runs the widths and description truncation depend
// on which hits the threads happened to list, not on results. Lines that name input paths, times,
// dates, versions or the command line are left out.
//
// Cases marked long (the testsuite models against MMseqs2's QUERY.fasta,
// the 24 CUDAMPF models against two proteomes; about 50 s on two cores
// with HMMER's live runs) are left out by go test -short.

var update = flag.Bool("update", false, "rewrite the end-to-end golden files with the hmmsearch on PATH")

// An input is a list of sources concatenated into one file (a newline is
// added between sources that lack one; .gz sources are decompressed):
// "td:" repository testdata, "ex:" Debian's hmmer-examples, "sh:" the
// shared data set.
type input []string

var (
	globins4  = input{"td:globins4.hmm"}
	globins45 = input{"td:globins45.fa"}
	fn3       = input{"ex:tutorial/fn3.hmm"}
	pkinase   = input{"ex:tutorial/Pkinase.hmm"}
	sevenless = input{"td:hmmer3/hmmsearch/inputs/7LESS_DROME.fa"}
	dnaChunks = input{"td:hmmer3/hmmsearch/inputs/dna_chunks.fa.gz"}
	tutorial  = input{"td:globins4.hmm", "ex:tutorial/fn3.hmm", "ex:tutorial/Pkinase.hmm"}
	// HMMER reads a file of models in one format version only, so
	// 3/f and 3/e models are kept apart.
	withCuts   = input{"ex:tutorial/fn3.hmm", "ex:tutorial/Pkinase.hmm", "ex:testsuite/2OG-FeII_Oxy_3.hmm.gz"}
	withCuts3e = input{"ex:testsuite/RRM_1.hmm.gz", "ex:testsuite/XYPPX.hmm", "ex:testsuite/Caudal_act.hmm.gz", "ex:testsuite/LuxC.hmm.gz"}
	mixed      = input{"td:globins45.fa", "td:hmmer3/hmmsearch/inputs/7LESS_DROME.fa", "td:hmmer3/hmmsearch/inputs/longnames.fa"}
	suiteAA    = input{"ex:testsuite/20aa.hmm.gz", "ex:testsuite/Caudal_act.hmm.gz", "ex:testsuite/LuxC.hmm.gz", "ex:testsuite/M1.hmm",
		"ex:testsuite/Patched.hmm.gz", "ex:testsuite/RRM_1.hmm.gz", "ex:testsuite/SMC_N.hmm.gz", "ex:testsuite/XYPPX.hmm"}
	suiteDNA3f = input{"ex:testsuite/3box.hmm.gz", "ex:testsuite/2OG-FeII_Oxy_3-nt.hmm.gz", "ex:tutorial/MADE1.hmm"}
	suiteDNA3e = input{"ex:testsuite/ecori.hmm", "ex:testsuite/PSE.hmm"}
	queryFasta = input{"sh:mmseqs2/QUERY.fasta"}
	proteome   = input{"sh:pyhmmer/seqs/938293.PRJEB85.HG003687.faa"}
)

type e2eCase struct {
	name     string
	opts     []string
	hmm, db  input
	stdinHMM bool // pass the HMM file on stdin as "-"
	stdinDB  bool
	long     bool
}

func e2eCases() []e2eCase {
	cs := []e2eCase{
		{name: "globins4", hmm: globins4, db: globins45},
		{name: "fn3_7less", hmm: fn3, db: sevenless},
		{name: "pkinase_7less", hmm: pkinase, db: sevenless},
		{name: "made1_dna", hmm: input{"ex:tutorial/MADE1.hmm"}, db: dnaChunks},
		{name: "tutorial_mixed", hmm: tutorial, db: mixed},
		{name: "cut_ga", opts: []string{"--cut_ga"}, hmm: withCuts, db: mixed},
		{name: "cut_tc", opts: []string{"--cut_tc"}, hmm: withCuts, db: mixed},
		{name: "cut_nc", opts: []string{"--cut_nc"}, hmm: withCuts, db: mixed},
		{name: "cut_ga_3e", opts: []string{"--cut_ga"}, hmm: withCuts3e, db: queryFasta},
		{name: "cut_nc_3e", opts: []string{"--cut_nc"}, hmm: withCuts3e, db: queryFasta},
		{name: "evalues", opts: []string{"-E", "1e-3", "--domE", "1e-5", "--incE", "1e-20", "--incdomE", "1e-30"}, hmm: tutorial, db: mixed},
		{name: "bits", opts: []string{"-T", "30", "--domT", "20", "--incT", "100", "--incdomT", "50"}, hmm: tutorial, db: mixed},
		{name: "searchspace", opts: []string{"-Z", "50000", "--domZ", "20"}, hmm: tutorial, db: mixed},
		{name: "max", opts: []string{"--max"}, hmm: tutorial, db: mixed},
		{name: "nobias_nonull2_seed", opts: []string{"--nobias", "--nonull2", "--seed", "7"}, hmm: tutorial, db: mixed},
		{name: "filters", opts: []string{"--F1", "0.1", "--F2", "0.01", "--F3", "1e-3"}, hmm: tutorial, db: mixed},
		{name: "acc_noali", opts: []string{"--acc", "--noali"}, hmm: tutorial, db: mixed},
		{name: "notextw", opts: []string{"--notextw"}, hmm: tutorial, db: mixed},
		{name: "textw150", opts: []string{"--textw", "150"}, hmm: tutorial, db: mixed},
		// Two overlapping envelopes rescored to the same alignment: only
		// the better one is shown (HMMER's workaround for its bug h74).
		{name: "h74", opts: []string{"--max", "-E", "1000", "--domE", "1000"}, hmm: input{"ex:testsuite/Patched.hmm.gz"},
			db: input{"td:hmmer3/hmmsearch/inputs/h74_target.fa"}},
		{name: "stdin_db", hmm: globins4, db: globins45, stdinDB: true},
		{name: "stdin_hmm", hmm: tutorial, db: mixed, stdinHMM: true},
		{name: "testsuite_amino", hmm: suiteAA, db: queryFasta, long: true},
		{name: "testsuite_amino_mixed", hmm: suiteAA, db: mixed},
		{name: "testsuite_2og", hmm: input{"ex:testsuite/2OG-FeII_Oxy_3.hmm.gz"}, db: queryFasta},
		{name: "testsuite_dna_3f", hmm: suiteDNA3f, db: dnaChunks},
		{name: "testsuite_dna_3e", hmm: suiteDNA3e, db: dnaChunks},
	}
	models := []string{"100", "200", "300", "400", "500", "600", "700", "800", "900", "1001", "1100", "1200",
		"1301", "1400", "1509", "1600", "1705", "1799", "1901", "2050", "2138", "2207", "2365", "2405"}
	for _, m := range models {
		for _, db := range []struct {
			name string
			in   input
		}{{"prot1", proteome}, {"prot2", queryFasta}} {
			for _, o := range [][]string{nil, {"--nobias"}} {
				name := fmt.Sprintf("cudampf_%s_%s_default", m, db.name)
				if o != nil {
					name = fmt.Sprintf("cudampf_%s_%s_nobias", m, db.name)
				}
				long := !(db.name == "prot2" && o == nil && (m == "100" || m == "1001"))
				cs = append(cs, e2eCase{name: name, opts: o, hmm: input{"sh:CUDAMPF/query_models/" + m + ".hmm.gz"}, db: db.in, long: long})
			}
		}
	}
	return cs
}

// materialize writes an input into dir/name, skipping the test when a
// source is absent.
func materialize(t *testing.T, in input, dir, name string) string {
	t.Helper()
	var buf bytes.Buffer
	for _, src := range in {
		kind, rel, _ := strings.Cut(src, ":")
		var p string
		switch kind {
		case "td":
			p = testutil.Testdata(t, rel)
		case "ex":
			p = testutil.HMMERExamples(t, rel)
		case "sh":
			p = testutil.SharedData(t, rel)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			z, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		buf.Write(b)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	out := filepath.Join(dir, name)
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// outputs are one run's three results.
type outputs struct{ stdout, tbl, domtbl string }

// runOurs runs hmmgo hmmsearch in-process.
func runOurs(t *testing.T, c e2eCase, hmmPath, dbPath, dir string) outputs {
	t.Helper()
	tbl, dtbl := filepath.Join(dir, "ours.tbl"), filepath.Join(dir, "ours.domtbl")
	args := append([]string{"--tblout", tbl, "--domtblout", dtbl}, c.opts...)
	// HMMGO_E2E_OPTS adds options of ours to every case, e.g. "--gpu" on a
	// GPU host: the outputs must not change.
	args = append(append(args, strings.Fields(os.Getenv("HMMGO_E2E_OPTS"))...), hmmPath, dbPath)
	var stdin io.Reader = strings.NewReader("")
	if c.stdinHMM || c.stdinDB {
		p := hmmPath
		if c.stdinDB {
			p = dbPath
			args[len(args)-1] = "-"
		} else {
			args[len(args)-2] = "-"
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		stdin = f
	}
	var stdout, stderr bytes.Buffer
	if code := Run(cli.Env{Stdin: stdin, Stdout: &stdout, Stderr: &stderr}, args); code != 0 {
		t.Fatalf("hmmgo hmmsearch %q: exit %d: %s", args, code, stderr.String())
	}
	return outputs{stdout.String(), readFile(t, tbl), readFile(t, dtbl)}
}

// runHMMER runs the reference hmmsearch.
func runHMMER(t *testing.T, bin string, c e2eCase, hmmPath, dbPath, dir string) outputs {
	t.Helper()
	tbl, dtbl := filepath.Join(dir, "ref.tbl"), filepath.Join(dir, "ref.domtbl")
	// --cpu 0: HMMER's serial loop, whose provisional hit list (and so the
	// name column width and description truncation) our pipeline
	// reproduces; threaded runs list different sets of hits.
	args := append(append([]string{"--cpu", "0", "--tblout", tbl, "--domtblout", dtbl}, c.opts...), hmmPath, dbPath)
	cmd := exec.Command(bin)
	if c.stdinHMM || c.stdinDB {
		p := hmmPath
		if c.stdinDB {
			p = dbPath
			args[len(args)-1] = "-"
		} else {
			args[len(args)-2] = "-"
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	cmd.Args = append(cmd.Args, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hmmsearch %q: %v: %s", args, err, stderr.String())
	}
	return outputs{stdout.String(), readFile(t, tbl), readFile(t, dtbl)}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// golden files: stdout, tbl and domtbl, gzip'd when over 16 KB.
func goldenDir(t *testing.T, c e2eCase) string {
	return testutil.Testdata(t, filepath.Join("hmmer3/hmmsearch", c.name))
}

func writeGolden(t *testing.T, c e2eCase, o outputs) {
	dir := goldenDir(t, c)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ name, text string }{{"stdout", o.stdout}, {"tbl", o.tbl}, {"domtbl", o.domtbl}} {
		os.Remove(filepath.Join(dir, f.name))
		os.Remove(filepath.Join(dir, f.name+".gz"))
		text := normalizeForGolden(f.text)
		if len(text) <= 16<<10 {
			if err := os.WriteFile(filepath.Join(dir, f.name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var b bytes.Buffer
		z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		z.Write([]byte(text))
		z.Close()
		if err := os.WriteFile(filepath.Join(dir, f.name+".gz"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// normalizeForGolden removes what differs between machines (paths of
// the temporary inputs, times, dates) so that regenerating the goldens
// only changes them when results change.
func normalizeForGolden(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if volatileLine(l) {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

func readGolden(t *testing.T, c e2eCase) (outputs, bool) {
	dir := goldenDir(t, c)
	if _, err := os.Stat(dir); err != nil {
		return outputs{}, false
	}
	return outputs{readFixture(t, dir, "stdout"), readFixture(t, dir, "tbl"), readFixture(t, dir, "domtbl")}, true
}

// volatilePrefixes start the lines that differ between runs or
// implementations by design: input paths, times, dates, versions, banners
// and the command line.
var volatilePrefixes = []string{
	"# query HMM file:", "# target sequence database:", "# per-seq hits tabular output:", "# per-dom hits tabular output:",
	"# output directed to file:", "# Query file:", "# Target file:", "# Option settings:", "# Current dir:", "# Date:",
	"# Version:", "# CPU time:", "# Mc/sec:", "# hmmsearch ::", "# HMMER ", "# Copyright", "# Freely distributed",
	"# hmmgo ", "# Re-implements", "# HMMER is", "# number of worker threads:",
}

func volatileLine(l string) bool {
	for _, p := range volatilePrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// normText drops volatile lines and collapses runs of blanks.
func normText(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if volatileLine(l) {
			continue
		}
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	return out
}

// tableRows splits the data lines of a table into fields; the free-text
// description (everything after nfixed fields) stays one field.
func tableRows(s string, nfixed int) [][]string {
	var rows [][]string
	for _, l := range strings.Split(s, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		if len(f) > nfixed {
			f = append(f[:nfixed], strings.Join(f[nfixed:], " "))
		}
		rows = append(rows, f)
	}
	return rows
}

func compareOutputs(t *testing.T, want, got outputs) {
	t.Helper()
	wl, gl := normText(want.stdout), normText(got.stdout)
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("standard output differs at normalised line %d:\nwant %q\n got %q", i+1, w, g)
			break
		}
	}
	for _, tb := range []struct {
		name      string
		nfixed    int
		want, got string
	}{{"tblout", 18, want.tbl, got.tbl}, {"domtblout", 22, want.domtbl, got.domtbl}} {
		wr, gr := tableRows(tb.want, tb.nfixed), tableRows(tb.got, tb.nfixed)
		if len(wr) != len(gr) {
			t.Errorf("%s: %d rows, want %d", tb.name, len(gr), len(wr))
		}
		for i := 0; i < len(wr) && i < len(gr); i++ {
			if strings.Join(wr[i], "\x00") != strings.Join(gr[i], "\x00") {
				for j := range wr[i] {
					if j >= len(gr[i]) || wr[i][j] != gr[i][j] {
						g := "<missing>"
						if j < len(gr[i]) {
							g = gr[i][j]
						}
						t.Errorf("%s row %d (%s) field %d: got %q, want %q", tb.name, i+1, wr[i][0], j+1, g, wr[i][j])
						break
					}
				}
				break
			}
		}
		// Header lines are compared too, without their spacing.
		wh, gh := commentLines(tb.want), commentLines(tb.got)
		if strings.Join(wh, "\n") != strings.Join(gh, "\n") {
			t.Errorf("%s comment lines differ:\nwant %q\n got %q", tb.name, wh, gh)
		}
	}
}

func commentLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "#") && !volatileLine(l) {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return out
}

func TestEndToEnd(t *testing.T) {
	bin, _ := exec.LookPath("hmmsearch")
	if *update && bin == "" {
		t.Fatal("-update needs hmmsearch on PATH")
	}
	for _, c := range e2eCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() && !*update {
				t.Skip("long case; left out by -short")
			}
			dir := t.TempDir()
			hmmPath := materialize(t, c.hmm, dir, "query.hmm")
			dbPath := materialize(t, c.db, dir, "targets.fa")
			if *update {
				writeGolden(t, c, runHMMER(t, bin, c, hmmPath, dbPath, dir))
				return
			}
			var want outputs
			if bin != "" {
				want = runHMMER(t, bin, c, hmmPath, dbPath, dir)
			} else {
				var ok bool
				if want, ok = readGolden(t, c); !ok {
					t.Skipf("no golden files for %s and no hmmsearch on PATH", c.name)
				}
			}
			got := runOurs(t, c, hmmPath, dbPath, dir)
			compareOutputs(t, want, got)
		})
	}
}

// TestGoldensCurrent checks that the committed goldens are what the
// hmmsearch on PATH prints now, so that the offline comparison stays
// meaningful.
func TestGoldensCurrent(t *testing.T) {
	bin := testutil.Tool(t, "hmmsearch")
	if *update {
		t.Skip("goldens being rewritten")
	}
	for _, c := range e2eCases() {
		if c.long && testing.Short() {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			golden, ok := readGolden(t, c)
			if !ok {
				t.Fatalf("golden files for %s missing; run with -update", c.name)
			}
			dir := t.TempDir()
			ref := runHMMER(t, bin, c, materialize(t, c.hmm, dir, "query.hmm"), materialize(t, c.db, dir, "targets.fa"), dir)
			compareOutputs(t, golden, ref)
		})
	}
}
