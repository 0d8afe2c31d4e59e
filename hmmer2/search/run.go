// Package search is `hmmgo hmm2search`: HMMER 2.3.2's hmmsearch, which
// scores every sequence of a database with the full Plan 7 Viterbi
// algorithm, parses significant hits into domains, corrects their
// scores with the null2 model and prints hmmsearch's text report, byte
// for byte. Scores come from a batch Scorer (the ClawHMMER design:
// length-sorted batches, one sequence per lane, traceback on the CPU
// only for hits).
package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/sqio"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// Command is the `hmmgo hmm2search` entry of the command table.
var Command = cli.Command{
	Name:    "hmm2search",
	Summary: "search a sequence database with a HMMER2 profile HMM (HMMER 2.3.2 hmmsearch)",
	Run:     Run,
}

// NewScorer makes the Viterbi back end for a profile; a GPU build can
// replace it. workers is the number of CPU goroutines wanted.
var NewScorer = func(p *plan7.Profile, workers int) (viterbi.Scorer, error) {
	return viterbi.NewCPUScorer(p, workers), nil
}

// Run parses arguments and runs the search, returning the exit status.
func Run(env cli.Env, args []string) int {
	o, err := ParseOptions(args)
	if err == errHelp {
		writeBanner(env.Stdout)
		fmt.Fprint(env.Stdout, usage+"\n")
		fmt.Fprint(env.Stdout, experts+"\n")
		fmt.Fprint(env.Stdout, hmmgoExtras)
		fmt.Fprint(env.Stdout, distributedOptions)
		return 0
	}
	var ue *cli.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "hmmgo hmm2search: %s\n", ue.Msg)
		return 2
	}
	if err != nil {
		return cli.Fail(env, "hmm2search", err)
	}
	if err := Search(env, o); err != nil {
		if errors.As(err, &ue) {
			fmt.Fprintf(env.Stderr, "hmmgo hmm2search: %s\n", ue.Msg)
			return 2
		}
		return cli.Fail(env, "hmm2search", err)
	}
	return 0
}

// openHMM opens the model file, looking in $HMMERDB when it is not
// found as given (HMMER2's convention).
func openHMM(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err == nil {
		return f, nil
	}
	if !filepath.IsAbs(path) {
		for _, dir := range strings.Split(os.Getenv("HMMERDB"), ":") {
			if dir == "" {
				continue
			}
			if f2, err2 := os.Open(filepath.Join(dir, path)); err2 == nil {
				return f2, nil
			}
		}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return nil, fmt.Errorf("cannot open HMM file %s: %v", path, err)
}

// Search runs one search and writes the report to env.Stdout or to the
// -o file. Nothing is written unless the whole search succeeds.
func Search(env cli.Env, o *Options) error {
	format := sqio.Unknown
	if o.Informat != "" {
		f, ok := sqio.ParseFormat(o.Informat)
		if !ok {
			return &cli.UsageError{Msg: fmt.Sprintf("unrecognized sequence file format %q", o.Informat)}
		}
		format = f
	}
	// Like hmm2search, open the database before the model, so that a
	// missing database is reported first.
	var plan *shardPlan
	if o.Shard != nil {
		p, err := planShard(o, format, env.Stdin)
		if err != nil {
			return err
		}
		plan = p
	}
	rd, err := sqio.Open(o.SeqFile, format, env.Stdin, "BLASTDB")
	if err != nil {
		return err
	}
	defer rd.Close()

	hf, err := openHMM(o.HMMFile)
	if err != nil {
		return err
	}
	h, err := plan7.NewReader(hf, o.HMMFile).Next()
	hf.Close()
	if err == io.EOF {
		return fmt.Errorf("%s: no HMM in file", o.HMMFile)
	}
	if err != nil {
		return err
	}
	p := h.Logoddsify(!o.Forward)

	th := thresholds{globE: o.GlobE, globT: o.GlobT, domE: o.DomE, domT: o.DomT, Z: o.Z}
	if o.Autocut != cutNone {
		var c [2]float32
		var ok bool
		switch o.Autocut {
		case cutGA:
			c, ok = h.GA, h.HasGA
		case cutNC:
			c, ok = h.NC, h.HasNC
		case cutTC:
			c, ok = h.TC, h.HasTC
		}
		if !ok {
			return fmt.Errorf("HMM %s did not contain the GA, TC, or NC cutoffs you needed", h.Name)
		}
		th.globT, th.domT = c[0], c[1]
		th.globE, th.domE = math.MaxFloat32, math.MaxFloat32
	}

	workers := o.CPU
	if !o.cpuSet || workers <= 0 {
		workers = 0
	}
	scorer, err := newScorer(env.Stderr, o, p, workers)
	if err != nil {
		return err
	}
	defer scorer.Close()
	e := newEngine(h, p, th, o, scorer)
	if plan != nil {
		e.sharded, e.keep, e.planned = true, plan.keep, plan.count
		e.hitIdx = make(map[*hit]int64)
	}
	if cli.IsTerminal(env.Stderr) {
		e.progress = func(n int) { fmt.Fprintf(env.Stderr, "\rhmm2search: %d sequences searched", n) }
	}
	if err := e.run(rd); err != nil {
		return err
	}
	if e.progress != nil {
		fmt.Fprintln(env.Stderr)
	}
	if plan != nil {
		if plan.nonEmpty == 0 {
			return errNoResidues(o)
		}
		sum, err := fileSHA256(o.HMMFile)
		if err != nil {
			return err
		}
		return writeShard(env, o, e, th, plan, sum)
	}
	if e.nseq == 0 || e.hist.total == 0 {
		return errNoResidues(o)
	}
	var buf bytes.Buffer
	writeHeader(&buf, o, h.Name, th, o.Autocut)
	e.writeReport(&buf)
	return writeOutput(env, o, buf.Bytes())
}

// errNoResidues is the error for a database without residues, where
// hmm2search itself crashes (segmentation fault).
func errNoResidues(o *Options) error {
	return fmt.Errorf("%s: no non-empty sequences to search", o.SeqFile)
}

// writeOutput writes a finished report to -o (atomically) or stdout.
func writeOutput(env cli.Env, o *Options, report []byte) error {
	dest := o.Output
	if dest == "" {
		dest = "-"
	}
	out, err := cli.CreateOutput(dest, env.Stdout)
	if err != nil {
		return err
	}
	if _, err := out.Write(report); err != nil {
		out.Abort()
		return fmt.Errorf("writing report: %v", err)
	}
	return out.Commit()
}
