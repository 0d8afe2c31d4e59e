package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/papara/core"
)

// shardPayload is the body of a papara shard file: the alignments of the
// shard's reads (indices into the run's reads, in order), which the merge
// needs whole because the inserted columns depend on every read.
type shardPayload struct {
	Reads      int // reads of the whole run
	Keep       []int
	Placements []core.Placement
	Traces     [][]uint8
}

// runShard aligns the reads of one shard (length-interleaved, so shards
// take equal time) and writes them to the shard file instead of the
// outputs; hmmgo merge writes the outputs of the whole run.
func runShard(env cli.Env, o *options, fs *flag.FlagSet, prep *core.Prepared, opt core.Options) error {
	spec, err := shard.Parse(o.shard)
	if err != nil {
		return &cli.UsageError{Msg: err.Error()}
	}
	if o.shardOut == "" {
		return &cli.UsageError{Msg: fmt.Sprintf("--shard %s needs --shard-out FILE (the part, for hmmgo merge)", spec)}
	}
	lengths := make([]int64, len(prep.Queries))
	for i, q := range prep.Queries {
		lengths[i] = int64(len(q.CStates))
	}
	p := shardPayload{Reads: len(prep.Queries)}
	for _, q := range shard.Interleaved(lengths, spec) {
		p.Keep = append(p.Keep, int(q))
	}
	if len(p.Keep) > 0 {
		res, err := core.Run(prep.Part(p.Keep), opt)
		if err != nil {
			return err
		}
		p.Placements, p.Traces = res.Placements, res.Traces()
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&p); err != nil {
		return err
	}
	inputs, err := inputPrints(o)
	if err != nil {
		return err
	}
	h := shard.Header{Command: name, Shard: spec.Index, Of: spec.Count, Inputs: inputs}
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "shard" && f.Name != "shard-out" {
			h.Args = append(h.Args, "-"+f.Name+"="+f.Value.String())
		}
	})
	out, err := cli.CreateOutput(o.shardOut, env.Stdout)
	if err != nil {
		return err
	}
	if err := shard.Encode(out, h, buf.Bytes()); err != nil {
		out.Abort()
		return fmt.Errorf("writing %s: %w", o.shardOut, err)
	}
	return out.Commit()
}

// inputPrints names the input files with their SHA-256, so that a merge
// never combines shards of different inputs, nor renders them against an
// input that changed since.
func inputPrints(o *options) ([]string, error) {
	var out []string
	for _, p := range []string{o.tree, o.alignment, o.reads} {
		if p == "" {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		out = append(out, p+" sha256:"+hex.EncodeToString(h.Sum(nil)))
	}
	return out, nil
}

// exitStatus carries the status of a merge whose error the command has
// already printed.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e exitStatus) ExitCode() int { return int(e) }

// Merge writes the outputs of the whole run from a complete set of papara
// shard files (hmmgo merge): it reads the recorded inputs again (they
// must be unchanged), takes every read's alignment from its shard and
// writes the alignment, placements and log as one unsharded run does.
func Merge(env cli.Env, files []*shard.File) error {
	if code := runWith(env, files[0].Header.Args, files); code != 0 {
		return exitStatus(code)
	}
	return nil
}

// assembleShards puts the shards' alignments back in read order.
func assembleShards(o *options, prep *core.Prepared, files []*shard.File) (*core.Result, error) {
	inputs, err := inputPrints(o)
	if err != nil {
		return nil, err
	}
	if fmt.Sprint(inputs) != fmt.Sprint(files[0].Header.Inputs) {
		return nil, fmt.Errorf("the inputs changed since the shards ran (now %v, then %v)", inputs, files[0].Header.Inputs)
	}
	n := len(prep.Queries)
	placements := make([]core.Placement, n)
	traces := make([][]uint8, n)
	from := make([]string, n)
	for _, f := range files {
		var p shardPayload
		if err := gob.NewDecoder(bytes.NewReader(f.Payload)).Decode(&p); err != nil {
			return nil, fmt.Errorf("%s: cannot decode the shard's alignments: %v", f.Path, err)
		}
		if p.Reads != n || len(p.Placements) != len(p.Keep) || len(p.Traces) != len(p.Keep) {
			return nil, fmt.Errorf("%s: holds %d alignments of a run of %d reads, not of this run's %d", f.Path, len(p.Keep), p.Reads, n)
		}
		for i, q := range p.Keep {
			if q < 0 || q >= n {
				return nil, fmt.Errorf("%s: read number %d out of range", f.Path, q)
			}
			if from[q] != "" {
				return nil, fmt.Errorf("read %s is in both %s and %s", prep.Queries[q].Name, from[q], f.Path)
			}
			from[q] = f.Path
			placements[q], traces[q] = p.Placements[i], p.Traces[i]
		}
	}
	for q, f := range from {
		if f == "" {
			return nil, fmt.Errorf("no shard holds read %s", prep.Queries[q].Name)
		}
	}
	return core.Assemble(prep, placements, traces)
}
