package hmmsearch

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// concatInputs writes files made of testdata files (gzip'd ones
// decompressed) into dir.
func concatInputs(t *testing.T, dir, name string, parts ...string) string {
	t.Helper()
	var out bytes.Buffer
	for _, p := range parts {
		b, err := os.ReadFile(testutil.Testdata(t, p))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		out.Write(b)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			out.WriteByte('\n')
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runLocal runs `hmmgo hmmsearch args` in this process.
func runLocal(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(cli.Env{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e}, args)
	return o.String(), e.String(), code
}

// varying matches the lines that differ between any two runs: times,
// dates, the current directory.
var varying = regexp.MustCompile(`(?m)^# (CPU time|Mc/sec|Date|Current dir):.*\n`)

// NormalizeRun drops the lines that differ between any two runs.
func normalizeRun(s string) string { return varying.ReplaceAllString(s, "") }

func readOut(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return normalizeRun(string(b))
}

// TestShardsMergeToUnsharded: the shards of a search, merged, print
// exactly what one unsharded run prints (standard output and both tables),
// for the default settings and for options that move Z, domZ, thresholds
// and the report layout. hmmgo's unsharded output is itself compared with
// hmmsearch's in TestEndToEnd.
func TestShardsMergeToUnsharded(t *testing.T) {
	dir := t.TempDir()
	tutorial := concatInputs(t, dir, "tutorial.hmm", "globins4.hmm", "hmmer3/models/fn3.hmm.gz", "hmmer3/models/Pkinase.hmm.gz")
	pfam := concatInputs(t, dir, "pfam.hmm", "hmmer3/models/fn3.hmm.gz", "hmmer3/models/Pkinase.hmm.gz")
	mixed := concatInputs(t, dir, "mixed.fa", "globins45.fa", "hmmer3/hmmsearch/inputs/7LESS_DROME.fa", "hmmer3/hmmsearch/inputs/longnames.fa")
	one := testutil.Testdata(t, "hmmer3/hmmsearch/inputs/7LESS_DROME.fa")
	cases := []struct {
		name    string
		opts    []string
		hmm, db string
		shards  int
	}{
		{"default", nil, tutorial, mixed, 3},
		{"searchspace", []string{"-Z", "50000", "--domZ", "20"}, tutorial, mixed, 2},
		{"evalues_acc_noali", []string{"-E", "1e-3", "--domE", "1e-5", "--acc", "--noali", "--incE", "1e-20"}, tutorial, mixed, 4},
		{"cut_ga", []string{"--cut_ga"}, pfam, mixed, 3},
		{"max", []string{"--max", "--textw", "150"}, tutorial, mixed, 5},
		{"more_shards_than_targets", nil, pfam, one, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cdir := t.TempDir()
			outs := func(d string) []string {
				return []string{"--tblout", filepath.Join(d, "t.tbl"), "--domtblout", filepath.Join(d, "t.dtbl")}
			}
			args := append(append(append([]string{"--cpu", "2"}, c.opts...), outs(cdir)...), c.hmm, c.db)
			want, stderr, code := runLocal(t, args...)
			if code != 0 {
				t.Fatalf("unsharded run: exit %d: %s", code, stderr)
			}
			var files []string
			for i := 1; i <= c.shards; i++ {
				sf := filepath.Join(cdir, "shard"+string(rune('0'+i)))
				sargs := append([]string{"--shard", shard.Spec{Index: i, Count: c.shards}.String(), "--shard-out", sf}, args...)
				out, stderr, code := runLocal(t, sargs...)
				if code != 0 || out != "" {
					t.Fatalf("shard %d: exit %d, stdout %q: %s", i, code, out, stderr)
				}
				files = append(files, sf)
			}
			// The merge writes the tables the recorded command line names;
			// move the unsharded ones aside first.
			for _, f := range []string{"t.tbl", "t.dtbl"} {
				if err := os.Rename(filepath.Join(cdir, f), filepath.Join(cdir, "want_"+f)); err != nil {
					t.Fatal(err)
				}
			}
			set, err := shard.ReadSet(files)
			if err != nil {
				t.Fatal(err)
			}
			var got, e bytes.Buffer
			if err := Merge(cli.Env{Stdout: &got, Stderr: &e}, set); err != nil {
				t.Fatal(err)
			}
			compareText(t, "standard output", normalizeRun(want), normalizeRun(got.String()))
			for _, f := range []string{"t.tbl", "t.dtbl"} {
				compareText(t, f, readOut(t, filepath.Join(cdir, "want_"+f)), readOut(t, filepath.Join(cdir, f)))
			}
		})
	}
}

func compareText(t *testing.T, what, want, got string) {
	t.Helper()
	if want == got {
		return
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Fatalf("%s differs at line %d:\nwant %q\ngot  %q", what, i+1, w, g)
		}
	}
}

// TestShardOptionErrors: shard options that cannot work are refused with
// one clear line.
func TestShardOptionErrors(t *testing.T) {
	hmmf := testutil.Testdata(t, "globins4.hmm")
	db := testutil.Testdata(t, "globins45.fa")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "1/2", hmmf, db}, "needs --shard-out"},
		{[]string{"--shard", "3/2", "--shard-out", "x", hmmf, db}, "need 1 <= i <= N"},
		{[]string{"--shard", "a/2", "--shard-out", "x", hmmf, db}, "expected two integers"},
		{[]string{"--shard-out", "x", hmmf, db}, "--shard-out needs --shard"},
		{[]string{"--shard", "1/2", "--shard-out", "x", hmmf, "-"}, "not standard input"},
	} {
		_, stderr, code := runLocal(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// TestMergeRefusesBadSets: shards of different runs, missing or repeated
// shards and damaged files are refused; nothing is written.
func TestMergeRefusesBadSets(t *testing.T) {
	dir := t.TempDir()
	hmmf := testutil.Testdata(t, "globins4.hmm")
	db := testutil.Testdata(t, "globins45.fa")
	mk := func(name, spec string, extra ...string) string {
		p := filepath.Join(dir, name)
		args := append(append([]string{"--shard", spec, "--shard-out", p}, extra...), hmmf, db)
		if _, stderr, code := runLocal(t, args...); code != 0 {
			t.Fatal(stderr)
		}
		return p
	}
	a1, a2 := mk("a1", "1/2"), mk("a2", "2/2")
	b2 := mk("b2", "2/2", "-E", "1")
	raw, _ := os.ReadFile(a2)
	trunc := filepath.Join(dir, "trunc")
	os.WriteFile(trunc, raw[:len(raw)-10], 0o644)
	damaged := filepath.Join(dir, "damaged")
	bad := append([]byte(nil), raw...)
	bad[len(bad)-5] ^= 1
	os.WriteFile(damaged, bad, 0o644)
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{a1}, "missing 2/2"},
		{[]string{a1, a1}, "given twice"},
		{[]string{a1, b2}, "different command lines"},
		{[]string{a1, trunc}, "truncated"},
		{[]string{a1, damaged}, "SHA-256"},
		{[]string{hmmf}, "not an hmmgo shard file"},
	} {
		if _, err := shard.ReadSet(c.files); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.files, err, c.want)
		}
	}
}
