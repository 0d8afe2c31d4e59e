package makedb

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

func runCmd(args ...string) (int, string) {
	var o, e bytes.Buffer
	rc := run(cli.Env{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e}, args)
	return rc, e.String()
}

// The database holds exactly what seqio reads from the source file.
func TestSameAsTheReader(t *testing.T) {
	for _, c := range []struct {
		src   string
		alpha string
		typ   alphabet.Type
	}{
		{testutil.Testdata(t, "globins45.fa"), "amino", alphabet.Amino},
		{testutil.Testdata(t, "hmmer3/prot.fa"), "auto", alphabet.Amino},
		{testutil.Testdata(t, "hmmer3/synth_dna.fa"), "auto", alphabet.DNA},
		{testutil.Testdata(t, "hmmer3/hmmsearch/inputs/dna_chunks.fa.gz"), "dna", alphabet.DNA},
		{testutil.HMMERExamples(t, "tutorial/7LESS_DROME"), "amino", alphabet.Amino}, // EMBL: accessions
	} {
		out := filepath.Join(t.TempDir(), "db.hmmgo")
		if rc, stderr := runCmd("--alphabet", c.alpha, c.src, out); rc != 0 {
			t.Fatalf("%s: exit %d: %s", c.src, rc, stderr)
		}
		db, err := seqdb.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		if db.Alphabet().Type != c.typ {
			t.Errorf("%s: alphabet %s, want %s", c.src, db.Alphabet().Type, c.typ)
		}
		r, err := seqio.Open(c.src, nil, alphabet.New(c.typ))
		if err != nil {
			t.Fatal(err)
		}
		src := db.NewSource()
		n := 0
		for ; ; n++ {
			want, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := src.Read()
			if err != nil {
				t.Fatalf("%s: database ends at %d sequences", c.src, n)
			}
			if got.Name != want.Name || got.Acc != want.Acc || got.Desc != want.Desc || !bytes.Equal(got.Dsq, want.Dsq) {
				t.Fatalf("%s: sequence %d differs", c.src, n+1)
			}
		}
		if _, err := src.Read(); err != io.EOF || n == 0 {
			t.Fatalf("%s: %d sequences, then %v", c.src, n, err)
		}
		if meta := strings.Join(db.Meta(), ";"); !strings.Contains(meta, "source="+c.src) {
			t.Errorf("meta %q does not name the source", meta)
		}
		r.Close()
		db.Close()
	}
}

func TestStdin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "db.hmmgo")
	var e bytes.Buffer
	rc := run(cli.Env{Stdin: strings.NewReader(">a desc\nACDE\n>b\nWY\n"), Stdout: io.Discard, Stderr: &e}, []string{"-", out})
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, e.String())
	}
	db, err := seqdb.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.NumSeqs() != 2 || db.Name(0) != "a" || db.Desc(0) != "desc" || db.Len(1) != 2 {
		t.Fatalf("read back %d sequences: %q %q", db.NumSeqs(), db.Name(0), db.Desc(0))
	}
}

// Bad input: a one-line error naming the file (and line), exit 1, and
// no database file.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.fa")
	os.WriteFile(bad, []byte(">ok\nACDE\n>bad\nAC1DE\n"), 0o644)
	dna := filepath.Join(dir, "dna.fa")
	os.WriteFile(dna, []byte(">x\nACGTACGTACGTEEEE\n"), 0o644)
	short := filepath.Join(dir, "short.fa")
	os.WriteFile(short, []byte(">x\nAC\n"), 0o644)
	empty := filepath.Join(dir, "empty.fa")
	os.WriteFile(empty, []byte("\n\n"), 0o644)
	out := filepath.Join(dir, "out.hmmgo")
	for _, c := range []struct {
		args []string
		rc   int
		want string
	}{
		{[]string{bad, out}, 1, "bad.fa:4: illegal character '1' in sequence bad"},
		{[]string{"--alphabet", "dna", dna, out}, 1, "dna.fa:2: illegal character 'E'"},
		{[]string{"--alphabet", "auto", short, out}, 1, "short.fa: cannot guess the alphabet"},
		{[]string{empty, out}, 1, "empty.fa"},
		{[]string{filepath.Join(dir, "none.fa"), out}, 1, "none.fa"},
		{[]string{"--alphabet", "protein", bad, out}, 2, "unknown --alphabet"},
		{[]string{"--alphabet", "auto", "-", out}, 2, "standard input"},
		{[]string{bad}, 2, "expected <seqfile> <dbfile>"},
		{[]string{bad, "-"}, 2, "must be a file"},
		{[]string{"--gpu-layouts", "3", bad, out}, 2, "--gpu-layouts \"3\": want powers of two"},
		{[]string{"--gpu-layouts", "1,64", bad, out}, 2, "want powers of two from 1 to 32"},
		// A typo that would replace the FASTA file by its database.
		{[]string{short, short}, 1, "output file " + short + " is the input file " + short},
		{[]string{short, dir}, 1, "cannot write output file " + dir + ": it is a directory"},
	} {
		rc, stderr := runCmd(c.args...)
		if rc != c.rc || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d, %q", c.args, rc, stderr, c.rc, c.want)
		}
		if rc == 1 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: error is not one line: %q", c.args, stderr)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".fa") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(short); string(b) != ">x\nAC\n" {
		t.Errorf("the input was replaced: %q", b)
	}
}

func TestGuessFromCounts(t *testing.T) {
	count := func(s string) *[26]int64 {
		var ct [26]int64
		for _, c := range s {
			ct[c-'A']++
		}
		return &ct
	}
	for _, c := range []struct {
		s    string
		want alphabet.Type // 0: no guess
	}{
		{"ACGTACGTACGTACGT", alphabet.DNA},
		{"ACGUACGUACGUACGU", alphabet.RNA},
		{"ACGTACGTACGTACGTE", alphabet.Amino}, // E only occurs in proteins
		{"MKVLAAGIVGLLLAQSTRDHEPYWCFN", alphabet.Amino},
		{"ACGT", 0},                 // too few letters
		{"ACGTACGTACGTRRRRRRRR", 0}, // neither nucleic nor clearly protein
		// 14 kinds of letters, no protein-only one: Easel wants 15.
		{"ACDGHKMNRSTVWYACDGHKMNRSTVWYACDGHKMNR", 0},
		{"ACDGHKMNRSTVWYXACDGHKMNRSTVWYACDGHKMNR", 0}, // X does not count as a kind
		{"ACDGHKMNRSTVWYLACDGHKMNRSTVWYACDGHKMNR", alphabet.Amino},
		{strings.Repeat("N", 2001), alphabet.DNA},
	} {
		got, ok := guessFromCounts(count(c.s))
		if ok != (c.want != 0) || (ok && got != c.want) {
			t.Errorf("%s: guessed %s (%v), want %s", c.s, got, ok, c.want)
		}
	}
}

// Live cross-check: Easel's esl-seqstat guesses the same alphabet.
func TestGuessLikeEasel(t *testing.T) {
	tool := testutil.Tool(t, "esl-seqstat")
	for _, f := range []string{testutil.Testdata(t, "globins45.fa"), testutil.Testdata(t, "hmmer3/synth_dna.fa"),
		testutil.Testdata(t, "hmmer3/prot.fa"), testutil.Testdata(t, "hmmer3/synth.fa")} {
		out, _ := exec.Command(tool, f).CombinedOutput()
		theirs := "none"
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "Alphabet" && f[1] == "type:" {
				theirs = f[2]
			}
		}
		ours := "none"
		if got, err := guessAlphabet(f); err == nil {
			ours = got.String()
		}
		if ours != theirs {
			t.Errorf("%s: we guess %s, esl-seqstat %s", f, ours, theirs)
		}
	}
}

// The GPU plan: by default the length order and the standard shapes'
// tables; --gpu-layouts picks shapes, or none (a file like those made
// before the plan existed).
func TestGPULayoutsOption(t *testing.T) {
	src := testutil.Testdata(t, "globins45.fa")
	for _, c := range []struct {
		args  []string
		order bool
		want  []int
	}{
		{nil, true, gpudb.StandardThreads},
		{[]string{"--gpu-layouts", "8,1,8"}, true, []int{1, 8}},
		{[]string{"--gpu-layouts", "all"}, true, []int{1, 2, 4, 8, 16, 32}},
		{[]string{"--gpu-layouts", "none"}, false, nil},
	} {
		out := filepath.Join(t.TempDir(), "db.hmmgo")
		if rc, stderr := runCmd(append(c.args, src, out)...); rc != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, rc, stderr)
		}
		db, err := seqdb.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := gpudb.LoadStoredPlan(db)
		if err != nil {
			t.Fatal(err)
		}
		if (sp != nil) != c.order {
			t.Fatalf("%v: stored plan %v, want one: %v", c.args, sp != nil, c.order)
		}
		if sp != nil && !slices.Equal(sp.Threads(), c.want) {
			t.Errorf("%v: tables for %v, want %v", c.args, sp.Threads(), c.want)
		}
		db.Close()
	}
}
