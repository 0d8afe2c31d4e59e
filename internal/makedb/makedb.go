// Package makedb is `hmmgo makedb`: it turns a sequence file (FASTA,
// EMBL/UniProt, GenBank; plain or gzip'd) into a pre-formatted database
// (package seqdb) that hmmgo's searches read without parsing.
package makedb

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/cli"
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

Reads <seqfile> (FASTA, EMBL/UniProt or GenBank, plain or gzip'd; "-" is
standard input) with hmmsearch's rules and writes the pre-formatted
database <dbfile>, which hmmgo hmmsearch accepts wherever it accepts
FASTA. The format is described in docs/seqdb-format.md.

options:
  --alphabet A   amino (default), dna, rna, or auto: guess from the first
                 sequence as Easel does. Searches need a model of the same
                 alphabet.
`

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("makedb", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	alpha := fs.String("alphabet", "amino", "")
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
	if len(files) != 2 {
		fmt.Fprintf(env.Stderr, "hmmgo makedb: expected <seqfile> <dbfile>, got %d arguments\n%s", len(files), usage)
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
	if files[1] == "-" {
		fmt.Fprintln(env.Stderr, "hmmgo makedb: the database must be a file, not standard output")
		return 2
	}
	if err := Make(env, files[0], files[1], abc); err != nil {
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
