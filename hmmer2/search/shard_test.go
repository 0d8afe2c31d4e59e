package search

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// runShards runs the N shards of `hmm2search args` in-process and
// returns their files; a shard prints nothing.
func runShards(t *testing.T, dir string, n int, args []string) []string {
	t.Helper()
	var paths []string
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("part.%d", i))
		sargs := append([]string{"--shard", fmt.Sprintf("%d/%d", i, n), "--shard-out", p}, args...)
		out, stderr, status := runSearch(sargs)
		if status != 0 || len(out) != 0 {
			t.Fatalf("%s: exit status %d, %d bytes on stdout: %s", strings.Join(sargs, " "), status, len(out), stderr)
		}
		paths = append(paths, p)
	}
	return paths
}

// mergeFiles is hmmgo merge for hmm2search shards.
func mergeFiles(paths []string) ([]byte, error) {
	files, err := shard.ReadSet(paths)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = Merge(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}, files)
	return out.Bytes(), err
}

// allShardCounts runs every case with every shard count (HMMGO_ALLSHARDS=1
// go test).
var allShardCounts = os.Getenv("HMMGO_ALLSHARDS") != ""

// TestShardsMergeToGolden: for every golden case (models, databases and
// options: -E, -T, -A, -Z, --domE, --domT, --cut_ga/--cut_tc, --null2,
// --forward, --compat, --cpu 0), the merged shards of N = 1, 2, 3, 5
// give hmm2search's own report byte for byte. With 5 shards, some hold
// no hit at all (and long.fa's 6 sequences leave one shard nearly empty).
func TestShardsMergeToGolden(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer2")
	cases := readCases(t, dir)
	stage(t, dir)
	for k, c := range cases {
		if c.status != "0" {
			continue
		}
		want := gunzip(t, filepath.Join(dir, "golden", c.name+".out.gz"))
		counts := []int{1, 2, 3, 5}
		if !allShardCounts {
			// Every N for every case is slow on two cores: every case
			// gets 3 shards and one of 1, 2 or 5 in turn.
			counts = []int{3, []int{1, 2, 5}[k%3]}
		}
		for _, n := range counts {
			sub := filepath.Join(t.TempDir(), "shards")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			got, err := mergeFiles(runShards(t, sub, n, c.args))
			if err != nil {
				t.Errorf("%s, %d shards: merge: %v", c.name, n, err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (%s), %d shards: merged report differs at %s", c.name, strings.Join(c.args, " "), n, firstDiff(want, got))
			}
		}
	}
}

// TestShardsMoreThanSequences: 25 shards of an 18-sequence database (most
// shards empty) with -o: the merge writes the -o file, not stdout, and
// shards never write it.
func TestShardsMoreThanSequences(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer2")
	stage(t, dir)
	want := gunzip(t, filepath.Join(dir, "golden", "globin_nocal.edge.fa.out.gz"))
	report := filepath.Join(t.TempDir(), "report.txt")
	args := []string{"-o", report, "-E", "1e9", "models/globin_nocal.hmm2", "db/edge.fa"}
	paths := runShards(t, t.TempDir(), 25, args)
	if _, err := os.Stat(report); err == nil {
		t.Fatal("a shard wrote the -o report")
	}
	out, err := mergeFiles(paths)
	if err != nil || len(out) != 0 {
		t.Fatalf("merge: %v, %d bytes on stdout", err, len(out))
	}
	got, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("merged -o report differs at %s", firstDiff(want, got))
	}
}

// TestShardOptionErrors: shard options that cannot work are refused with
// one line, exit status 2 and no shard file.
func TestShardOptionErrors(t *testing.T) {
	model := testutil.Testdata(t, "hmmer2/models/globin.hmm2")
	seqs := testutil.Testdata(t, "hmmer2/db/edge.fa")
	out := filepath.Join(t.TempDir(), "part")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "1/2", model, seqs}, "needs --shard-out"},
		{[]string{"--shard-out", out, model, seqs}, "--shard-out needs --shard"},
		{[]string{"--shard", "3/2", "--shard-out", out, model, seqs}, "1 <= i <= N"},
		{[]string{"--shard", "0/2", "--shard-out", out, model, seqs}, "1 <= i <= N"},
		{[]string{"--shard", "1of2", "--shard-out", out, model, seqs}, "expected i/N"},
		{[]string{"--shard", "1/2", "--shard-out", out, model, "-"}, "not standard input"},
	} {
		stdout, stderr, status := runSearch(c.args)
		msg := strings.TrimRight(string(stderr), "\n")
		if status != 2 || len(stdout) != 0 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, status, msg, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v left a shard file", c.args)
		}
	}
	// A shard that fails (here: a model without NC cutoffs) writes nothing.
	_, _, status := runSearch([]string{"--cut_nc", "--shard", "1/2", "--shard-out", out, model, seqs})
	if _, err := os.Stat(out); status == 0 || err == nil {
		t.Fatalf("failed shard: exit %d, shard file left: %v", status, err == nil)
	}
	// A database without residues fails in every shard, as one run fails.
	onlyEmpty := filepath.Join(t.TempDir(), "onlyempty.fa")
	os.WriteFile(onlyEmpty, []byte(">a\n>b\n>c\n"), 0o644)
	_, stderr, status := runSearch([]string{"--shard", "2/2", "--shard-out", out, model, onlyEmpty})
	if _, err := os.Stat(out); status != 1 || err == nil || !strings.Contains(string(stderr), "no non-empty sequences") {
		t.Fatalf("database without residues: exit %d, %q, shard file left: %v", status, stderr, err == nil)
	}
}

// TestBadShardSets: incomplete, repeated, damaged and mismatched shard
// sets are refused, naming the files.
func TestBadShardSets(t *testing.T) {
	model := testutil.Testdata(t, "hmmer2/models/globin.hmm2")
	orig, err := os.ReadFile(testutil.Testdata(t, "hmmer2/db/edge.fa"))
	if err != nil {
		t.Fatal(err)
	}
	seqs := filepath.Join(t.TempDir(), "db.fa")
	os.WriteFile(seqs, orig, 0o644)
	a := runShards(t, t.TempDir(), 3, []string{model, seqs})
	b := runShards(t, t.TempDir(), 3, []string{"-E", "0.5", model, seqs})
	d := runShards(t, t.TempDir(), 2, []string{model, seqs})
	// The database changes between shards.
	os.WriteFile(seqs, append(orig, ">extra\nACDEFGHIKLMNPQRSTVWY\n"...), 0o644)
	c := runShards(t, t.TempDir(), 3, []string{model, seqs})

	damaged := filepath.Join(t.TempDir(), "damaged")
	raw, _ := os.ReadFile(a[1])
	bad := append([]byte(nil), raw...)
	bad[len(bad)-10] ^= 0x55
	os.WriteFile(damaged, bad, 0o644)
	truncated := filepath.Join(t.TempDir(), "truncated")
	os.WriteFile(truncated, raw[:len(raw)-7], 0o644)

	// Shard 1 of 2 relabelled as shard 2: the file is well formed, but
	// the set covers half of the database twice.
	f, err := shard.ReadFile(d[0])
	if err != nil {
		t.Fatal(err)
	}
	f.Header.Shard = 2
	relabelled := filepath.Join(t.TempDir(), "relabelled")
	var buf bytes.Buffer
	shard.Encode(&buf, f.Header, f.Payload)
	os.WriteFile(relabelled, buf.Bytes(), 0o644)

	for _, s := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing shard", a[:2], "missing 3/3"},
		{"repeated shard", []string{a[0], a[1], a[1]}, "given twice"},
		{"other command line", []string{a[0], b[1], a[2]}, "different command lines"},
		{"other database", []string{a[0], a[1], c[2]}, "different inputs"},
		{"other shard count", []string{a[0], a[1], d[1]}, "of 2"},
		{"damaged", []string{a[0], damaged, a[2]}, "SHA-256"},
		{"truncated", []string{a[0], truncated, a[2]}, "truncated"},
		{"same half twice", []string{d[0], relabelled}, "searched"},
	} {
		out, err := mergeFiles(s.paths)
		if err == nil || len(out) != 0 || !strings.Contains(err.Error(), s.want) {
			t.Errorf("%s: err %v, %d bytes written; want an error with %q", s.name, err, len(out), s.want)
		}
	}
}

// TestCanonicalArgs: the recorded command line parses back to the same
// settings, leaves out the shard and speed options, and is the same
// however the options were spelled.
func TestCanonicalArgs(t *testing.T) {
	spellings := [][]string{
		{"-A5", "-E", "1e-5", "-T", "-3.7", "-Z", "500", "--domE=0.01", "--domT", "2.3", "--nu", "--forw",
			"--cut_ga", "--cpu", "0", "--compat", "--informat", "fasta", "-o", "out.txt",
			"--shard", "2/3", "--shard-out", "p2", "--batch", "10", "--gpu", "0", "m.hmm", "db.fa"},
		{"--shard-out=p1", "--shard", "1/3", "--nogpu", "-o", "out.txt", "-Z500", "-E0.00001", "-A", "5", "-T", "-3.7",
			"--compat", "--cut_ga", "--domT=2.3", "--domE", "1e-2", "--null2", "--forward", "--cpu=0",
			"--informat=fasta", "m.hmm", "db.fa"},
	}
	var first []string
	for i, args := range spellings {
		o, err := ParseOptions(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		c := canonicalArgs(o)
		if i == 0 {
			first = c
		} else if !reflect.DeepEqual(c, first) {
			t.Fatalf("canonical forms differ:\n%q\n%q", first, c)
		}
		back, err := ParseOptions(c)
		if err != nil {
			t.Fatalf("%q does not parse: %v", c, err)
		}
		if back.Shard != nil || back.ShardOut != "" || !reflect.DeepEqual(back.GPU, devices.Request{}) || back.batchSet {
			t.Fatalf("%q keeps distributed or speed options", c)
		}
		o.Shard, o.ShardOut, o.GPU, o.Batch, o.batchSet = nil, "", back.GPU, back.Batch, false
		if !reflect.DeepEqual(o, back) {
			t.Fatalf("%q parses to %+v, not %+v", c, back, o)
		}
	}
	// Defaults record nothing but the files; -T's float32 survives exactly.
	o, _ := ParseOptions([]string{"-T", "0.1", "m", "s"})
	back, _ := ParseOptions(canonicalArgs(o))
	if back.GlobT != o.GlobT || math.Float32bits(back.GlobT) != math.Float32bits(float32(0.1)) {
		t.Fatalf("-T 0.1 became %v", back.GlobT)
	}
	o, _ = ParseOptions([]string{"--cpu", "4", "m", "s"})
	if c := canonicalArgs(o); !reflect.DeepEqual(c, []string{"--", "m", "s"}) {
		t.Fatalf("defaults record %q", c)
	}
}

// tieCase is a line of testdata/hmmer2/shard/cases.tsv (see regen.sh
// there): hmm2search's report on ties.fa, whose renamed copies of strong
// hits tie in score and are dealt to different shards.
type tieCase struct {
	name string
	args []string
}

// stageTies stages the hmm2search fixtures plus db/ties.fa.
func stageTies(t *testing.T) (dir string, cases []tieCase) {
	t.Helper()
	dir = testutil.Testdata(t, "hmmer2")
	stage(t, dir)
	ties, err := os.ReadFile(filepath.Join(dir, "shard", "ties.fa"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("db", "ties.fa"), ties, 0o644); err != nil {
		t.Fatal(err)
	}
	tsv, err := os.ReadFile(filepath.Join(dir, "shard", "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
		name, args, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad cases.tsv line %q", line)
		}
		cases = append(cases, tieCase{name, strings.Fields(args)})
	}
	return dir, cases
}

// TestShardsKeepTieOrder: hits of equal score from different shards come
// out in database order, as in one run, for 1 to 6 shards.
func TestShardsKeepTieOrder(t *testing.T) {
	dir, cases := stageTies(t)
	for _, c := range cases {
		want := gunzip(t, filepath.Join(dir, "shard", c.name+".out.gz"))
		if got, stderr, status := runSearch(c.args); status != 0 || !bytes.Equal(got, want) {
			t.Fatalf("%s: unsharded run (exit %d, %s) differs from hmm2search at %s", c.name, status, stderr, firstDiff(want, got))
		}
		for n := 1; n <= 6; n++ {
			got, err := mergeFiles(runShards(t, t.TempDir(), n, c.args))
			if err != nil {
				t.Fatalf("%s, %d shards: %v", c.name, n, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %d shards: merged report differs at %s", c.name, n, firstDiff(want, got))
			}
		}
	}
}

// TestLiveShardTies checks the tie fixtures against hmm2search itself
// when it is installed.
func TestLiveShardTies(t *testing.T) {
	bin := testutil.Tool(t, "hmm2search")
	_, cases := stageTies(t)
	for _, c := range cases {
		want, err := exec.Command(bin, append([]string{"--cpu", "1"}, c.args...)...).Output()
		if err != nil {
			t.Fatalf("%s: hmm2search: %v", c.name, err)
		}
		got, err := mergeFiles(runShards(t, t.TempDir(), 4, c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s, 4 shards: merged report differs from live hmm2search at %s", c.name, firstDiff(want, got))
		}
	}
}

// TestHistogramMergeOrder: a histogram built from shards' bins, added in
// any order, prints what the histogram of the scores in database order
// prints, although its bin range grew differently.
func TestHistogramMergeOrder(t *testing.T) {
	scores := []float32{3.5, -250.2, 12, 12.9, -320, 480.5, 0, -0.5, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9}
	whole := newHistogram(-200, 200, 100)
	parts := []*histogram{newHistogram(-200, 200, 100), newHistogram(-200, 200, 100)}
	for i, sc := range scores {
		whole.add(sc)
		parts[i%2].add(sc)
	}
	merged := newHistogram(-200, 200, 100)
	for p := range parts {
		for i := range parts[p].bins {
			if n := parts[p].bins[i]; n > 0 {
				merged.addN(parts[p].min+i, n)
			}
		}
	}
	if merged.min == whole.min && merged.max == whole.max {
		t.Fatal("the test should make the ranges grow differently")
	}
	for _, fit := range []bool{false, true} {
		var a, b bytes.Buffer
		if fit {
			whole.setEVD(-5, 0.3, whole.lowscore, whole.highscore)
			merged.setEVD(-5, 0.3, merged.lowscore, merged.highscore)
		}
		whole.print(&a)
		merged.print(&b)
		if a.String() != b.String() {
			t.Fatalf("fit %v: merged histogram prints\n%s\nnot\n%s", fit, b.String(), a.String())
		}
	}
}
