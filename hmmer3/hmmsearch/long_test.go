package hmmsearch

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// hmmsearch 3.3.2 aborts on targets over 100,000 residues; hmmgo searches
// them. A sevenless protein (fn3 domains) inside 150,000 random residues
// must be found at the shifted coordinates with the same domains as the
// protein alone.
func TestTargetsOver100k(t *testing.T) {
	root := testutil.RepoRoot(t)
	model := filepath.Join(root, "testdata/hmmer3/models/fn3.hmm.gz")
	raw, err := os.ReadFile(filepath.Join(root, "testdata/hmmer3/7LESS_DROME"))
	if err != nil {
		t.Fatal(err)
	}
	var seq []byte
	inSeq := false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "SQ "):
			inSeq = true
		case strings.HasPrefix(line, "//"):
			inSeq = false
		case inSeq:
			seq = append(seq, strings.ReplaceAll(line, " ", "")...)
		}
	}
	rng := rand.New(rand.NewSource(1))
	flank := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ACDEFGHIKLMNPQRSTVWY"[rng.Intn(20)]
		}
		return b
	}
	const left = 100000
	long := append(append(flank(left), seq...), flank(50000)...)
	dir := t.TempDir()
	write := func(name string, s []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(">x\n"+string(s)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	domains := func(db string) [][]string {
		tbl := filepath.Join(dir, "d.tbl")
		var out, errb bytes.Buffer
		if code := Run(cli.Env{Stdout: &out, Stderr: &errb}, []string{"--nogpu", "--domtblout", tbl, model, db}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		b, _ := os.ReadFile(tbl)
		var rows [][]string
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				rows = append(rows, strings.Fields(l))
			}
		}
		return rows
	}
	alone, inside := domains(write("alone.fa", seq)), domains(write("long.fa", long))
	if len(alone) < 5 || len(inside) < len(alone)-2 {
		t.Fatalf("%d domains in the protein, %d in the long target", len(alone), len(inside))
	}
	// Every strong domain of the protein is found again, hmm coordinates
	// equal and sequence coordinates shifted by the flank.
	found := 0
	for _, a := range alone {
		for _, b := range inside {
			if a[15] == b[15] && a[16] == b[16] && atoi(a[17])+left == atoi(b[17]) {
				found++
				break
			}
		}
	}
	t.Logf("%d domains alone, %d inside, %d matched", len(alone), len(inside), found)
	if found < len(alone)-2 {
		t.Fatalf("only %d of %d domains found at shifted coordinates", found, len(alone))
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
