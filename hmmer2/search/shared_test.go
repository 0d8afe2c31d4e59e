package search

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/testutil"
)

// The shared data set holds reports and score tables that Debian's
// hmm2search made on the HMMER 2.3.2 tutorial data and a bacterial
// proteome (../shared/data/hmmer/hmm2search_expected, README there).

var (
	dbLine  = regexp.MustCompile(`(?m)^Sequence database:          .*$`)
	hmmLine = regexp.MustCompile(`(?m)^HMM file:                   .*( \[[^]]*\])$`)
)

// normalizePaths blanks the file paths of the two header lines.
func normalizePaths(report []byte) []byte {
	report = dbLine.ReplaceAll(report, []byte("Sequence database: X"))
	return hmmLine.ReplaceAll(report, []byte("HMM file: X$1"))
}

// TestSharedFullReports compares whole default reports. The reports
// were made with another path to the database, so that one line is
// compared after replacing the path.
func TestSharedFullReports(t *testing.T) {
	dir := testutil.SharedData(t, "hmmer/hmm2search_expected")
	tut := testutil.SharedData(t, "hmmer/hmmer-2.3.2_tutorial")
	outs, err := filepath.Glob(filepath.Join(dir, "full_output", "*.out*"))
	if err != nil || len(outs) == 0 {
		t.Fatalf("no reports in %s", dir)
	}
	t.Chdir(filepath.Join(dir, "models"))
	for _, path := range outs {
		base := filepath.Base(path)
		var want []byte
		if strings.HasSuffix(base, ".gz") {
			want = gunzip(t, path)
			base = strings.TrimSuffix(base, ".gz")
		} else if want, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		// <model>.vs.<db>.out
		model, db, _ := strings.Cut(strings.TrimSuffix(base, ".out"), ".vs.")
		hmm := model + ".hmm2"
		if model == "rrm" {
			hmm = filepath.Join(tut, "rrm.hmm")
		}
		got, stderr, status := runSearch([]string{hmm, filepath.Join(tut, db)})
		if status != 0 {
			t.Errorf("%s: exit %d: %s", base, status, stderr)
			continue
		}
		w := normalizePaths(want)
		g := normalizePaths(got)
		if !bytes.Equal(w, g) {
			t.Errorf("%s: report differs at %s", base, firstDiff(w, g))
		}
	}
}

// TestSharedScoreTables checks the per-sequence table (score, E-value,
// number of domains, order) of `hmm2search -E 1e9 -A 0 [--null2]`
// against the shared TSV files, which cover every sequence.
func TestSharedScoreTables(t *testing.T) {
	dir := testutil.SharedData(t, "hmmer/hmm2search_expected")
	tables, err := filepath.Glob(filepath.Join(dir, "scores", "*.tsv"))
	if err != nil || len(tables) == 0 {
		t.Fatalf("no score tables in %s", dir)
	}
	dbs := map[string]string{
		"Artemia.fa":                  "hmmer/hmmer-2.3.2_tutorial/Artemia.fa",
		"7LES_DROME":                  "hmmer/hmmer-2.3.2_tutorial/7LES_DROME",
		"globins630.fa":               "hmmer/hmmer-2.3.2_tutorial/globins630.fa",
		"938293.PRJEB85.HG003687.faa": "pyhmmer/seqs/938293.PRJEB85.HG003687.faa",
	}
	for _, path := range tables {
		base := strings.TrimSuffix(filepath.Base(path), ".tsv")
		null2 := true
		if strings.HasSuffix(base, ".nonull2") {
			null2 = false
			base = strings.TrimSuffix(base, ".nonull2")
		}
		model, db, _ := strings.Cut(base, ".vs.")
		if testing.Short() && db == "938293.PRJEB85.HG003687.faa" {
			continue
		}
		hmm := filepath.Join(dir, "models", model+".hmm2")
		if model == "rrm" {
			hmm = testutil.SharedData(t, "hmmer/hmmer-2.3.2_tutorial/rrm.hmm")
		}
		args := []string{"-E", "1e9", "-A", "0"}
		if !null2 {
			args = append(args, "--null2")
		}
		args = append(args, hmm, testutil.SharedData(t, dbs[db]))
		got, stderr, status := runSearch(args)
		if status != 0 {
			t.Fatalf("%s: exit %d: %s", base, status, stderr)
		}
		// The tables were made with hmm2search's default two threads,
		// which register equal-scoring sequences in a racy order; order
		// within a run of equal scores is therefore not compared.
		want := canonicalTies(readTable(t, path))
		rows := canonicalTies(reportRows(got))
		if len(rows) != len(want) {
			t.Errorf("%s: %d rows, want %d", filepath.Base(path), len(rows), len(want))
			continue
		}
		for i := range want {
			if rows[i] != want[i] {
				t.Errorf("%s row %d: got %q, want %q", filepath.Base(path), i+1, rows[i], want[i])
				break
			}
		}
	}
}

// canonicalTies sorts each run of rows with equal score and E-value.
func canonicalTies(rows []string) []string {
	key := func(r string) string {
		f := strings.Fields(r)
		return f[1] + " " + f[2]
	}
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && key(rows[j]) == key(rows[i]) {
			j++
		}
		sort.Strings(rows[i:j])
		i = j
	}
	return rows
}

func readTable(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []string
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		rows = append(rows, strings.Join(strings.Fields(sc.Text()), " "))
	}
	return rows
}

// reportRows extracts "name score evalue N" from the per-sequence
// table of a report.
func reportRows(report []byte) []string {
	var rows []string
	in := false
	for _, line := range strings.Split(string(report), "\n") {
		switch {
		case strings.HasPrefix(line, "Scores for complete sequences"):
			in = true
			continue
		case in && line == "":
			return rows
		case in && (strings.HasPrefix(line, "Sequence ") || strings.HasPrefix(line, "--------")):
			continue
		}
		if in {
			f := strings.Fields(line)
			if len(f) >= 4 {
				rows = append(rows, strings.Join([]string{f[0], f[len(f)-3], f[len(f)-2], f[len(f)-1]}, " "))
			}
		}
	}
	return rows
}
