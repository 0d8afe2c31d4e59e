package search

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestBadInput checks that bad input gives one clear line naming the
// file (and line), a non-zero exit status and no report.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	model := testutil.Testdata(t, "hmmer2/models/globin.hmm2")
	seqs := testutil.Testdata(t, "hmmer2/db/edge.fa")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	truncated := write("truncated.hmm2", string(src[:len(src)/2]))
	badNode := write("badnode.hmm2", strings.Replace(string(src), "\n     7 ", "\n     8 ", 1))
	hmmer3 := write("h3.hmm", "HMMER3/f [3.3.2 | Nov 2020]\nNAME  x\n")
	notFasta := write("notfasta.txt", "this is not\na sequence file\n")
	empty := write("empty.fa", "")
	onlyEmpty := write("onlyempty.fa", ">a\n>b\n")
	nulModel := write("nul.hmm2", strings.Replace(string(src), "\n     7 ", "\n     7\x00", 1))
	nulSeqs := write("nul.fa", ">a\nACDE\x00FGH\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(src)
	zw.Close()
	gzModel := write("m.hmm2.gz", gz.String())
	gz.Reset()
	zw = gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(">s\nACDEFGHIKLMNPQRSTVWY\n", 500)))
	zw.Close()
	truncGz := write("trunc.fa.gz", gz.String()[:gz.Len()/2])
	garbageGz := write("garbage.fa.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage, not deflate data")
	cases := []struct {
		name   string
		args   []string
		status int
		want   []string // substrings of the error line
	}{
		{"no args", []string{}, 2, []string{"incorrect number of arguments"}},
		{"bad option", []string{"--nosuch", model, seqs}, 2, []string{"--nosuch"}},
		{"ambiguous option", []string{"--do", "1", model, seqs}, 2, []string{"ambiguous"}},
		{"non-numeric E", []string{"-E", "abc", model, seqs}, 2, []string{"-E", "numerical"}},
		{"missing model", []string{filepath.Join(dir, "none.hmm2"), seqs}, 1, []string{"none.hmm2", "no such file"}},
		{"missing database", []string{model, filepath.Join(dir, "none.fa")}, 1, []string{"none.fa", "no such file"}},
		{"truncated model", []string{truncated, seqs}, 1, []string{"truncated.hmm2 line"}},
		{"wrong node number", []string{badNode, seqs}, 1, []string{"badnode.hmm2 line", "expected node 7"}},
		{"HMMER3 model", []string{hmmer3, seqs}, 1, []string{"h3.hmm line 1", "HMMER3"}},
		{"undetectable format", []string{model, notFasta}, 1, []string{"notfasta.txt", "format"}},
		{"forced FASTA", []string{"--informat", "fasta", model, notFasta}, 1, []string{"notfasta.txt line 1", "FASTA"}},
		{"unknown informat", []string{"--informat", "nosuch", model, seqs}, 2, []string{"nosuch"}},
		{"unsupported format", []string{"--informat", "msf", model, seqs}, 1, []string{"MSF", "not supported"}},
		{"not Stockholm", []string{"--informat", "stockholm", model, seqs}, 1, []string{"edge.fa line 1", "Stockholm"}},
		{"empty file", []string{model, empty}, 1, []string{"empty.fa", "no data"}},
		{"no residues", []string{model, onlyEmpty}, 1, []string{"onlyempty.fa", "no non-empty sequences"}},
		{"missing cutoffs", []string{"--cut_nc", model, seqs}, 1, []string{"GA, TC, or NC"}},
		{"xnu", []string{"--xnu", model, seqs}, 2, []string{"--xnu"}},
		// hmm2search misreads these (a NUL cuts its C strings) or says
		// "no data" for what is a read error.
		{"NUL in the model", []string{nulModel, seqs}, 1, []string{"nul.hmm2 line 38: NUL byte"}},
		{"NUL in a sequence", []string{model, nulSeqs}, 1, []string{"nul.fa line 2: NUL byte"}},
		{"directory as model", []string{dir, seqs}, 1, []string{dir + ": is a directory"}},
		{"directory as database", []string{model, dir}, 1, []string{dir + ": is a directory"}},
		{"gzip'd model", []string{gzModel, seqs}, 1, []string{"m.hmm2.gz: gzip-compressed model files are not supported"}},
		{"truncated gzip database", []string{model, truncGz}, 1, []string{"trunc.fa.gz line", "truncated gzip data"}},
		{"gzip database of garbage", []string{model, garbageGz}, 1, []string{"garbage.fa.gz line 1: flate: corrupt input"}},
	}
	for _, c := range cases {
		out, errb, status := runSearch(c.args)
		if status != c.status {
			t.Errorf("%s: exit status %d, want %d (stderr %q)", c.name, status, c.status, errb)
		}
		if len(out) != 0 {
			t.Errorf("%s: %d bytes of report written despite the error", c.name, len(out))
		}
		msg := string(errb)
		if strings.Count(strings.TrimRight(msg, "\n"), "\n") != 0 {
			t.Errorf("%s: error is not one line: %q", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not mention %q", c.name, msg, w)
			}
		}
	}
}

// TestOutputFile checks -o: the report appears only when complete.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	model := testutil.Testdata(t, "hmmer2/models/globin.hmm2")
	seqs := testutil.Testdata(t, "hmmer2/db/edge.fa")
	out := filepath.Join(dir, "report.txt")
	stdout, errb, status := runSearch([]string{"-o", out, model, seqs})
	if status != 0 || len(stdout) != 0 {
		t.Fatalf("status %d, %d bytes on stdout, stderr %q", status, len(stdout), errb)
	}
	want, _, _ := runSearch([]string{model, seqs})
	got, err := os.ReadFile(out)
	if err != nil || string(got) != string(want) {
		t.Fatalf("-o file differs from stdout report (err %v)", err)
	}
	bad := filepath.Join(dir, "bad.txt")
	_, _, status = runSearch([]string{"-o", bad, model, filepath.Join(dir, "missing.fa")})
	if status == 0 {
		t.Fatal("expected failure")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("failed run left files behind: %v", ents)
	}
}

// TestHelp prints hmm2search's usage text.
func TestHelp(t *testing.T) {
	out, _, status := runSearch([]string{"-h"})
	if status != 0 || !strings.Contains(string(out), "Usage: hmmsearch [-options] <hmmfile> <sequence file or database>") ||
		!strings.Contains(string(out), "--null2        : turn OFF the post hoc second null model") ||
		!strings.Contains(string(out), "Distributed search options (hmmgo; see docs/distributed.md):\n   --shard <s> ") ||
		!strings.Contains(string(out), "   --shard-out <f> : save this shard's results") {
		t.Fatalf("help: status %d, output %q", status, out)
	}
}

// TestOptionParsing covers squid's Getopt() rules.
func TestOptionParsing(t *testing.T) {
	o, err := ParseOptions([]string{"-A0", "-E", "1e-5", "--dom=2", "--domT=3.5", "--nu", "--cpu", "0", "m", "s"})
	if err == nil {
		t.Fatal("--dom is ambiguous (--domE, --domT)")
	}
	o, err = ParseOptions([]string{"-A0", "-E", "1e-5", "--domE=2", "--domT", "3.5", "--nu", "--cpu", "0", "m", "s"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Alimit != 0 || o.GlobE != 1e-5 || o.DomE != 2 || o.DomT != 3.5 || o.Null2 || o.CPU != 0 || !o.cpuSet ||
		o.HMMFile != "m" || o.SeqFile != "s" {
		t.Fatalf("parsed %+v", o)
	}
	if _, err := ParseOptions([]string{"-Z", "1.5", "m", "s"}); err == nil {
		t.Fatal("-Z needs an integer")
	}
	if o, err := ParseOptions([]string{"--", "-m", "s"}); err != nil || o.HMMFile != "-m" {
		t.Fatalf("-- ends options: %v %+v", err, o)
	}
}
