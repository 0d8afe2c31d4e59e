package hmmsearch

import (
	"fmt"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

// Merge prints the results of a complete set of hmmsearch shard files
// (hmmgo merge) exactly as one unsharded run of the recorded command line
// prints them: standard output or -o, --tblout and --domtblout. E-values
// use the whole database's size (the targets of all shards) unless -Z set
// it; domZ counts the hits reported after merging.
func Merge(env cli.Env, files []*shard.File) error {
	g, err := parseLocal(files[0].Header.Args)
	if err != nil {
		return fmt.Errorf("%s: %v", files[0].Path, err)
	}
	payloads, err := shard.DecodePayloads[shardPayload](files)
	if err != nil {
		return err
	}
	nq := len(payloads[0].Queries)
	for i, p := range payloads {
		if len(p.Queries) != nq {
			return fmt.Errorf("%s holds %d queries but %s holds %d", files[i].Path, len(p.Queries), files[0].Path, nq)
		}
		if p.DBCount != payloads[0].DBCount {
			return fmt.Errorf("%s and %s saw databases of %d and %d sequences", files[i].Path, files[0].Path, p.DBCount, payloads[0].DBCount)
		}
	}
	e := defaultEngine()
	e.lookupEnv = func(string) (string, bool) { return "", false }
	s := &search{engine: e, env: env, g: g, hmmfile: g.args[0], seqfile: g.args[1]}
	err = s.printMerged(payloads, files)
	if err != nil {
		s.abort()
	}
	return err
}

func (s *search) printMerged(payloads []*shardPayload, files []*shard.File) error {
	if err := s.openOutputs(); err != nil {
		return err
	}
	opts := s.reportOptions()
	for q := range payloads[0].Queries {
		parts := make([]*queryResult, len(payloads))
		for i, p := range payloads {
			parts[i] = p.Queries[q]
			if parts[i].Name != parts[0].Name || parts[i].M != parts[0].M {
				return fmt.Errorf("query %d is %s in %s but %s in %s", q+1, parts[0].Name, files[0].Path, parts[i].Name, files[i].Path)
			}
		}
		r := mergeQueries(parts)
		if r.Stats.NSeqs != payloads[0].DBCount {
			return fmt.Errorf("query %s: the shards searched %d targets of %d (shards of different plans?)", r.Name, r.Stats.NSeqs, payloads[0].DBCount)
		}
		if q == 0 {
			if err := s.header(); err != nil {
				return err
			}
		}
		if err := s.printQuery(r, q+1, opts); err != nil {
			return err
		}
	}
	return s.finish()
}
