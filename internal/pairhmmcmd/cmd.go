// Package pairhmmcmd is the `hmmgo pairhmm` subcommand: GATK's pair-HMM
// likelihoods for files in the PairHMM / gpuPairHMM record format.
package pairhmmcmd

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/pairhmm"
)

// Command is the table entry for cmd/hmmgo.
var Command = cli.Command{
	Name:    "pairhmm",
	Summary: "GATK HaplotypeCaller pair-HMM read/haplotype log10 likelihoods",
	Run:     run,
}

const usage = `usage: hmmgo pairhmm [options] input

Reads records "R H" + R read lines (bases, base/insertion/deletion/gap-
continuation qualities as Phred+33) + H haplotype lines; input may be
gzip'd; "-" reads standard input. Writes the log10 likelihood of every
read given every haplotype, read-major, as GATK computes it (float pass,
double recomputation under 1e-28).

options:
  -o FILE          write to FILE (atomically) instead of standard output
  --format F       lines: one value per line, 6 significant digits, like
                   the PairHMM .out files (default);
                   matrix: per record the "R H" line then R lines of H
                   values with 5 decimals, like gpuPairHMM's output
  --threads N      CPU threads (default: all cores)
  --kernel K       CPU float kernel: auto (default), go, avx2
`

// chunkCells bounds how much input is held at once: records are read,
// scored and written in chunks of about this many DP cells.
const chunkCells = 1 << 28

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("pairhmm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "-", "")
	format := fs.String("format", "lines", "")
	threads := fs.Int("threads", 0, "")
	kernel := fs.String("kernel", "auto", "")
	// Options may come before or after the input name.
	var inputs []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(env.Stdout, usage)
				return 0
			}
			fmt.Fprintf(env.Stderr, "hmmgo pairhmm: %v\n%s", err, usage)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		inputs = append(inputs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(inputs) != 1 {
		fmt.Fprintf(env.Stderr, "hmmgo pairhmm: expected one input file, got %d\n%s", len(inputs), usage)
		return 2
	}
	if *format != "lines" && *format != "matrix" {
		fmt.Fprintf(env.Stderr, "hmmgo pairhmm: unknown --format %q (want lines or matrix)\n", *format)
		return 2
	}
	if *threads < 0 {
		fmt.Fprintf(env.Stderr, "hmmgo pairhmm: --threads must be positive\n")
		return 2
	}
	backend := pairhmm.NewCPU(pairhmm.CPUOptions{Threads: *threads, Kernel: *kernel})
	if err := process(env, inputs[0], *out, *format, backend); err != nil {
		return cli.Fail(env, "pairhmm", err)
	}
	return 0
}

func process(env cli.Env, inName, outName, format string, backend pairhmm.Backend) error {
	var in io.Reader = env.Stdin
	if inName != "-" {
		f, err := os.Open(inName)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	rr, err := pairhmm.NewRecordReader(in, inName)
	if err != nil {
		return err
	}
	defer rr.Close()
	of, err := createOutput(outName, env.Stdout)
	if err != nil {
		return err
	}
	defer of.Abort()
	w := bufio.NewWriterSize(of, 1<<20)
	progress := cli.IsTerminal(env.Stderr)
	var done int64
	for {
		chunk, err := readChunk(rr)
		if len(chunk) > 0 {
			res, cerr := pairhmm.ComputeGroups(chunk, pairhmm.Options{Backend: backend})
			if cerr != nil {
				return cerr
			}
			writeResults(w, chunk, res, format)
			for i := range chunk {
				done += int64(chunk[i].Pairs())
			}
			if progress {
				fmt.Fprintf(env.Stderr, "\rhmmgo pairhmm: %d pairs", done)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if progress {
		fmt.Fprintln(env.Stderr)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", outName, err)
	}
	return of.Commit()
}

// output is where results go: an atomic file (cli.OutputFile), or a
// device or pipe written in place.
type output interface {
	io.Writer
	Commit() error
	Abort()
}

// createOutput opens the output. A path that names an existing device or
// pipe (/dev/null, /dev/stdout, a FIFO) is written directly: the atomic
// temporary-file-and-rename of cli.OutputFile would create a file in /dev
// and rename it over the device.
func createOutput(path string, stdout io.Writer) (output, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &deviceOutput{f}, nil
	}
	return cli.CreateOutput(path, stdout)
}

type deviceOutput struct{ *os.File }

func (d *deviceOutput) Commit() error { return d.Close() }
func (d *deviceOutput) Abort()        { d.Close() }

// readChunk reads records until about chunkCells cells are held.
func readChunk(rr *pairhmm.RecordReader) ([]pairhmm.Group, error) {
	var chunk []pairhmm.Group
	var cells int64
	for cells < chunkCells {
		g, err := rr.Next()
		if err != nil {
			return chunk, err
		}
		chunk = append(chunk, *g)
		cells += g.Cells()
	}
	return chunk, nil
}

func writeResults(w *bufio.Writer, groups []pairhmm.Group, res [][]float64, format string) {
	var buf []byte
	for g := range groups {
		nh := len(groups[g].Haplotypes)
		if format == "matrix" {
			buf = strconv.AppendInt(buf[:0], int64(len(groups[g].Reads)), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(nh), 10)
			buf = append(buf, '\n')
			w.Write(buf)
			for r := range groups[g].Reads {
				buf = buf[:0]
				for h := 0; h < nh; h++ {
					if h > 0 {
						buf = append(buf, ' ')
					}
					buf = AppendFixed5(buf, res[g][r*nh+h])
				}
				buf = append(buf, '\n')
				w.Write(buf)
			}
			continue
		}
		for _, v := range res[g] {
			buf = AppendCout(buf[:0], v)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	}
}
