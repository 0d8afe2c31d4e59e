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
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
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
	if err := Make(env, files[0], files[1], abc); err != nil {
		return cli.Fail(env, "makedb", err)
	}
	return 0
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

// Make converts seqfile into the database dbfile, atomically: on any
// error no file named dbfile appears.
func Make(env cli.Env, seqfile, dbfile string, abc *alphabet.Alphabet) error {
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
		if progress && n%4096 == 0 && time.Since(last) > 500*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(env.Stderr, "\rhmmgo makedb: %d sequences, %d residues, %.0f Mres/s ", n, nres, float64(nres)/1e6/time.Since(start).Seconds())
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
