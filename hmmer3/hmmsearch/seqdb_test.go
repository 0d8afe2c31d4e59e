package hmmsearch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/makedb"
)

// A pre-formatted database gives exactly the output of its FASTA: the
// same as HMMER's (live or golden) on the FASTA, and byte for byte the
// same as ours on the FASTA except the lines that name the files.
func TestPreformattedDatabase(t *testing.T) {
	bin, _ := exec.LookPath("hmmsearch")
	cases := map[string]alphabet.Type{
		"globins4": alphabet.Amino, "made1_dna": alphabet.DNA, "tutorial_mixed": alphabet.Amino, "cut_ga": alphabet.Amino,
		"acc_noali": alphabet.Amino, "testsuite_amino_mixed": alphabet.Amino, "testsuite_dna_3f": alphabet.DNA,
		"cudampf_100_prot2_default": alphabet.Amino,
	}
	n := 0
	for _, c := range e2eCases() {
		typ, ok := cases[c.name]
		if !ok {
			continue
		}
		n++
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			hmmPath := materialize(t, c.hmm, dir, "query.hmm")
			fasta := materialize(t, c.db, dir, "targets.fa")
			db := filepath.Join(dir, "targets.hmmgo")
			if err := makedb.Make(cli.Env{}, fasta, db, alphabet.New(typ)); err != nil {
				t.Fatal(err)
			}
			var want outputs
			if bin != "" {
				want = runHMMER(t, bin, c, hmmPath, fasta, dir)
			} else if want, ok = readGolden(t, c); !ok {
				t.Skipf("no golden files for %s and no hmmsearch on PATH", c.name)
			}
			fromDB := runOurs(t, c, hmmPath, db, dir)
			compareOutputs(t, want, fromDB)
			fromFASTA := runOurs(t, c, hmmPath, fasta, dir)
			sameButPaths(t, "stdout", fromFASTA.stdout, fromDB.stdout, fasta, db)
			sameButPaths(t, "tblout", fromFASTA.tbl, fromDB.tbl, fasta, db)
			sameButPaths(t, "domtblout", fromFASTA.domtbl, fromDB.domtbl, fasta, db)
			if !strings.Contains(fromDB.tbl, "# Target file:     "+db+"\n") {
				t.Error("the tblout trailer does not name the database file given")
			}
		})
	}
	if n != len(cases) {
		t.Fatalf("%d of the %d cases exist", n, len(cases))
	}
}

// sameButPaths compares two outputs line by line, where only lines
// naming the target file, times and dates may differ (the FASTA's path
// replaced by the database's).
func sameButPaths(t *testing.T, what, a, b, fasta, db string) {
	t.Helper()
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) {
		t.Errorf("%s: %d lines from the FASTA, %d from the database", what, len(al), len(bl))
		return
	}
	for i := range al {
		if al[i] == bl[i] {
			continue
		}
		if strings.ReplaceAll(al[i], fasta, db) == bl[i] {
			continue
		}
		for _, p := range []string{"# CPU time:", "# Mc/sec:", "# Date:", "# Option settings:", "# target sequence database:"} {
			if strings.HasPrefix(al[i], p) && strings.HasPrefix(bl[i], p) {
				goto next
			}
		}
		t.Errorf("%s line %d differs:\nFASTA    %q\ndatabase %q", what, i+1, al[i], bl[i])
		return
	next:
	}
}

func TestPreformattedDatabaseErrors(t *testing.T) {
	dir := t.TempDir()
	hmmPath := materialize(t, globins4, dir, "query.hmm")
	dna := materialize(t, dnaChunks, dir, "dna.fa")
	db := filepath.Join(dir, "dna.hmmgo")
	if err := makedb.Make(cli.Env{}, dna, db, alphabet.New(alphabet.DNA)); err != nil {
		t.Fatal(err)
	}
	run := func(path string) (int, string) {
		var stdout, stderr bytes.Buffer
		rc := Run(cli.Env{Stdout: &stdout, Stderr: &stderr}, []string{"--tblout", filepath.Join(dir, "out.tbl"), hmmPath, path})
		return rc, stderr.String()
	}
	rc, stderr := run(db)
	if rc == 0 || !strings.Contains(stderr, db+": the database holds DNA sequences but the query model is amino") {
		t.Errorf("alphabet mismatch: exit %d, %q", rc, stderr)
	}
	// A flipped byte in the residues: the checksum names the file.
	b, _ := os.ReadFile(db)
	b[100] ^= 1
	bad := filepath.Join(dir, "bad.hmmgo")
	os.WriteFile(bad, b, 0o644)
	rc, stderr = run(bad)
	// One line of error; on a GPU host the device notice comes first.
	if i := strings.Index(stderr, "\n"); i >= 0 && strings.Contains(stderr[:i], ": using GPU") {
		stderr = stderr[i+1:]
	}
	if rc == 0 || !strings.Contains(stderr, bad+": checksum mismatch in section RESI") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("corrupt database: exit %d, %q", rc, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.tbl")); err == nil {
		t.Error("a failed search left a table behind")
	}
}
