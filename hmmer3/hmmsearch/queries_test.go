package hmmsearch

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
)

// TestManyQueriesSmallDatabase: a model file of many models against a
// database of one batch runs its queries concurrently (the runner's
// plan), and the outputs are those of a one-worker run, query for query,
// in file order.
func TestManyQueriesSmallDatabase(t *testing.T) {
	dir := t.TempDir()
	var models []string
	for _, m := range []string{"20aa", "Caudal_act", "LuxC", "M1", "Patched", "RRM_1", "SMC_N", "XYPPX"} {
		models = append(models, "hmmer3/models/"+m+".hmm.gz")
	}
	hmmFile := concatInputs(t, dir, "many.hmm", models...)
	db := concatInputs(t, dir, "mixed.fa", "globins45.fa", "hmmer3/hmmsearch/inputs/7LESS_DROME.fa", "hmmer3/prot.fa")
	// the lines that name the thread count
	threads := regexp.MustCompile(`(?m)^# (number of worker threads|Option settings):.*\n`)
	tbl, dtbl := filepath.Join(dir, "t.tbl"), filepath.Join(dir, "t.dtbl")
	run := func(cpu string) (string, string, string) {
		out, stderr, code := runLocal(t, "--cpu", cpu, "--tblout", tbl, "--domtblout", dtbl, hmmFile, db)
		if code != 0 {
			t.Fatalf("--cpu %s: exit %d: %s", cpu, code, stderr)
		}
		norm := func(s string) string { return threads.ReplaceAllString(s, "") }
		return norm(normalizeRun(out)), norm(readOut(t, tbl)), norm(readOut(t, dtbl))
	}
	w1, wt1, wd1 := run("1")
	for _, cpu := range []string{"3", "8"} {
		g, gt, gd := run(cpu)
		for _, c := range []struct{ name, want, got string }{{"stdout", w1, g}, {"tblout", wt1, gt}, {"domtblout", wd1, gd}} {
			if line, w, gl := firstDiff(c.want, c.got); line != 0 {
				t.Errorf("--cpu %s: %s differs from --cpu 1 at line %d:\nwant %q\n got %q", cpu, c.name, line, w, gl)
			}
		}
	}

	// A bad model late in the file fails the run after concurrent queries
	// started, and leaves no output file.
	bad := filepath.Join(dir, "bad.hmm")
	b, err := os.ReadFile(hmmFile)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bad, append(b, "HMMER3/e [3.1b2 | February 2015]\nNAME  broken\nLENG  x\n"...), 0o644)
	tbl = filepath.Join(dir, "bad.tbl")
	if _, stderr, code := runLocal(t, "--cpu", "4", "--tblout", tbl, bad, db); code == 0 {
		t.Fatalf("a broken last model: exit 0; stderr %q", stderr)
	}
	if _, err := os.Stat(tbl); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s", tbl)
	}
}

// TestQueryPlan: the number of queries at once follows the database size.
func TestQueryPlan(t *testing.T) {
	for _, c := range []struct {
		cpus     int
		residues int64
		stdin    bool
		parallel int
		perQuery int
	}{
		{16, 100_000, false, 16, 1},
		{16, 4 * pipeline.BatchResidues, false, 4, 4},
		{16, 5 * pipeline.BatchResidues, false, 3, 5},
		{16, 100 * pipeline.BatchResidues, false, 1, 16},
		{1, 100_000, false, 1, 1},
		{16, 100_000, true, 1, 16},
	} {
		s := &search{seqfile: "db.fa"}
		if c.stdin {
			s.seqfile = "-"
		}
		base := pipeline.DefaultConfig()
		base.CPUs = c.cpus
		q := newQueryRunner(s, base, report.Options{})
		q.plan(&queryResult{Stats: hits.Stats{NRes: c.residues}})
		if q.parallel != c.parallel || q.base.CPUs != c.perQuery {
			t.Errorf("%d CPUs, %d residues, stdin %v: %d queries x %d workers, want %d x %d",
				c.cpus, c.residues, c.stdin, q.parallel, q.base.CPUs, c.parallel, c.perQuery)
		}
	}
}

// TestHeldResultsBound: finished queries behind an unfinished first one
// do not stop more from starting until their count or their hits reach
// the bounds; drain then waits for the first.
func TestHeldResultsBound(t *testing.T) {
	finished := func(nhits int) *pendingQuery {
		p := &pendingQuery{done: make(chan struct{}), r: &queryResult{Hits: make([]*hits.Hit, nhits)}}
		close(p.done)
		return p
	}
	head := &pendingQuery{done: make(chan struct{})} // still running
	for _, c := range []struct {
		name     string
		parallel int
		behind   []int // hits of the finished queries behind the head
		wait     bool
	}{
		{"a few behind", 12, []int{1, 2, 3}, false},
		{"past the old bound of 2 x 12", 12, make([]int, 40), false},
		{"count bound", 12, make([]int, heldQueriesAtMost-1), true},
		{"hits bound", 12, []int{heldHitsAtMost / 2, heldHitsAtMost / 2}, true},
		{"just under the hits bound", 12, []int{heldHitsAtMost - 1}, false},
		{"many in flight", 200, make([]int, heldQueriesAtMost), false},
	} {
		q := &queryRunner{parallel: c.parallel, pending: []*pendingQuery{head}}
		for _, n := range c.behind {
			q.pending = append(q.pending, finished(n))
		}
		if got := q.mustWaitForHead(); got != c.wait {
			t.Errorf("%s: mustWaitForHead %v, want %v", c.name, got, c.wait)
		}
		if !c.wait {
			// drain returns at once, holding everything back.
			if err := q.drain(false); err != nil || len(q.pending) != 1+len(c.behind) {
				t.Errorf("%s: drain: %v, %d pending", c.name, err, len(q.pending))
			}
		}
	}
	// Queries still running behind the head hold nothing.
	q := &queryRunner{parallel: 12, pending: []*pendingQuery{head, {done: make(chan struct{})}}}
	if q.mustWaitForHead() {
		t.Error("a running query behind the head counted as held")
	}
}
