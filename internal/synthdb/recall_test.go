package synthdb_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hmmsearch"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/synthdb"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// Planted homologs are what a search finds: hmmgo hmmsearch with the
// model puts every planted sample at the top of its table, and the
// background (random sequence) gives nothing significant.
func TestPlantedHomologsAreFound(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db.fa")
	hmmfile := testutil.Testdata(t, "globins4.hmm")
	var stderr bytes.Buffer
	env := cli.Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}
	if rc := synthdb.Command.Run(env, []string{"-n", "300k", "--seed", "4", "--plant", hmmfile, "--per-model", "6", "-o", db}); rc != 0 {
		t.Fatalf("synthdb: exit %d: %s", rc, stderr.String())
	}
	tbl := filepath.Join(dir, "hits.tbl")
	if rc := hmmsearch.Run(env, []string{"--noali", "--tblout", tbl, "--cpu", "2", hmmfile, db}); rc != 0 {
		t.Fatalf("hmmsearch: exit %d: %s", rc, stderr.String())
	}
	text, err := os.ReadFile(tbl)
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	significant := 0
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || strings.HasPrefix(line, "#") {
			continue
		}
		top = append(top, f[0])
		if e := f[4]; strings.Contains(e, "e-") {
			significant++
		}
	}
	if len(top) < 6 {
		t.Fatalf("only %d hits: %v", len(top), top)
	}
	for i, name := range top[:6] {
		if !strings.Contains(name, "-sample") {
			t.Errorf("hit %d is %s, not a planted homolog", i+1, name)
		}
	}
	for _, name := range top[6:] {
		if strings.Contains(name, "-sample") {
			t.Errorf("more than 6 planted hits: %s", name)
		}
	}
	if significant > 6 {
		t.Errorf("%d hits below E=1e-1 in a database of 6 homologs", significant)
	}
}
