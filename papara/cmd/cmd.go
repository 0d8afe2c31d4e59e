// Package cmd is the `hmmgo papara` subcommand: PaPaRa 2.5 (phylogeny-aware
// alignment of reads to a reference alignment and tree) with PaPaRa's
// options, inputs and byte-identical outputs.
package cmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/papara/alignio"
	"github.com/hmmgo/hmmgo/papara/core"
	"github.com/hmmgo/hmmgo/papara/newick"
)

// Command is the subcommand table entry.
var Command = cli.Command{
	Name:    "papara",
	Summary: "align reads to a reference alignment and tree (PaPaRa 2.5)",
	Run:     run,
}

const name = "papara"

type options struct {
	tree, alignment, reads string
	runName                string
	noRefGaps              bool
	threads                int
	scores                 string
	protein                bool
	force                  bool
	fasta                  bool
	output                 string
	placement              string
	scoring                string
	gpu, noGPU             bool
	strict                 bool
	shard, shardOut        string
	fromShards             []*shard.File // hmmgo merge: results come from these
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: hmmgo papara -t tree -s ref_alignment [-q reads] [options]

Aligns reads to every branch of a reference tree, keeps each read's best
branch and writes the extended alignment papara_alignment.<name> (PHYLIP,
PaPaRa 2.5's layout), the best branch and score of every read
papara_placement.<name>, and a log papara_log.<name>. Alignment rows that
are not tips of the tree are aligned as reads, as PaPaRa does.

options:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func run(env cli.Env, args []string) int { return runWith(env, args, nil) }

// runWith runs the command; with shard files (hmmgo merge) their
// alignments replace the scoring and alignment phases.
func runWith(env cli.Env, args []string, fromShards []*shard.File) int {
	var o options
	o.fromShards = fromShards
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.tree, "t", "", "reference tree (Newick; a rooted tree is unrooted)")
	fs.StringVar(&o.alignment, "s", "", "reference alignment (PHYLIP, sequential or interleaved, or aligned FASTA)")
	fs.StringVar(&o.reads, "q", "", "reads (FASTA)")
	fs.StringVar(&o.runName, "n", "default", "run name: suffix of the output files")
	fs.BoolVar(&o.noRefGaps, "r", false, "no reference-side gaps: drop inserted read residues, keep the reference's width")
	fs.IntVar(&o.threads, "j", runtime.NumCPU(), "CPU threads for the scoring phase (0: the GPU alone)")
	fs.StringVar(&o.scores, "p", "", "scores `open:extend:match:match_cgap` (default -3:-1:2:-3)")
	fs.BoolVar(&o.protein, "a", false, "the sequences are protein")
	fs.BoolVar(&o.force, "f", false, "overwrite the output files of an earlier run with the same name")
	fs.BoolVar(&o.fasta, "fasta", false, "write the alignment as FASTA instead of PHYLIP")
	fs.StringVar(&o.output, "o", "", "alignment output `file` ('-' for stdout; default papara_alignment.<name>)")
	fs.StringVar(&o.placement, "placement", "", "placement table `file` (default papara_placement.<name>; not written with -o - unless given)")
	fs.StringVar(&o.scoring, "scoring", "papara", "scoring scheme: papara (PaPaRa 2.5, -p scores) or paper (Equation 1 of the 2012 paper)")
	fs.BoolVar(&o.gpu, "gpu", false, "score on the GPU beside the CPU threads (error if no GPU is usable; default: when one is)")
	fs.BoolVar(&o.noGPU, "no-gpu", false, "never use a GPU")
	fs.BoolVar(&o.noGPU, "nogpu", false, "never use a GPU (same as --no-gpu)")
	fs.BoolVar(&o.strict, "strict", false, "alignment rows that are not tips of the tree are an error (PaPaRa aligns them as reads)")
	fs.StringVar(&o.shard, "shard", "", "align only part `i/N` (1-based) of the reads (length-interleaved); needs --shard-out")
	fs.StringVar(&o.shardOut, "shard-out", "", "with --shard: write the part's alignments to `file` for 'hmmgo merge', instead of the outputs")
	help := fs.Bool("h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(env.Stderr, "hmmgo %s: %v (try 'hmmgo papara -h')\n", name, err)
		return 2
	}
	if *help {
		usage(env.Stdout, fs)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "hmmgo %s: unexpected argument %q (try 'hmmgo papara -h')\n", name, fs.Arg(0))
		return 2
	}
	if o.tree == "" || o.alignment == "" {
		fmt.Fprintf(env.Stderr, "hmmgo %s: options -t and -s are required (try 'hmmgo papara -h')\n", name)
		return 2
	}
	if err := papara(env, &o, args, fs); err != nil {
		var ue *cli.UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(env.Stderr, "hmmgo %s: %v\n", name, err)
			return 2
		}
		return cli.Fail(env, name, err)
	}
	return 0
}

func parseScores(s string) (core.Params, error) {
	if s == "" {
		return core.DefaultParams, nil
	}
	var p core.Params
	f := strings.Split(s, ":")
	if len(f) != 4 {
		return p, &cli.UsageError{Msg: fmt.Sprintf("-p %q: expected open:extend:match:match_cgap", s)}
	}
	v := make([]int, 4)
	for i, x := range f {
		if _, err := fmt.Sscan(x, &v[i]); err != nil {
			return p, &cli.UsageError{Msg: fmt.Sprintf("-p %q: %q is not an integer", s, x)}
		}
	}
	return core.Params{GapOpen: v[0], GapExtend: v[1], Match: v[2], MatchCGap: v[3]}, nil
}

// fileExists reports an earlier run's output. A directory is not one: the
// output file's own check reports it as a directory, which -f cannot fix.
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func papara(env cli.Env, o *options, args []string, fs *flag.FlagSet) error {
	start := time.Now()
	params, err := parseScores(o.scores)
	if err != nil {
		return err
	}
	var scoring core.Scoring
	switch o.scoring {
	case "papara":
		scoring = core.ScoringPaPaRa
		if err := params.Check(); err != nil {
			return &cli.UsageError{Msg: "-p: " + err.Error()}
		}
	case "paper":
		scoring = core.ScoringPaper
	default:
		return &cli.UsageError{Msg: fmt.Sprintf("--scoring %q: expected papara or paper", o.scoring)}
	}
	if o.threads < 0 || o.threads == 0 && o.noGPU {
		return &cli.UsageError{Msg: fmt.Sprintf("-j %d: need at least one thread (-j 0 scores on the GPU alone)", o.threads)}
	}
	if o.threads > 0 {
		o.threads = cli.Threads(o.threads)
	}
	if o.gpu && o.noGPU {
		return &cli.UsageError{Msg: "--gpu and --no-gpu exclude each other"}
	}
	if o.runName == "" || strings.ContainsAny(o.runName, "/\x00") {
		return &cli.UsageError{Msg: fmt.Sprintf("-n %q: a run name must be a non-empty file name suffix", o.runName)}
	}

	// Output files. PaPaRa refuses to reuse a run name (except "default")
	// unless forced; we check every file we would write.
	alnPath := o.output
	if alnPath == "" {
		alnPath = "papara_alignment." + o.runName
	}
	placePath := o.placement
	if placePath == "" && alnPath != "-" {
		placePath = "papara_placement." + o.runName
	}
	logPath := ""
	if alnPath != "-" || o.placement != "" {
		logPath = "papara_log." + o.runName
	}
	if o.runName != "default" && !o.force && o.shard == "" {
		for _, p := range []string{alnPath, placePath, logPath} {
			if p != "" && p != "-" && fileExists(p) {
				return fmt.Errorf("%s already exists from an earlier run named %q (use -f to overwrite)", p, o.runName)
			}
		}
	}

	model := core.DNA
	if o.protein {
		model = core.Protein
	}
	tree, err := newick.ReadFile(o.tree)
	if err != nil {
		return err
	}
	aln, err := alignio.ReadAlignment(o.alignment)
	if err != nil {
		return err
	}
	var reads []alignio.Record
	if o.reads != "" {
		if reads, err = alignio.ReadFasta(o.reads); err != nil {
			return err
		}
	}
	prep, err := core.Prepare(&core.Input{Model: model, Tree: tree, TreeFile: o.tree,
		Alignment: aln, Reads: reads, ReadsFile: o.reads, Strict: o.strict})
	if err != nil {
		return err
	}

	var log strings.Builder
	fmt.Fprintf(&log, "hmmgo papara called as:\nhmmgo papara %s\n", strings.Join(args, " "))
	fmt.Fprintf(&log, "tree: %s: %d tips, %d branches\n", o.tree, len(tree.Tips), len(prep.Ref.Edges))
	fmt.Fprintf(&log, "reference: %s: %d rows in the tree, %d of %d columns kept, gap frequency %g\n",
		o.alignment, len(prep.Ref.Names), len(prep.Ref.Columns), len(aln.Rows[0].Seq), prep.Ref.GapFreq)
	fmt.Fprintf(&log, "reads: %d", len(reads))
	if o.reads != "" {
		fmt.Fprintf(&log, " from %s", o.reads)
	}
	fmt.Fprintln(&log)
	warn := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		fmt.Fprintf(env.Stderr, "hmmgo %s: warning: %s\n", name, msg)
		fmt.Fprintf(&log, "warning: %s\n", msg)
	}
	if len(prep.ExtraRows) > 0 {
		show := prep.ExtraRows
		more := ""
		if len(show) > 10 {
			more = fmt.Sprintf(" and %d more", len(show)-10)
			show = show[:10]
		}
		warn("%d alignment row(s) are not in the tree and are aligned as reads: %s%s", len(prep.ExtraRows), strings.Join(show, ", "), more)
	}
	if len(prep.Deleted) > 0 {
		var cs []string
		for _, c := range prep.Deleted {
			cs = append(cs, fmt.Sprintf("%q", c))
		}
		warn("characters PaPaRa does not align were deleted from the reads: %s", strings.Join(cs, " "))
	}
	fmt.Fprintf(&log, "model: %s\n", model.Name)
	if scoring == core.ScoringPaper {
		fmt.Fprintf(&log, "scoring scheme: paper (Equation 1, minimised)\n")
	} else {
		fmt.Fprintf(&log, "scoring scheme: %d %d %d %d\n", params.GapOpen, params.GapExtend, params.Match, params.MatchCGap)
	}

	var scorers []core.Scorer
	if o.threads > 0 {
		scorers = core.CPUScorers(o.threads)
	}
	if !o.noGPU && o.fromShards == nil { // a merge scores nothing
		// Hybrid by default: the GPU takes blocks of the same queue as the
		// CPU threads whenever one is usable.
		gpu, gerr := core.NewGPUScorer()
		switch {
		case gerr == nil:
			scorers = append(scorers, gpu)
			with := fmt.Sprintf(" beside %d CPU threads", o.threads)
			if o.threads == 0 {
				with = " alone"
			}
			fmt.Fprintf(env.Stderr, "hmmgo %s: scoring on %s%s; --no-gpu runs on the CPU\n", name, gpu.Name(), with)
			fmt.Fprintf(&log, "scorers: %d CPU threads and %s\n", o.threads, gpu.Name())
		case o.gpu || o.threads == 0:
			flag := "--gpu"
			if !o.gpu {
				flag = "-j 0"
			}
			return fmt.Errorf("%s: no usable GPU: %v", flag, gerr)
		case core.GPUBackend != nil && !errors.Is(gerr, cuda.ErrNoDriver):
			// a GPU machine that cannot use its GPU: say so once
			fmt.Fprintf(env.Stderr, "hmmgo %s: no usable GPU (%v); scoring on the CPU\n", name, gerr)
		}
	}
	if o.shard != "" {
		return runShard(env, o, fs, prep, core.Options{Params: params, Scoring: scoring, Scorers: scorers})
	}
	// Open every output before the long part: a bad path fails now, not
	// after the scoring, and no output becomes visible unless all are.
	outs := &outputSet{}
	defer outs.abort()
	alnOut, err := outs.open(env, alnPath)
	if err != nil {
		return err
	}
	var placeOut, logOut *cli.OutputFile
	if placePath != "" {
		if placeOut, err = outs.open(env, placePath); err != nil {
			return err
		}
	}
	if logPath != "" {
		if logOut, err = outs.open(env, logPath); err != nil {
			return err
		}
	}
	var progress func(float64)
	if cli.IsTerminal(env.Stderr) {
		progress = func(f float64) { fmt.Fprintf(env.Stderr, "\rscoring: %5.1f%% done", 100*f) }
	}
	var res *core.Result
	if o.fromShards != nil {
		if res, err = assembleShards(o, prep, o.fromShards); err != nil {
			return err
		}
		fmt.Fprintf(&log, "merged from %d shards\n", len(o.fromShards))
	} else {
		res, err = core.Run(prep, core.Options{Params: params, Scoring: scoring, Scorers: scorers, Progress: progress})
		if progress != nil {
			fmt.Fprint(env.Stderr, "\r                         \r")
		}
		if err != nil {
			return err
		}
		var total float64
		for _, w := range res.Workers {
			total += float64(w.Cells)
		}
		fmt.Fprintf(&log, "scoring: %d reads x %d branches x %d columns = %d cells, %.3f s, %.2f GCUPS\n",
			len(prep.Queries), prep.Ref.Branches.N, prep.Ref.Branches.Len, res.Job.Cells(), res.ScoreTime.Seconds(), total/res.ScoreTime.Seconds()/1e9)
		for i, w := range res.Workers {
			fmt.Fprintf(&log, "  scorer %d (%s): %.2f GCUPS, %.2f GCUPS per CPU second\n", i, w.Name, w.GCUPS(), w.CPUGCUPS())
			if w.Err != nil {
				warn("%v; the other scorers took over its blocks", w.Err)
			}
		}
		for _, s := range scorers {
			if r, ok := s.(interface{ Report() string }); ok { // the GPU scorer's own counters
				fmt.Fprintf(&log, "  %s\n", r.Report())
			}
		}
		fmt.Fprintf(&log, "alignment of the best branches: %.3f s\n", res.AlignTime.Seconds())
	}

	names, rows := res.Render(!o.noRefGaps)
	if o.fasta {
		err = alignio.WriteFasta(alnOut, names, rows)
	} else {
		err = alignio.WritePhylip(alnOut, names, rows)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", alnPath, err)
	}
	if placeOut != nil {
		if err := writePlacements(placeOut, prep, res, scoring, params); err != nil {
			return fmt.Errorf("writing %s: %w", placePath, err)
		}
	}
	fmt.Fprintf(&log, "wrote %s", alnPath)
	if placePath != "" {
		fmt.Fprintf(&log, ", %s", placePath)
	}
	fmt.Fprintf(&log, "\nSUCCESS %.3f s\n", time.Since(start).Seconds())
	if logOut != nil {
		if _, err := io.WriteString(logOut, log.String()); err != nil {
			return fmt.Errorf("writing %s: %w", logPath, err)
		}
	}
	return outs.commit()
}

// outputSet is a run's output files (or stdout for "-"), committed
// together at the end of a successful run and removed otherwise.
type outputSet struct{ files []*cli.OutputFile }

func (s *outputSet) open(env cli.Env, path string) (*cli.OutputFile, error) {
	f, err := cli.CreateOutput(path, env.Stdout)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, f)
	return f, nil
}

func (s *outputSet) commit() error {
	for _, f := range s.files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// abort removes what commit did not publish; it is safe after commit.
func (s *outputSet) abort() {
	for _, f := range s.files {
		f.Abort()
	}
}
