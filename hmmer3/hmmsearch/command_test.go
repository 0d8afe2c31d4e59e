package hmmsearch

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hits/hitsjson"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
)

// recorded replays one HMMER run: each query model as HMMER read it and
// the hit list HMMER's pipeline produced for it, so that everything the
// command does around the pipeline (options, thresholds, ranking, every
// output file) can be compared with hmmsearch's own output files.
type recorded struct {
	t       *testing.T
	d       *hitsjson.File
	nsearch int
}

type modelList struct {
	hmms []*hmm.HMM
	next int
}

func (l *modelList) Read() (*hmm.HMM, error) {
	if l.next == len(l.hmms) {
		return nil, io.EOF
	}
	l.next++
	return l.hmms[l.next-1], nil
}

type noSequences struct{}

func (noSequences) Read() (*seqio.Sequence, error) { return nil, io.EOF }

func (r *recorded) engine() *engine {
	return &engine{
		openModels: func(path string, stdin io.Reader) (ModelReader, error) {
			l := &modelList{}
			for i := range r.d.Queries {
				l.hmms = append(l.hmms, r.model(&r.d.Queries[i]))
			}
			return l, nil
		},
		openSequences: func(string, io.Reader, *alphabet.Alphabet) (pipeline.SequenceSource, error) {
			return noSequences{}, nil
		},
		newModel: func(h *hmm.HMM, cfg *pipeline.Config) (*pipeline.Model, error) {
			return &pipeline.Model{HMM: h}, nil
		},
		search: r.search,
		// The recorded results stand in for the CPU pipeline; a GPU on
		// the test host must not take the run past them.
		selectGPUs:    func(io.Writer, string, devices.Request, devices.Needs) ([]*cuda.Device, error) { return nil, nil },
		driverPresent: func() bool { return false },
		lookupEnv:     func(string) (string, bool) { return "", false },
		now:           time.Now,
		getwd:         os.Getwd,
	}
}

// model rebuilds the query's header fields; the cutoffs in use are the
// thresholds HMMER's pipeline took from the model.
func (r *recorded) model(q *hitsjson.Query) *hmm.HMM {
	at, _ := alphabet.ParseType(q.Alph)
	h := &hmm.HMM{Name: q.Name, Acc: q.Acc, Desc: q.Desc, M: q.M, Alph: alphabet.New(at)}
	p := q.Pipeline
	switch p.UseBitCutoffs {
	case 1 << 10:
		h.HasGA, h.Cutoff[hmm.GA1], h.Cutoff[hmm.GA2] = true, float32(p.T), float32(p.DomT)
	case 1 << 11:
		h.HasTC, h.Cutoff[hmm.TC1], h.Cutoff[hmm.TC2] = true, float32(p.T), float32(p.DomT)
	case 1 << 12:
		h.HasNC, h.Cutoff[hmm.NC1], h.Cutoff[hmm.NC2] = true, float32(p.T), float32(p.DomT)
	}
	return h
}

// search checks that the command configured the pipeline as HMMER did and
// returns HMMER's hit list for the query.
func (r *recorded) search(m *pipeline.Model, src pipeline.SequenceSource, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error) {
	q := &r.d.Queries[r.nsearch]
	r.nsearch++
	want := q.HitsThresholds()
	got := cfg.Thresholds
	want.Z, want.DomZ, got.Z, got.DomZ = 0, 0, 0, 0 // Z comes after the search
	if want.DomZFromOpt {
		want.DomZ = q.Stats.DomZ
		got.DomZ = cfg.Thresholds.DomZ
	}
	if want.ZFromOption {
		want.Z, got.Z = q.Stats.Z, cfg.Thresholds.Z
	}
	if got != want {
		r.t.Errorf("query %s: thresholds\n got %+v\nwant %+v", q.Name, got, want)
	}
	f := func(x float64) float64 {
		if cfg.Max {
			return 1
		}
		return math.Min(1, x)
	}
	if f(cfg.F1) != q.Stats.F1 || f(cfg.F2) != q.Stats.F2 || f(cfg.F3) != q.Stats.F3 {
		r.t.Errorf("query %s: filter thresholds %g %g %g (max %v), HMMER %g %g %g", q.Name, cfg.F1, cfg.F2, cfg.F3, cfg.Max, q.Stats.F1, q.Stats.F2, q.Stats.F3)
	}
	st := q.HitsStats()
	return q.HitList(), &st, nil
}

func readFixture(t *testing.T, dir, name string) string {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
		return string(b)
	}
	f, err := os.Open(filepath.Join(dir, name+".gz"))
	if err != nil {
		t.Fatal(err)
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

// Lines that are ours by design: banner version lines, timings, and the
// tables' date, directory, command line and version.
var volatile = []string{"# hmmsearch ::", "# HMMER ", "# Copyright", "# Freely distributed", "# hmmgo ", "# Re-implements",
	"# HMMER is", "# CPU time:", "# Mc/sec:", "# Option settings:", "# Current dir:", "# Date:", "# Version:",
	"# number of worker threads:"}

func stripVolatile(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		skip := false
		for _, p := range volatile {
			skip = skip || strings.HasPrefix(l, p)
		}
		if !skip {
			b.WriteString(l)
		}
	}
	return b.String()
}

func firstDiff(want, got string) (int, string, string) {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; ; i++ {
		if i >= len(wl) || i >= len(gl) {
			if len(wl) == len(gl) {
				return 0, "", ""
			}
			w, g := "<end>", "<end>"
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			return i + 1, w, g
		}
		if wl[i] != gl[i] {
			return i + 1, wl[i], gl[i]
		}
	}
}

// TestCommandReproducesHmmsearch runs the whole command on each recorded
// run of testdata/hmmer3/report and compares standard output (or -o),
// --tblout and --domtblout with hmmsearch's files byte for byte, apart
// from the volatile lines.
func TestCommandReproducesHmmsearch(t *testing.T) {
	dumps, _ := filepath.Glob(testutil.Testdata(t, "hmmer3/report/*/dump.json.gz"))
	if len(dumps) == 0 {
		t.Fatal("no recorded runs")
	}
	for _, p := range dumps {
		dir := filepath.Dir(p)
		name := filepath.Base(dir)
		if name == "textw60" {
			continue // made with a width the command line does not allow
		}
		t.Run(name, func(t *testing.T) {
			d, err := hitsjson.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(t.TempDir())
			for _, f := range []string{d.HMMFile, d.SeqFile} {
				os.WriteFile(f, nil, 0o644) // the command checks the database exists
			}
			rec := &recorded{t: t, d: d}
			var stdout, stderr bytes.Buffer
			code := rec.engine().run(cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, d.Argv[1:])
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			text := stdout.String()
			outputs := map[string]string{}
			for i, a := range d.Argv {
				switch a {
				case "-o", "--tblout", "--domtblout":
					b, err := os.ReadFile(d.Argv[i+1])
					if err != nil {
						t.Fatal(err)
					}
					outputs[a] = string(b)
				}
			}
			if o, ok := outputs["-o"]; ok {
				if text != "" {
					t.Errorf("with -o, stdout should be empty; got %d bytes", len(text))
				}
				text = o
			}
			for _, c := range []struct{ file, got string }{
				{"stdout", text}, {"tbl", outputs["--tblout"]}, {"domtbl", outputs["--domtblout"]},
			} {
				want := stripVolatile(readFixture(t, dir, c.file))
				if line, w, g := firstDiff(want, stripVolatile(c.got)); line != 0 {
					t.Errorf("%s differs from hmmsearch's at line %d:\nwant %q\n got %q", c.file, line, w, g)
				}
			}
			if rec.nsearch != len(d.Queries) {
				t.Errorf("searched %d queries, the file has %d", rec.nsearch, len(d.Queries))
			}
		})
	}
}

// TestFailureLeavesNoOutputs: an error in the middle of a run removes the
// output files instead of leaving files that look complete.
func TestFailureLeavesNoOutputs(t *testing.T) {
	d, err := hitsjson.Load(testutil.Testdata(t, "hmmer3/report/multi_mixed/dump.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("db.fa", nil, 0o644)
	rec := &recorded{t: t, d: d}
	e := rec.engine()
	calls := 0
	e.search = func(m *pipeline.Model, src pipeline.SequenceSource, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error) {
		if calls++; calls == 2 {
			return nil, nil, os.ErrInvalid
		}
		return rec.search(m, src, cfg)
	}
	var stdout, stderr bytes.Buffer
	code := e.run(cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr},
		[]string{"-o", "out.txt", "--tblout", "t.tbl", "--domtblout", "d.tbl", "m.hmm", "db.fa"})
	if code != 1 || !strings.HasPrefix(stderr.String(), "hmmgo hmmsearch: ") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and a one-line error", code, stderr.String())
	}
	left, _ := filepath.Glob("*")
	if len(left) != 1 || left[0] != "db.fa" {
		t.Errorf("files left after a failed run: %q", left)
	}
}

func TestInputErrors(t *testing.T) {
	d, err := hitsjson.Load(testutil.Testdata(t, "hmmer3/report/cut_ga/dump.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("db.fa", nil, 0o644)
	run := func(e *engine, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := e.run(cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}, args)
		return code, stdout.String(), stderr.String()
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"m.hmm", "missing.fa"}, "hmmgo hmmsearch: Failed to open sequence file missing.fa for reading\n"},
		// The recorded models carry GA cutoffs only.
		{[]string{"--cut_tc", "m.hmm", "db.fa"}, "hmmgo hmmsearch: TC bit thresholds unavailable on model fn3\n"},
		{[]string{"m.hmm", "-"}, "hmmgo hmmsearch: Target sequence file - isn't rewindable; can't search it with multiple queries\n"},
		{[]string{"--tformat", "genbank", "m.hmm", "db.fa"}, "hmmgo hmmsearch: --tformat genbank: only fasta target databases are supported\n"},
		{[]string{"--tformat", "xyz", "m.hmm", "db.fa"}, "hmmgo hmmsearch: xyz is not a recognized sequence database file format\n"},
		// Found before the search: no -o file is left looking complete.
		{[]string{"-o", "out.txt", "--tblout", ".", "m.hmm", "db.fa"}, "hmmgo hmmsearch: cannot write output file .: it is a directory\n"},
		{[]string{"--tblout", "none/t.tbl", "m.hmm", "db.fa"}, "hmmgo hmmsearch: cannot open output file none/t.tbl: no such file or directory\n"},
		{[]string{"--tblout", "db.fa", "m.hmm", "db.fa"}, "hmmgo hmmsearch: output file db.fa is the input file db.fa: refusing to replace it\n"},
	}
	for _, c := range cases {
		rec := &recorded{t: t, d: d}
		e := rec.engine()
		e.search = func(m *pipeline.Model, src pipeline.SequenceSource, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error) {
			st := rec.d.Queries[0].HitsStats()
			return nil, &st, nil
		}
		code, _, stderr := run(e, c.args...)
		if code != 1 || stderr != c.want {
			t.Errorf("%q: exit %d, %q; want 1, %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat("out.txt"); err == nil {
		t.Error("out.txt written by a run that failed")
	}
	if code, _, stderr := run((&recorded{t: t, d: d}).engine(), "-A", "a.sto", "m.hmm", "db.fa"); code != 2 || !strings.Contains(stderr, "-A is not supported") {
		t.Errorf("-A: exit %d %q", code, stderr)
	}
}
