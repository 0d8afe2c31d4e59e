package search

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

// Merge writes, from a complete set of hmm2search shard files (hmmgo
// merge), exactly the report one unsharded run of the recorded command
// line writes, to standard output or its -o file. The hits of all shards
// are registered in database order, the histograms added, and E-values
// use the whole database's sequence count unless -Z set it.
func Merge(env cli.Env, files []*shard.File) error {
	o, err := ParseOptions(files[0].Header.Args)
	if err != nil {
		return fmt.Errorf("%s: recorded command line: %v", files[0].Path, err)
	}
	if o.Shard != nil || o.ShardOut != "" {
		return fmt.Errorf("%s: recorded command line sets --shard", files[0].Path)
	}
	payloads, err := shard.DecodePayloads[shardPayload](files)
	if err != nil {
		return err
	}
	report, err := mergedReport(o, payloads, files)
	if err != nil {
		return err
	}
	return writeOutput(env, o, report)
}

// mergedReport checks that the shards add up to the whole database and
// prints the report.
func mergedReport(o *Options, payloads []*shardPayload, files []*shard.File) ([]byte, error) {
	first := payloads[0]
	var searched int64
	type indexed struct {
		idx int64
		h   *hit
	}
	var global, domains []indexed
	hist := newHistogram(-200, 200, 100)
	for i, p := range payloads {
		if p.Model != first.Model || p.NSeq != first.NSeq || p.DBCount != first.DBCount || p.NonEmpty != first.NonEmpty ||
			p.GlobE != first.GlobE || p.GlobT != first.GlobT || p.DomE != first.DomE || p.DomT != first.DomT || p.Z != first.Z {
			return nil, fmt.Errorf("%s and %s describe different searches (model, thresholds or database differ)",
				files[i].Path, files[0].Path)
		}
		searched += p.Searched
		for _, b := range p.Hist {
			hist.addN(b.Score, b.N)
		}
		for j := range p.Global {
			global = append(global, indexed{p.Global[j].Idx, p.Global[j].hit()})
		}
		for j := range p.Domains {
			domains = append(domains, indexed{p.Domains[j].Idx, p.Domains[j].hit()})
		}
	}
	if searched != first.DBCount || int64(hist.total) != first.NonEmpty {
		return nil, fmt.Errorf("the shards searched %d of %d sequences and scored %d of %d (shards of different plans?)",
			searched, first.DBCount, hist.total, first.NonEmpty)
	}
	if first.NSeq == 0 || hist.total == 0 {
		return nil, errNoResidues(o)
	}
	// A sequence's hits all come from one shard, in their order there;
	// a stable sort by database index interleaves the shards as one run
	// registered them.
	byIndex := func(a, b indexed) int {
		switch {
		case a.idx < b.idx:
			return -1
		case a.idx > b.idx:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(global, byIndex)
	slices.SortStableFunc(domains, byIndex)

	m := first.Model
	e := &engine{
		h: &plan7.HMM{Name: m.Name, Acc: m.Acc, Desc: m.Desc, HasAcc: m.HasAcc, HasDesc: m.HasDesc,
			HasStats: m.HasStat, Mu: m.Mu, Lambda: m.Lambda, M: m.M},
		th:   thresholds{globE: first.GlobE, globT: first.GlobT, domE: first.DomE, domT: first.DomT, Z: first.Z},
		opt:  o,
		hist: hist,
		nseq: first.NSeq,
	}
	for _, g := range global {
		e.ghit.register(g.h)
	}
	for _, d := range domains {
		e.dhit.register(d.h)
	}
	var buf bytes.Buffer
	writeHeader(&buf, o, m.Name, e.th, o.Autocut)
	e.writeReport(&buf)
	return buf.Bytes(), nil
}
