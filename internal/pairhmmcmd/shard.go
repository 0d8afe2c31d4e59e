package pairhmmcmd

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/pairhmm"
)

// recordSource yields records; the whole input, or one shard's part of it.
type recordSource interface {
	Next() (*pairhmm.Group, error)
}

// shardPart is a --shard run: a contiguous run of about 1/N of the
// input's DP cells. The unit is a read of a record with the lines format
// (a read's likelihoods are consecutive lines) and a whole record with the
// matrix format (a record's "R H" line heads its values). Results are in
// input order, so the shards' outputs concatenated in shard order are the
// unsharded output.
type shardPart struct {
	spec       shard.Spec
	out        string
	perRead    bool
	first, end int // units [first, end)
	total      int
	totalCells int64
	args       []string
	input      string
	payload    bytes.Buffer
}

// planShard reads --shard/--shard-out; with --shard it reads the input
// once to weigh every unit by its cells and picks this shard's run.
func planShard(fs *flag.FlagSet, spec, out, input, format string) (*shardPart, error) {
	if spec == "" {
		if out != "" {
			return nil, &cli.UsageError{Msg: "--shard-out needs --shard i/N"}
		}
		return nil, nil
	}
	sp, err := shard.Parse(spec)
	if err != nil {
		return nil, &cli.UsageError{Msg: err.Error()}
	}
	if out == "" {
		return nil, &cli.UsageError{Msg: fmt.Sprintf("--shard %s needs --shard-out FILE (the part, for hmmgo merge)", sp)}
	}
	if input == "-" {
		return nil, &cli.UsageError{Msg: "--shard needs an input file, not standard input (every shard reads the whole file)"}
	}
	p := &shardPart{spec: sp, out: out, input: input, perRead: format == "lines"}
	// The command line without the shard options, in a canonical form.
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "shard" && f.Name != "shard-out" {
			p.args = append(p.args, "-"+f.Name+"="+f.Value.String())
		}
	})
	p.args = append(p.args, "--", input)

	f, err := os.Open(input)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rr, err := pairhmm.NewRecordReader(f, input)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	var weights []int64
	for {
		g, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if p.perRead {
			var hl int64
			for _, h := range g.Haplotypes {
				hl += int64(len(h))
			}
			for _, r := range g.Reads {
				weights = append(weights, int64(len(r.Bases))*hl)
			}
		} else {
			weights = append(weights, g.Cells())
		}
		p.totalCells += g.Cells()
	}
	p.total = len(weights)
	p.first, p.end = shard.Contiguous(weights, sp)
	return p, nil
}

func (p *shardPart) unit() string {
	if p.perRead {
		return "reads"
	}
	return "records"
}

// records yields the shard's part of rr (which reads the whole input):
// records, or with perRead the records cut down to the shard's reads.
func (p *shardPart) records(rr *pairhmm.RecordReader) recordSource {
	return &recordRange{rr: rr, first: p.first, end: p.end, perRead: p.perRead, path: p.input}
}

type recordRange struct {
	rr         *pairhmm.RecordReader
	first, end int
	perRead    bool
	n          int // units before the next record
	path       string
}

func (r *recordRange) Next() (*pairhmm.Group, error) {
	for r.n < r.end {
		g, err := r.rr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s has fewer records than when this shard was planned (did it change during the run?)", r.path)
		}
		if err != nil {
			return nil, err
		}
		units := 1
		if r.perRead {
			units = len(g.Reads)
		}
		lo, hi := max(r.first-r.n, 0), min(r.end-r.n, units)
		r.n += units
		if lo >= hi {
			continue
		}
		if r.perRead {
			g.Reads = g.Reads[lo:hi]
		}
		return g, nil
	}
	return nil, io.EOF
}

// output collects the shard's lines; Commit writes the shard file.
func (p *shardPart) output() output { return &shardOutput{p: p} }

type shardOutput struct{ p *shardPart }

func (o *shardOutput) Write(b []byte) (int, error) { return o.p.payload.Write(b) }
func (o *shardOutput) Abort()                      {}
func (o *shardOutput) Commit() error {
	p := o.p
	h := shard.Header{Command: "pairhmm", Shard: p.spec.Index, Of: p.spec.Count, Args: p.args,
		Inputs: []string{fmt.Sprintf("%s: %d cells; %d %s", p.input, p.totalCells, p.total, p.unit())},
		First:  int64(p.first), End: int64(p.end)}
	f, err := cli.CreateOutput(p.out, io.Discard)
	if err != nil {
		return err
	}
	if err := shard.Encode(f, h, p.payload.Bytes()); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", p.out, err)
	}
	return f.Commit()
}

// Merge writes the shards' results, in shard order, to the output the
// recorded command line names (hmmgo merge): the unsharded run's output.
func Merge(env cli.Env, files []*shard.File) error {
	outName := "-"
	for _, a := range files[0].Header.Args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "-o="); ok {
			outName = v
		}
	}
	var next int64
	for _, f := range files {
		if f.Header.First != next || f.Header.End < f.Header.First {
			return fmt.Errorf("%s holds units %d to %d, but the shards before it end at %d (shards of different plans?)",
				f.Path, f.Header.First, f.Header.End, next)
		}
		next = f.Header.End
	}
	in := files[0].Header.Inputs[0]
	var total int64
	if _, err := fmt.Sscanf(in[strings.LastIndex(in, "; ")+2:], "%d", &total); err != nil || next != total {
		return fmt.Errorf("the shards hold %d units of %s", next, in)
	}
	of, err := createOutput(outName, env.Stdout)
	if err != nil {
		return err
	}
	defer of.Abort()
	for _, f := range files {
		if _, err := of.Write(f.Payload); err != nil {
			return fmt.Errorf("writing %s: %w", outName, err)
		}
	}
	return of.Commit()
}
