package synthdb

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// Command is the `hmmgo synthdb` entry of the command table.
var Command = cli.Command{
	Name:    "synthdb",
	Summary: "write a deterministic synthetic protein database (FASTA), optionally with planted homologs",
	Run:     run,
}

const usage = `usage: hmmgo synthdb -n RESIDUES [options]

Writes a synthetic protein database in FASTA: background sequences with
Swiss-Prot's amino-acid composition and lognormal lengths (mean 360),
optionally with homologs sampled from profile HMMs planted inside random
flanks. The output depends only on the options and the seed, not on
--cpu or the machine. See docs/seqdb-format.md (synthdb section).

options:
  -n N              total residues, flanks and homologs included (required;
                    suffixes k, M, G multiply by 10^3, 10^6, 10^9: 175M)
  --seed N          random seed (default 1)
  -o FILE           write to FILE (atomically) instead of standard output
  --plant FILE      plant homologs of every model in this HMM file
  --per-model N     homologs per model (default 10)
  --plant-mode M    core: sample the core model, glocal, as hmmemit does by
                    default (default); local: one local fragment, as
                    hmmemit -p --unilocal
  --mean-length X   mean sequence length (default 360)
  --sigma X         standard deviation of log length (default 0.70)
  --min-length N    shortest background sequence (default 10)
  --max-length N    longest background sequence (default 36000)
  --width N         residues per line, 0 for one line per sequence (default 60)
  --cpu N           threads (default: all CPUs)
`

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("synthdb", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n := fs.String("n", "", "")
	seed := fs.Uint64("seed", 1, "")
	out := fs.String("o", "-", "")
	plant := fs.String("plant", "", "")
	perModel := fs.Int("per-model", 10, "")
	mode := fs.String("plant-mode", "core", "")
	mean := fs.Float64("mean-length", DefaultMeanLength, "")
	sigma := fs.Float64("sigma", DefaultSigma, "")
	minLen := fs.Int("min-length", DefaultMinLength, "")
	maxLen := fs.Int("max-length", DefaultMaxLength, "")
	width := fs.Int("width", DefaultWidth, "")
	cpu := fs.Int("cpu", 0, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
			return 0
		}
		fmt.Fprintf(env.Stderr, "hmmgo synthdb: %v\n%s", err, usage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "hmmgo synthdb: unexpected argument %q\n%s", fs.Arg(0), usage)
		return 2
	}
	if *n == "" {
		fmt.Fprintf(env.Stderr, "hmmgo synthdb: -n RESIDUES is required\n%s", usage)
		return 2
	}
	residues, err := ParseCount(*n)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hmmgo synthdb: -n: %v\n", err)
		return 2
	}
	pm, err := ParsePlantMode(*mode)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hmmgo synthdb: --plant-mode: %v\n", err)
		return 2
	}
	if *cpu < 0 {
		fmt.Fprintln(env.Stderr, "hmmgo synthdb: --cpu must not be negative")
		return 2
	}
	p := DefaultParams(residues, *seed)
	p.MeanLength, p.Sigma, p.MinLength, p.MaxLength, p.Width = *mean, *sigma, *minLen, *maxLen, *width
	p.PerModel, p.Mode, p.Threads = *perModel, pm, *cpu
	if *cpu > 0 {
		p.Threads = cli.Threads(*cpu)
	}
	if err := p.check(); err != nil {
		return cli.Fail(env, "synthdb", err)
	}
	if *plant != "" {
		if p.Models, err = readModels(*plant, env.Stdin); err != nil {
			return cli.Fail(env, "synthdb", err)
		}
	}
	if err := write(env, *out, p); err != nil {
		return cli.Fail(env, "synthdb", err)
	}
	return 0
}

func readModels(path string, stdin io.Reader) ([]*hmm.HMM, error) {
	r, err := hmm.OpenFile(path, stdin)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var models []*hmm.HMM
	for {
		h, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		// Checked here so that the message names the file, not the output.
		if err := checkProtein(h); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		models = append(models, h)
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("%s: no models to plant", path)
	}
	return models, nil
}

func write(env cli.Env, path string, p Params) error {
	o, err := cli.CreateOutput(path, env.Stdout)
	if err != nil {
		return err
	}
	defer o.Abort()
	w := bufio.NewWriterSize(o, 4<<20)
	if cli.IsTerminal(env.Stderr) {
		start, last := time.Now(), time.Now()
		p.Progress = func(done int64) {
			if time.Since(last) > 500*time.Millisecond {
				last = time.Now()
				fmt.Fprintf(env.Stderr, "\rhmmgo synthdb: %d MB written, %.0f MB/s ", done>>20, float64(done)/1e6/time.Since(start).Seconds())
			}
		}
		defer fmt.Fprintln(env.Stderr)
	}
	sum, err := Write(w, p)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := o.Commit(); err != nil {
		return err
	}
	if cli.IsTerminal(env.Stderr) {
		fmt.Fprintf(env.Stderr, "\rhmmgo synthdb: %d sequences (%d planted), %d residues, %d bytes", sum.Sequences, sum.Planted, sum.Residues, sum.Bytes)
	}
	return nil
}

// ParseCount reads a positive count with an optional decimal suffix:
// k or K (10^3), M (10^6), G (10^9).
func ParseCount(s string) (int64, error) {
	mult := int64(1)
	num := s
	if len(s) > 0 {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult, num = 1e3, s[:len(s)-1]
		case 'M':
			mult, num = 1e6, s[:len(s)-1]
		case 'G':
			mult, num = 1e9, s[:len(s)-1]
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || v < 1 || v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a positive count (e.g. 175000000 or 175M)", s)
	}
	return v * mult, nil
}
