package hmmsearch

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/seqio"
)

// distributedGroup is the help group of the options that decide where
// the work runs (--shard, --redis...). They never change the results, so
// they are left out of the command line that shards record and that
// reports print: a sharded or queued run prints what a local run prints.
const distributedGroup = 14

// queryResult is one query's outcome before ranking: the hits the
// pipeline kept (database order, global database indices), its counters
// and the thresholds with the model's cutoffs applied. It is what shards
// and queue workers send back, at full precision (gob).
type queryResult struct {
	Name, Acc, Desc string
	M               int
	Thr             hits.Thresholds
	Hits            []*hits.Hit
	Stats           hits.Stats
	Timing          report.Timing
}

// shardPayload is the body of an hmmsearch shard file.
type shardPayload struct {
	DBCount, DBResidues int64 // the whole database
	Queries             []*queryResult
}

// shardRun is the state of a --shard run.
type shardRun struct {
	spec                shard.Spec
	out                 string
	keep                []int64 // database indices of this shard's targets
	dbCount, dbResidues int64
	results             []*queryResult
}

// localArgs is the command line without the distributed options, in a
// canonical form (options in table order, then "--" and the arguments):
// what a merge or a queue worker parses, and what reports print.
func localArgs(g *getopts) []string {
	var out []string
	for i, o := range g.opts {
		if g.setby[i] == byDefault || o.group == distributedGroup {
			continue
		}
		switch {
		case o.typ == argNone:
			out = append(out, o.name)
		case strings.HasPrefix(o.name, "--"):
			out = append(out, o.name+"="+g.val[i])
		default: // Easel's one-letter options take no "="
			out = append(out, o.name, g.val[i])
		}
	}
	out = append(out, "--")
	return append(out, g.args...)
}

// parseLocal parses a canonical command line from localArgs, with no
// environment (the recorded line already holds what the environment set).
func parseLocal(args []string) (*getopts, error) {
	g := newGetopts(options())
	if err := g.processCmdline(args); err != nil {
		return nil, err
	}
	if err := g.verify(); err != nil {
		return nil, err
	}
	if len(g.args) != 2 {
		return nil, fmt.Errorf("recorded command line has %d arguments, not 2", len(g.args))
	}
	for i, o := range g.opts {
		if o.group == distributedGroup && g.setby[i] != byDefault {
			return nil, fmt.Errorf("recorded command line sets %s", o.name)
		}
	}
	return g, nil
}

// setupShard reads --shard and --shard-out.
func (s *search) setupShard() error {
	g := s.g
	if !g.isOn("--shard") {
		if g.isOn("--shard-out") {
			return fmt.Errorf("--shard-out needs --shard i/N")
		}
		return nil
	}
	spec, err := shard.Parse(g.str("--shard"))
	if err != nil {
		return err
	}
	if !g.isOn("--shard-out") {
		return fmt.Errorf("--shard %s needs --shard-out <f> (the shard's results, for hmmgo merge)", spec)
	}
	if s.seqfile == "-" {
		return fmt.Errorf("--shard needs a sequence database file, not standard input (every shard reads the whole file)")
	}
	s.shard = &shardRun{spec: spec, out: g.str("--shard-out")}
	return nil
}

// openTargets opens the database for one query; a shard reads it whole
// but yields only its own targets, with their database indices.
func (s *search) openTargets(abc *alphabet.Alphabet) (pipeline.SequenceSource, error) {
	if s.shard == nil {
		return s.openSequences(s.seqfile, s.env.Stdin, abc)
	}
	if s.shard.keep == nil {
		if err := s.shard.plan(s, abc); err != nil {
			return nil, err
		}
	}
	src, err := s.openSequences(s.seqfile, s.env.Stdin, abc)
	if err != nil {
		return nil, err
	}
	return &subset{SubsetSource: pipeline.SubsetSource{Src: src, Keep: s.shard.keep}, path: s.seqfile}, nil
}

// plan reads every target's length once and picks this shard's targets:
// sorted by length and dealt out round-robin, so shards take equal time.
func (r *shardRun) plan(s *search, abc *alphabet.Alphabet) error {
	src, err := s.openSequences(s.seqfile, s.env.Stdin, abc)
	if err != nil {
		return err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	var lengths []int64
	for {
		sq, err := src.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		lengths = append(lengths, int64(sq.L()))
		r.dbResidues += int64(sq.L())
	}
	r.dbCount = int64(len(lengths))
	r.keep = shard.Interleaved(lengths, r.spec)
	if r.keep == nil {
		r.keep = []int64{} // an empty shard (more shards than targets) is planned too
	}
	return nil
}

// finish writes the shard file.
func (r *shardRun) finish(s *search) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&shardPayload{DBCount: r.dbCount, DBResidues: r.dbResidues, Queries: r.results}); err != nil {
		return err
	}
	h := shard.Header{Command: name, Shard: r.spec.Index, Of: r.spec.Count, Args: localArgs(s.g),
		Inputs: []string{fmt.Sprintf("%s: %d sequences, %d residues", s.seqfile, r.dbCount, r.dbResidues)}}
	out, err := cli.CreateOutput(r.out, s.env.Stdout)
	if err != nil {
		return err
	}
	s.outputs = append(s.outputs, out)
	if err := shard.Encode(out, h, buf.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", r.out, err)
	}
	return out.Commit()
}

// subset names the file when it ends early (it changed between reads).
type subset struct {
	pipeline.SubsetSource
	path string
}

func (s *subset) Read() (*seqio.Sequence, error) {
	sq, err := s.SubsetSource.Read()
	if err == io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s has fewer sequences than when this shard was planned (did it change during the run?)", s.path)
	}
	return sq, err
}

func (s *subset) Close() error {
	if c, ok := s.Src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// mergeQueries combines the parts of one query searched separately
// (shards, queue tasks): hits back in database order, counters summed,
// CPU times summed and the longest elapsed time kept.
func mergeQueries(parts []*queryResult) *queryResult {
	out := *parts[0]
	out.Hits = nil
	out.Stats.NSeqs, out.Stats.NRes = 0, 0
	out.Stats.NPastMSV, out.Stats.NPastBias, out.Stats.NPastVit, out.Stats.NPastFwd = 0, 0, 0, 0
	out.Timing = report.Timing{}
	for _, p := range parts {
		out.Hits = append(out.Hits, p.Hits...)
		out.Stats.Add(&p.Stats)
		out.Timing.User += p.Timing.User
		out.Timing.Sys += p.Timing.Sys
		out.Timing.Elapsed = max(out.Timing.Elapsed, p.Timing.Elapsed)
	}
	sortByDatabaseIndex(out.Hits)
	return &out
}

func sortByDatabaseIndex(h []*hits.Hit) {
	slices.SortStableFunc(h, func(a, b *hits.Hit) int { return cmp.Compare(a.SeqIdx, b.SeqIdx) })
}
