// Package makedb is `hmmgo makedb`: it turns a sequence file (FASTA,
// EMBL/UniProt, GenBank; plain or gzip'd) into a pre-formatted database
// (package seqdb) that hmmgo's searches read without parsing.
package makedb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/gpudb"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/internal/redisdb"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

// Command is the `hmmgo makedb` entry of the command table.
var Command = cli.Command{
	Name:    "makedb",
	Summary: "pre-format a sequence database (.hmmgo: digital, indexed, memory-mapped, checksummed)",
	Run:     run,
}

const usage = `usage: hmmgo makedb [options] <seqfile> <dbfile>
       hmmgo makedb --redis URL [options] <fastafile> <NAME>
       hmmgo makedb --redis URL --delete <NAME>

Reads <seqfile> (FASTA, EMBL/UniProt or GenBank, plain or gzip'd; "-" is
standard input) with hmmsearch's rules and writes the pre-formatted
database <dbfile>, which hmmgo hmmsearch accepts wherever it accepts
FASTA. The format is described in docs/seqdb-format.md.

With --redis, stores the plain FASTA file <fastafile> in blocks in the
Redis server at URL under NAME, for queue workers started with
'hmmgo worker --redis URL --db redis:NAME' (docs/distributed.md). Storing
a NAME again replaces it once the new one is complete.

options:
  --alphabet A   amino (default), dna, rna, or auto: guess from the first
                 sequence as Easel does. Searches need a model of the same
                 alphabet.
  --gpu-layouts LIST  threads-per-target shapes whose GPU warp-block tables
                 are stored (planned once here instead of by every
                 hmmsearch --gpu run): comma-separated powers of two from
                 1 to 32, "all" (1,2,4,8,16,32) or "none" (no length order
                 either); default 1,4,8
  --redis URL    store in Redis: redis://[:password@]host:port[/db], or
                 rediss:// for TLS
  --block-residues N  with --redis: residues per block (default 8e6)
  --delete       with --redis: remove the stored database NAME
`

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("makedb", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	alpha := fs.String("alphabet", "amino", "")
	redisURL := fs.String("redis", "", "")
	del := fs.Bool("delete", false, "")
	blockResidues := fs.Float64("block-residues", 8e6, "")
	gpuLayouts := fs.String("gpu-layouts", "default", "")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(env.Stdout, usage)
				return 0
			}
			fmt.Fprintf(env.Stderr, "hmmgo makedb: %v\n%s", err, usage)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case *redisURL == "" && (*del || isSet(fs, "block-residues")):
		fmt.Fprintf(env.Stderr, "hmmgo makedb: --delete and --block-residues go with --redis URL\n%s", usage)
		return 2
	case *del && len(files) != 1:
		fmt.Fprintf(env.Stderr, "hmmgo makedb: --delete expects <NAME>, got %d arguments\n%s", len(files), usage)
		return 2
	case *del:
		return deleteStored(env, *redisURL, files[0])
	case *redisURL != "" && len(files) != 2:
		fmt.Fprintf(env.Stderr, "hmmgo makedb: expected <fastafile> <NAME>, got %d arguments\n%s", len(files), usage)
		return 2
	case len(files) != 2:
		fmt.Fprintf(env.Stderr, "hmmgo makedb: expected <seqfile> <dbfile>, got %d arguments\n%s", len(files), usage)
		return 2
	case *blockResidues < 1 || *blockResidues > 1e12:
		fmt.Fprintf(env.Stderr, "hmmgo makedb: --block-residues %g: want 1 to 1e12\n", *blockResidues)
		return 2
	}
	var abc *alphabet.Alphabet
	switch a := strings.ToLower(*alpha); a {
	case "auto":
		if files[0] == "-" {
			fmt.Fprintln(env.Stderr, "hmmgo makedb: --alphabet auto needs a file (standard input cannot be read twice)")
			return 2
		}
		t, err := guessAlphabet(files[0])
		if err != nil {
			return cli.Fail(env, "makedb", err)
		}
		abc = alphabet.New(t)
	default:
		t, ok := alphabet.ParseType(a)
		if !ok {
			fmt.Fprintf(env.Stderr, "hmmgo makedb: unknown --alphabet %q (want amino, dna, rna or auto)\n", *alpha)
			return 2
		}
		abc = alphabet.New(t)
	}
	if *redisURL != "" {
		if files[0] == "-" {
			fmt.Fprintln(env.Stderr, "hmmgo makedb: --redis needs the FASTA file itself (workers check blocks against its bytes), not standard input")
			return 2
		}
		if err := redisdb.CheckName(files[1]); err != nil {
			fmt.Fprintf(env.Stderr, "hmmgo makedb: %v\n", err)
			return 2
		}
		if err := storeInRedis(env, *redisURL, files[0], files[1], abc, int64(*blockResidues)); err != nil {
			return cli.Fail(env, "makedb", err)
		}
		return 0
	}
	if files[1] == "-" {
		fmt.Fprintln(env.Stderr, "hmmgo makedb: the database must be a file, not standard output")
		return 2
	}
	opt := Options{GPULayouts: gpudb.StandardThreads}
	if *gpuLayouts != "default" {
		ts, err := parseLayouts(*gpuLayouts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "hmmgo makedb: %v\n", err)
			return 2
		}
		opt.GPULayouts, opt.NoGPULayouts = ts, len(ts) == 0
	}
	if err := MakeWith(env, files[0], files[1], abc, opt); err != nil {
		return cli.Fail(env, "makedb", err)
	}
	return 0
}

// parseLayouts reads --gpu-layouts.
func parseLayouts(v string) ([]int, error) {
	switch v {
	case "none":
		return nil, nil
	case "all":
		return []int{1, 2, 4, 8, 16, 32}, nil
	}
	var ts []int
	seen := map[int]bool{}
	for _, f := range strings.Split(v, ",") {
		T, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || !gpudb.ValidThreads(T) {
			return nil, fmt.Errorf("--gpu-layouts %q: want powers of two from 1 to 32 (e.g. 1,4,8), all or none", v)
		}
		if !seen[T] {
			seen[T] = true
			ts = append(ts, T)
		}
	}
	return ts, nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// storeInRedis is makedb --redis: the blocks of a FASTA file stored in
// Redis as name (package redisdb).
func storeInRedis(env cli.Env, url, fasta, name string, abc *alphabet.Alphabet, blockResidues int64) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c, err := queue.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close()
	opt := redisdb.StoreOptions{BlockResidues: blockResidues}
	progress := cli.IsTerminal(env.Stderr)
	start := time.Now()
	if progress {
		opt.Progress = func(blocks int, seqs, res int64) {
			fmt.Fprintf(env.Stderr, "\rhmmgo makedb: %d blocks, %d sequences, %d residues stored ", blocks, seqs, res)
		}
	}
	m, err := redisdb.Store(ctx, c, name, fasta, abc, opt)
	if err != nil {
		if progress {
			fmt.Fprintln(env.Stderr)
		}
		return err
	}
	if progress {
		var bytes int64
		for _, b := range m.Blocks {
			bytes += b.Bytes
		}
		fmt.Fprintf(env.Stderr, "\rhmmgo makedb: %s stored as redis:%s at %s: %d sequences, %d residues (%s) in %d blocks, %.1f MB, in %.1f s\n",
			fasta, name, queue.Redact(url), m.Sequences, m.Residues, abc.Type, len(m.Blocks), float64(bytes)/1e6, time.Since(start).Seconds())
	}
	return nil
}

// deleteStored is makedb --redis URL --delete NAME.
func deleteStored(env cli.Env, url, name string) int {
	ctx := context.Background()
	c, err := queue.Connect(ctx, url)
	if err != nil {
		return cli.Fail(env, "makedb", err)
	}
	defer c.Close()
	if err := redisdb.Delete(ctx, c, name); err != nil {
		return cli.Fail(env, "makedb", err)
	}
	return 0
}

// Options tune MakeWith.
type Options struct {
	// GPULayouts are the threads-per-target shapes whose warp-block
	// tables are stored (gpudb.StandardThreads by default, when nil and
	// NoGPULayouts is not set).
	GPULayouts []int
	// NoGPULayouts stores no GPU plan at all (neither the length order
	// nor tables): the file as makedb wrote it before they existed.
	NoGPULayouts bool
}

// Make converts seqfile into the database dbfile, atomically: on any
// error no file named dbfile appears. The GPU layouts of the standard
// shapes are planned and stored.
func Make(env cli.Env, seqfile, dbfile string, abc *alphabet.Alphabet) error {
	return MakeWith(env, seqfile, dbfile, abc, Options{})
}

// MakeWith is Make with options.
func MakeWith(env cli.Env, seqfile, dbfile string, abc *alphabet.Alphabet, opt Options) error {
	layouts := opt.GPULayouts
	if layouts == nil && !opt.NoGPULayouts {
		layouts = gpudb.StandardThreads
	}
	if opt.NoGPULayouts {
		layouts = nil
	}
	if err := cli.NotAnInput(dbfile, seqfile); err != nil {
		return err
	}
	r, err := seqio.Open(seqfile, env.Stdin, abc)
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := cli.CreateOutput(dbfile, env.Stdout)
	if err != nil {
		return err
	}
	defer out.Abort()
	w, err := seqdb.NewWriter(out, abc, seqdb.Options{
		TempDir: filepath.Dir(dbfile),
		Meta:    []string{"source=" + seqfile, "source-format=" + r.Format().String(), "made-by=hmmgo makedb"},
	})
	if err != nil {
		return err
	}
	defer w.Abort()
	progress := cli.IsTerminal(env.Stderr)
	start, last := time.Now(), time.Now()
	var sq seqio.Sequence
	var nres int64
	var lens []uint32 // for the GPU plan
	for n := 1; ; n++ {
		err := r.ReadInto(&sq)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := w.Add(&sq); err != nil {
			return fmt.Errorf("writing %s: %w", dbfile, err)
		}
		nres += int64(len(sq.Dsq))
		if layouts != nil && len(sq.Dsq) >= 1<<32 {
			layouts = nil // block tables hold lengths in 32 bits: no plan
		}
		if layouts != nil {
			lens = append(lens, uint32(len(sq.Dsq)))
		}
		if progress && n%4096 == 0 && time.Since(last) > 500*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(env.Stderr, "\rhmmgo makedb: %d sequences, %d residues, %.0f Mres/s ", n, nres, float64(nres)/1e6/time.Since(start).Seconds())
		}
	}
	if layouts != nil && len(lens) < 1<<32 { // tables number targets in 32 bits
		if err := gpudb.AddStoredPlan(w, lens, layouts); err != nil {
			return fmt.Errorf("writing %s: %w", dbfile, err)
		}
	}
	st, err := w.Close()
	if err != nil {
		return fmt.Errorf("writing %s: %w", dbfile, err)
	}
	if st.Sequences == 0 {
		return fmt.Errorf("%s: no sequences", seqfile)
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if progress {
		fmt.Fprintf(env.Stderr, "\rhmmgo makedb: %d sequences, %d residues (%s), longest %d: %s in %.1f s\n",
			st.Sequences, st.Residues, abc.Type, st.MaxLength, dbfile, time.Since(start).Seconds())
	}
	return nil
}
