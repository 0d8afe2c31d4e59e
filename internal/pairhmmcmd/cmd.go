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
	"strings"
	"sync/atomic"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
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
  --kernel K       CPU float kernel: auto (default), go, avx2, avx512
  --arith A        gkl (default): GKL's arithmetic, GATK's numbers to the
                   bit; fused: the same model with fused multiply-adds
                   (8 operations a cell instead of 12, faster on the GPU),
                   within 1e-4 of GATK's model but not GKL's last bits;
                   every --kernel computes it
  --gpu [N|0,2|all] use GPUs (an error when none is usable); default: the
                   first usable GPU, announced on stderr, else the CPU
  --nogpu          never use a GPU (also --cpu-only)
  --verbose        print the backend and its counters on stderr at the end
  --shard i/N      compute only part i of N (1-based) of the input: a run
                   of about 1/N of the DP cells (whole reads; with
                   --format matrix, whole records)
  --shard-out FILE with --shard: write the part to FILE for 'hmmgo merge'
                   (which writes what one unsharded run writes)

Results are identical on the CPU and the GPU, bit for bit (in either
arithmetic).
`

// Records are read, scored and written in chunks, so memory stays bounded
// on any input: about cpuChunkCells DP cells for the CPU; for a GPU larger
// chunks (gpuChunkCells, a few milliseconds of its work) keep it busy
// between chunks. Reading the next chunk overlaps scoring the current one.
const (
	cpuChunkCells   = 1 << 28
	gpuChunkCells   = 1 << 34
	firstChunkCells = 1 << 28
	chunkPairs      = 1 << 22
	// While a GPU is being set up, reading runs ahead by up to earlyCells
	// cells in up to earlyChunks chunks (the first few, which double in
	// size from firstChunkCells).
	earlyCells  = 1 << 33
	earlyChunks = 8
)

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("pairhmm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "-", "")
	format := fs.String("format", "lines", "")
	threads := fs.Int("threads", 0, "")
	kernel := fs.String("kernel", "auto", "")
	arithName := fs.String("arith", "gkl", "")
	verbose := fs.Bool("verbose", false, "")
	shardSpec := fs.String("shard", "", "")
	shardOut := fs.String("shard-out", "", "")
	var gpu devices.Request
	gpu.AddFlags(fs)
	args = devices.NormalizeArgs(args)
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
	arith, err := pairhmm.ParseArith(*arithName)
	if err != nil {
		fmt.Fprintf(env.Stderr, "hmmgo pairhmm: --arith: %v\n", err)
		return 2
	}
	if *threads < 0 {
		fmt.Fprintf(env.Stderr, "hmmgo pairhmm: --threads must be positive\n")
		return 2
	}
	part, err := planShard(fs, *shardSpec, *shardOut, inputs[0], *format)
	if err != nil {
		var ue *cli.UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(env.Stderr, "hmmgo pairhmm: %v\n", err)
			return 2
		}
		return cli.Fail(env, "pairhmm", err)
	}
	start := time.Now()
	if *verbose {
		cuda.EnableCallTimes() // before the driver loads: the set-up is what matters
	}
	pb, err := chooseBackend(env, gpu, *threads, *kernel, arith)
	if err != nil {
		var ue *cli.UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(env.Stderr, "hmmgo pairhmm: %v\n", err)
			return 2
		}
		return cli.Fail(env, "pairhmm", err)
	}
	defer func() {
		if b, _ := pb.wait(); b != nil {
			if c, ok := b.(io.Closer); ok {
				c.Close()
			}
		}
	}()
	if err := process(env, inputs[0], *out, *format, pb, part); err != nil {
		return cli.Fail(env, "pairhmm", err)
	}
	if *verbose {
		backend, _ := pb.wait()
		pb.processT = time.Since(start)
		name := backend.Name() // before Close, which forgets the devices
		if c, ok := backend.(io.Closer); ok {
			t0 := time.Now()
			c.Close() // the deferred Close then has nothing left to do
			pb.closeT = time.Since(t0)
		}
		report(env.Stderr, name, backend, pb, time.Since(start))
	}
	return 0
}

// pendingBackend is the backend being set up. A GPU's set-up (driver,
// context, kernel modules, tables: about a quarter of a second on an H100
// host, most of it the driver's) runs while the input is read.
type pendingBackend struct {
	done    chan struct{}
	backend pairhmm.Backend
	err     error
	gpu     bool          // a GPU may be used (chunk sizes)
	cpu     atomic.Bool   // it runs on the CPU after all
	selectT time.Duration // choosing the devices (driver and NVRTC loaded)
	setupT  time.Duration // pairhmm.NewGPU

	// For --verbose, times since the command started: the backend ready,
	// the first chunk read, and the results written; and the time spent
	// waiting for the backend, computing, and closing it.
	start                       time.Time
	readyAt, firstReadAt        time.Duration
	waitT, computeT             time.Duration
	processT, closeT, totalRead time.Duration
}

func (pb *pendingBackend) wait() (pairhmm.Backend, error) {
	<-pb.done
	return pb.backend, pb.err
}

// ready reports whether wait would return at once.
func (pb *pendingBackend) ready() bool {
	select {
	case <-pb.done:
		return true
	default:
		return false
	}
}

// chunkCells is the most cells a chunk may hold: small at first, so that
// a GPU starts while the rest of the input is read, doubling to the
// backend's chunk size.
func (pb *pendingBackend) chunkCells(prev int64) int64 {
	limit := int64(cpuChunkCells)
	if pb.gpu && !pb.cpu.Load() {
		limit = gpuChunkCells
	}
	if prev == 0 {
		return min(limit, firstChunkCells)
	}
	return min(limit, 2*prev)
}

// chooseBackend applies the --gpu policy (gpu/devices) and starts setting
// up the backend. A GPU that is present but cannot be set up (e.g. the
// kernels do not compile) is an error with --gpu and a note before
// falling back to the CPU without it. Unless the command line rules the
// GPU out, choosing the devices (loading the driver and NVRTC, about a
// tenth of a second) runs in the background too, so that reading starts
// at once; an unusable --gpu request is reported by wait.
func chooseBackend(env cli.Env, gpu devices.Request, threads int, kernel string, arith pairhmm.Arith) (*pendingBackend, error) {
	pb := &pendingBackend{done: make(chan struct{}), start: time.Now()}
	if err := gpu.Conflict(); err != nil {
		return nil, err
	}
	cpu := pairhmm.NewCPU(pairhmm.CPUOptions{Threads: threads, Kernel: kernel, Arith: arith})
	if gpu.CPUOnly() {
		pb.cpu.Store(true)
		pb.backend = cpu
		close(pb.done)
		return pb, nil
	}
	pb.gpu = true
	go func() {
		defer close(pb.done)
		defer func() { pb.readyAt = time.Since(pb.start) }()
		t0 := time.Now()
		devs, err := devices.Select(env.Stderr, "pairhmm", gpu, devices.Needs{})
		pb.selectT = time.Since(t0)
		switch {
		case err != nil:
			pb.cpu.Store(true)
			pb.err = err
			return
		case len(devs) == 0:
			pb.cpu.Store(true)
			pb.backend = cpu
			return
		}
		t0 = time.Now()
		g, err := pairhmm.NewGPU(devs, pairhmm.GPUOptions{Threads: threads, Kernel: kernel, Arith: arith})
		pb.setupT = time.Since(t0)
		switch {
		case err == nil:
			pb.backend = g
		case gpu.Mode == devices.Require:
			pb.err = err
		default:
			fmt.Fprintf(env.Stderr, "hmmgo pairhmm: the GPU cannot be used (%v); running on the CPU\n", err)
			pb.cpu.Store(true)
			pb.backend = cpu
		}
	}()
	return pb, nil
}

// report prints what ran, for --verbose: the backend, the command's
// timeline, and for a GPU its set-up step by step, the driver and NVRTC
// calls that took longest, and the counters of the work.
func report(w io.Writer, name string, backend pairhmm.Backend, pb *pendingBackend, wall time.Duration) {
	fmt.Fprintf(w, "hmmgo pairhmm: %s; wall time %.3f s\n", name, wall.Seconds())
	g, ok := backend.(*pairhmm.GPU)
	if !ok {
		return
	}
	fmt.Fprintf(w, "hmmgo pairhmm: set-up: devices %.1f ms, GPU backend %.1f ms (kernel modules %.1f ms; overlapped with reading)\n",
		ms(pb.selectT), ms(pb.setupT), ms(g.Stats().ModuleTime))
	fmt.Fprintf(w, "hmmgo pairhmm: timeline (ms from start): backend ready %.1f, first chunk read %.1f, all read %.1f, scored and written %.1f;"+
		" waited for the backend %.1f, scoring %.1f, closing the backend %.1f\n",
		ms(pb.readyAt), ms(pb.firstReadAt), ms(pb.totalRead), ms(pb.processT), ms(pb.waitT), ms(pb.computeT), ms(pb.closeT))
	var steps []string
	for _, st := range g.Setup() {
		steps = append(steps, fmt.Sprintf("%s %.1f", st.Name, ms(st.Time)))
	}
	fmt.Fprintf(w, "hmmgo pairhmm: GPU backend steps (ms): %s\n", strings.Join(steps, ", "))
	var calls []string
	for i, c := range cuda.CallTimes() {
		if i == 12 || c.Total < 100*time.Microsecond {
			break
		}
		calls = append(calls, fmt.Sprintf("%s %.1f (%d)", c.Name, ms(c.Total), c.Calls))
	}
	fmt.Fprintf(w, "hmmgo pairhmm: slowest driver/NVRTC calls, ms (calls): %s\n", strings.Join(calls, ", "))
	st := g.Stats()
	tcups := 0.0
	if st.KernelTime > 0 {
		tcups = float64(st.Cells) / st.KernelTime.Seconds() / 1e12
	}
	fmt.Fprintf(w, "hmmgo pairhmm: GPU: %d pairs, %d cells in %d chunks, %.1f MB copied in; float kernels %.3f ms (%.3f TCUPS); "+
		"%d pairs recomputed in double, %d rescaled on the CPU; %d pairs of reads too long for the kernels on the CPU\n",
		st.Pairs, st.Cells, st.Chunks, float64(st.BytesIn)/1e6, st.KernelTime.Seconds()*1e3, tcups,
		st.DoublePairs, st.ScaledPairs, st.CPUPairs)
	fmt.Fprintf(w, "hmmgo pairhmm: GPU host work (ms): packing %.1f (growing buffers %.1f), finishing %.1f (double pass %.1f), long reads on the CPU %.1f\n",
		ms(st.PackTime), ms(st.AllocTime), ms(st.FinishTime), ms(st.DoubleTime), ms(st.CPUTime))
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// scored is one chunk with its results, or the error that ended reading.
type scored struct {
	groups []pairhmm.Group
	res    [][]float64
	err    error
}

func process(env cli.Env, inName, outName, format string, pb *pendingBackend, part *shardPart) error {
	if err := cli.NotAnInput(outName, inName); err != nil {
		return err
	}
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
	var records recordSource = rr
	var of output
	if part != nil {
		records, of = part.records(rr), part.output()
	} else if of, err = createOutput(outName, env.Stdout); err != nil {
		return err
	}
	defer of.Abort()
	w := bufio.NewWriterSize(of, 1<<20)
	progress := cli.IsTerminal(env.Stderr)
	// Three stages overlap: reading chunk i+1, scoring chunk i, writing
	// chunk i-1. Before the backend is ready, reading runs ahead through
	// early (up to earlyCells cells), and the chunks read by then are
	// scored as one batch, which a GPU pipelines by itself.
	stop := make(chan struct{})
	defer close(stop)
	early := make(chan scored, earlyChunks)
	read := make(chan scored, 1)
	go func() {
		defer close(read)
		out := early
		defer func() {
			if out == early {
				close(early)
			}
		}()
		var cells, ahead int64
		defer func() { pb.totalRead = time.Since(pb.start) }()
		for {
			cells = pb.chunkCells(cells)
			chunk, err := readChunk(records, cells)
			if pb.firstReadAt == 0 {
				pb.firstReadAt = time.Since(pb.start)
			}
			if out == early && (pb.ready() || ahead >= earlyCells || len(early) == cap(early)) {
				close(early)
				out = read
			}
			if len(chunk) > 0 || err != io.EOF {
				select {
				case out <- scored{groups: chunk, err: err}:
				case <-stop:
					return
				}
			}
			ahead += cells
			if err != nil {
				return
			}
		}
	}()
	written := make(chan scored, 1)
	writerDone := make(chan int64)
	go func() {
		var done int64
		for c := range written {
			writeResults(w, c.groups, c.res, format)
			for i := range c.groups {
				done += int64(c.groups[i].Pairs())
			}
			if progress {
				fmt.Fprintf(env.Stderr, "\rhmmgo pairhmm: %d pairs", done)
			}
		}
		writerDone <- done
	}()
	var failure error
	score := func(c scored) bool {
		if len(c.groups) > 0 {
			t0 := time.Now()
			backend, err := pb.wait()
			if err != nil {
				failure = err
				return false
			}
			t1 := time.Now()
			pb.waitT += t1.Sub(t0)
			res, err := pairhmm.ComputeGroups(c.groups, pairhmm.Options{Backend: backend})
			pb.computeT += time.Since(t1)
			if err != nil {
				failure = err
				return false
			}
			written <- scored{groups: c.groups, res: res}
		}
		if c.err != nil && c.err != io.EOF {
			failure = c.err
			return false
		}
		return true
	}
	ok := true
	for c := range early {
		if !ok {
			continue // let the reader move on to read, then stop it
		}
		pb.wait()
		// Everything read ahead meanwhile joins this batch.
		for more := true; more && c.err == nil; {
			select {
			case next, open := <-early:
				if !open {
					more = false
					break
				}
				c.groups = append(c.groups, next.groups...)
				c.err = next.err
			default:
				more = false
			}
		}
		ok = score(c)
	}
	for c := range read {
		if ok = ok && score(c); !ok {
			break
		}
	}
	if failure == nil {
		if _, err := pb.wait(); err != nil { // an unusable --gpu on empty input
			failure = err
		}
	}
	close(written)
	<-writerDone
	if failure != nil {
		return failure
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

// readChunk reads records until about maxCells cells (or chunkPairs
// pairs) are held.
func readChunk(rr recordSource, maxCells int64) ([]pairhmm.Group, error) {
	var chunk []pairhmm.Group
	var cells, pairs int64
	for cells < maxCells && pairs < chunkPairs {
		g, err := rr.Next()
		if err != nil {
			return chunk, err
		}
		chunk = append(chunk, *g)
		cells += g.Cells()
		pairs += int64(g.Pairs())
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
