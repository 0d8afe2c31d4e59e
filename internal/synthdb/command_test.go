package synthdb

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

func runCmd(args ...string) (rc int, stdout, stderr string) {
	var o, e bytes.Buffer
	rc = run(cli.Env{Stdout: &o, Stderr: &e}, args)
	return rc, o.String(), e.String()
}

func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hmm")
	os.WriteFile(bad, []byte("HMMER3/f [3.1b2 | February 2015]\nNAME  x\nLENG  nonsense\n"), 0o644)
	dna := testutil.Testdata(t, "hmmer3/models/MADE1.hmm.gz")
	for _, c := range []struct {
		args []string
		rc   int
		want string
	}{
		{nil, 2, "-n RESIDUES is required"},
		{[]string{"-n", "12x"}, 2, "not a positive count"},
		{[]string{"-n", "1000", "extra"}, 2, "unexpected argument"},
		{[]string{"-n", "1000", "--plant-mode", "semi"}, 2, "unknown plant mode"},
		{[]string{"-n", "1000", "--sigma", "-2"}, 1, "sigma"},
		{[]string{"-n", "1000", "--plant", filepath.Join(dir, "none.hmm")}, 1, "none.hmm"},
		{[]string{"-n", "1000", "--plant", bad}, 1, "bad.hmm"},
		{[]string{"-n", "1000", "--plant", dna}, 1, "MADE1.hmm.gz: model MADE1 is not a protein model"},
		{[]string{"-n", "1000", "--plant", dir}, 1, dir + ": read error"},
		{[]string{"-n", "1000", "-o", dir}, 1, "cannot write output file " + dir + ": it is a directory"},
	} {
		rc, _, stderr := runCmd(c.args...)
		if rc != c.rc || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, rc, stderr, c.rc, c.want)
		}
		if rc == 1 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: error is not one line: %q", c.args, stderr)
		}
	}
}

func TestCommandWritesFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "db.fa")
	rc, stdout, stderr := runCmd("-n", "5k", "--seed", "2", "-o", out)
	if rc != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", rc, stdout, stderr)
	}
	got, _ := os.ReadFile(out)
	var want bytes.Buffer
	Write(&want, DefaultParams(5000, 2))
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the command's file differs from Write's output")
	}
	// A failed run leaves no file behind.
	out2 := filepath.Join(dir, "none.fa")
	if rc, _, _ := runCmd("-n", "100", "--plant", testdataModels(t), "-o", out2); rc == 0 {
		t.Fatal("planting more residues than -n succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("directory holds %d entries after a failed run", len(ents))
	}
}

func testdataModels(t *testing.T) string {
	return filepath.Join("..", "..", "testdata", "globins4.hmm")
}

func BenchmarkWrite(b *testing.B) {
	for _, threads := range []int{1, 0} {
		name := "threads=1"
		if threads == 0 {
			name = "threads=all"
		}
		b.Run(name, func(b *testing.B) {
			p := DefaultParams(50_000_000, 1)
			p.Threads = threads
			b.SetBytes(p.Residues)
			for i := 0; i < b.N; i++ {
				if _, err := Write(io.Discard, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
