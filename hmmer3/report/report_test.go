package report

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hits/hitsjson"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// Each directory of testdata/hmmer3/report holds one hmmsearch 3.3.2 run
// (--cpu 0, so serial): dump.json.gz is the library's complete hit lists,
// thresholds and counters, dumped by a C driver linked to libhmmer (see
// docs/hmmsearch-report.md); stdout, tbl and domtbl are hmmsearch's own
// outputs of the same run (.gz when large). textw60 is the exception:
// hmmsearch refuses --textw below 120, so its text comes from the driver
// printing with the library's p7_tophits_* functions at width 60.
func fixtureDirs(t *testing.T) []string {
	dirs, err := filepath.Glob(testutil.Testdata(t, "hmmer3/report/*/dump.json.gz"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no report fixtures found: %v", err)
	}
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	return dirs
}

// readText reads name or name.gz from dir.
func readText(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil {
		return string(b)
	}
	f, err := os.Open(p + ".gz")
	if err != nil {
		t.Fatalf("fixture %s missing", p)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// valued lists hmmsearch's options that take an argument.
var valued = map[string]bool{
	"-o": true, "-A": true, "--tblout": true, "--domtblout": true, "--pfamtblout": true, "--textw": true,
	"-E": true, "-T": true, "--domE": true, "--domT": true, "--incE": true, "--incT": true, "--incdomE": true,
	"--incdomT": true, "--F1": true, "--F2": true, "--F3": true, "-Z": true, "--domZ": true, "--seed": true,
	"--tformat": true, "--cpu": true,
}

// settings reads the fixture's command line (plain "--opt value" forms).
func settings(t *testing.T, argv []string) (used []Setting, o Options, outFile string) {
	o = DefaultOptions()
	for i := 1; i < len(argv) && strings.HasPrefix(argv[i], "-"); i++ {
		s := Setting{Name: argv[i]}
		if valued[s.Name] {
			i++
			s.Value = argv[i]
		}
		used = append(used, s)
		switch s.Name {
		case "--acc":
			o.ShowAccessions = true
		case "--noali":
			o.ShowAlignments = false
		case "--notextw":
			o.TextWidth = 0
		case "--textw":
			o.TextWidth = atoi(s.Value)
		case "-o":
			outFile = s.Value
		}
	}
	return used, o, outFile
}

// rankAndThreshold runs our TopHits on the dumped pipeline output.
func rankAndThreshold(q *hitsjson.Query) (*hits.TopHits, hits.Thresholds) {
	th := &hits.TopHits{Hits: q.HitList()}
	thr := q.HitsThresholds()
	th.Sort()
	th.Threshold(&thr)
	return th, thr
}

// dropLines removes lines that start with any of the prefixes.
func dropLines(s string, prefixes ...string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		keep := true
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				keep = false
			}
		}
		if keep {
			b.WriteString(l)
		}
	}
	return b.String()
}

// The banner's version lines and the timings are ours; in the tables the
// date, directory, command line and version are.
var stdoutVolatile = []string{"# hmmsearch ::", "# HMMER ", "# Copyright", "# Freely distributed", "# hmmgo ", "# Re-implements", "# HMMER is", "# CPU time:", "# Mc/sec:"}
var tableVolatile = []string{"# Option settings:", "# Current dir:", "# Date:", "# Version:"}

func TestReportsMatchHmmsearch(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			d, err := hitsjson.Load(filepath.Join(dir, "dump.json.gz"))
			if err != nil {
				t.Fatal(err)
			}
			used, o, outFile := settings(t, d.Argv)
			if name == "textw60" {
				o.TextWidth = 60 // the driver's width, below what the command line allows
			}
			var text, tbl, domtbl bytes.Buffer
			if err := Banner(&text, "hmmsearch", "search profile(s) against a sequence database"); err != nil {
				t.Fatal(err)
			}
			must(t, SearchHeader(&text, d.HMMFile, d.SeqFile, used))
			for qi := range d.Queries {
				q := &d.Queries[qi]
				th, thr := rankAndThreshold(q)
				st := q.HitsStats()
				must(t, Query(&text, q.Name, q.Acc, q.Desc, q.M))
				must(t, Targets(&text, th, &thr, o))
				text.WriteString("\n\n")
				must(t, Domains(&text, th, &thr, o))
				text.WriteString("\n\n")
				must(t, TabularTargets(&tbl, q.Name, q.Acc, th, &thr, qi == 0))
				must(t, TabularDomains(&domtbl, q.Name, q.Acc, th, &thr, qi == 0))
				must(t, Statistics(&text, &st, &thr, &Timing{User: 0.01, Elapsed: 0.02}))
				text.WriteString("//\n")
			}
			tail := Tail{Program: "hmmsearch", Version: "-", QueryFile: d.HMMFile, TargetFile: d.SeqFile,
				Options: strings.Join(d.Argv, " ") + " ", Date: time.Now()}
			must(t, TabularTail(&tbl, tail))
			must(t, TabularTail(&domtbl, tail))
			text.WriteString("[ok]\n")

			wantText := "stdout"
			if outFile != "" && !strings.Contains(text.String(), "# output directed to file:         "+outFile) {
				t.Errorf("-o %s not in the header", outFile)
			}
			compare(t, name+"/"+wantText, dropLines(readText(t, dir, wantText), stdoutVolatile...), dropLines(text.String(), stdoutVolatile...))
			compare(t, name+"/tbl", dropLines(readText(t, dir, "tbl"), tableVolatile...), dropLines(tbl.String(), tableVolatile...))
			compare(t, name+"/domtbl", dropLines(readText(t, dir, "domtbl"), tableVolatile...), dropLines(domtbl.String(), tableVolatile...))
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// compare reports the first differing line.
func compare(t *testing.T, what, want, got string) {
	t.Helper()
	if want == got {
		return
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("%s: first difference at line %d:\nwant %q\n got %q", what, i+1, w, g)
			return
		}
	}
}
