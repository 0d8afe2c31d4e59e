// Package hmmsearch is `hmmgo hmmsearch`, a drop-in replacement for
// HMMER 3.3.2's hmmsearch: the same options (Easel's option rules), the
// same standard output, --tblout and --domtblout, and the same numbers.
//
// For each model of the HMM file it searches the whole sequence database
// (re-reading it per model, as hmmsearch rewinds it), ranks and
// thresholds the hits and prints them. Not supported: -A and
// --pfamtblout (refused with a clear message) and --tformat other than
// fasta.
package hmmsearch

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/report"
	"github.com/hmmgo/hmmgo/internal/cli"
)

const (
	name    = "hmmsearch"
	summary = "search profile(s) against a sequence database"
	usage   = "[options] <hmmfile> <seqdb>"
	prog    = "hmmgo hmmsearch"
)

// Command is the `hmmgo hmmsearch` entry of the command table.
var Command = cli.Command{
	Name:    name,
	Summary: "search profile HMMs against a sequence database (HMMER 3.3.2 hmmsearch)",
	Run:     Run,
}

// Run runs hmmsearch with the process environment's readers and pipeline.
func Run(env cli.Env, args []string) int { return defaultEngine().run(env, args) }

// ModelReader yields the query models of an HMM file; Read returns io.EOF
// after the last one.
type ModelReader interface {
	Read() (*hmm.HMM, error)
}

// engine is everything the command calls outside itself, so that tests
// can run the whole command on recorded inputs.
type engine struct {
	openModels    func(path string, stdin io.Reader) (ModelReader, error)
	openSequences func(path string, stdin io.Reader, abc *alphabet.Alphabet) (pipeline.SequenceSource, error)
	newModel      func(h *hmm.HMM, cfg *pipeline.Config) (*pipeline.Model, error)
	search        func(m *pipeline.Model, src pipeline.SequenceSource, cfg *pipeline.Config) ([]*hits.Hit, *hits.Stats, error)
	// selectGPUs picks the devices a run uses (none: the CPU pipeline,
	// through search).
	selectGPUs func(stderr io.Writer, cmd string, r devices.Request, need devices.Needs) ([]*cuda.Device, error)
	// driverPresent hints, before selectGPUs, whether a GPU may be found.
	driverPresent func() bool
	lookupEnv     func(string) (string, bool)
	now           func() time.Time
	getwd         func() (string, error)
}

func defaultEngine() *engine {
	return &engine{
		openModels:    openModelFile,
		openSequences: openSequenceFile,
		newModel:      pipeline.NewModel,
		search:        pipeline.Search,
		selectGPUs:    devices.Select,
		driverPresent: cuda.DriverPresent,
		lookupEnv:     os.LookupEnv,
		now:           time.Now,
		getwd:         os.Getwd,
	}
}

// usageError is a command-line mistake: exit status 2, with the usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func (e *engine) run(env cli.Env, args []string) int {
	g := newGetopts(options())
	if err := g.processEnvironment(e.lookupEnv); err != nil {
		return e.usageFail(env, g, "Failed to process environment: "+err.Error())
	}
	err := g.processCmdline(normalizeGPUArgs(args))
	if err == nil {
		err = g.verify()
	}
	if err != nil {
		return e.usageFail(env, g, "Failed to parse command line: "+err.Error())
	}
	if g.isOn("-h") {
		e.help(env.Stdout, g)
		return 0
	}
	if len(g.args) != 2 {
		return e.usageFail(env, g, "Incorrect number of command line arguments.")
	}
	if g.args[0] == "-" && g.args[1] == "-" {
		return e.usageFail(env, g, "Either <hmmfile> or <seqdb> may be '-' (to read from stdin), but not both.")
	}
	for _, opt := range []string{"-A", "--pfamtblout"} {
		if g.isOn(opt) {
			fmt.Fprintf(env.Stderr, "%s: option %s is not supported\n", prog, opt)
			return 2
		}
	}
	if g.isOn("--tformat") {
		if err := checkFormat(g.str("--tformat")); err != nil {
			return cli.Fail(env, name, err)
		}
	}
	s := &search{engine: e, env: env, g: g, hmmfile: g.args[0], seqfile: g.args[1], started: time.Now()}
	if _, s.stageTimes = e.lookupEnv("HMMGO_STAGE_TIMES"); s.stageTimes {
		cuda.EnableCallTimes() // before the driver loads, so that its start is counted too
	}
	s.gpuForward, _ = e.lookupEnv("HMMGO_GPU_FORWARD")
	if f := s.gpuForward; f != "" && f != "gpu" && f != "cpu" && f != "filter" && f != "bound" && f != "exact" {
		return cli.Fail(env, name, fmt.Errorf("HMMGO_GPU_FORWARD is %q: say bound, exact, filter, gpu or cpu, or leave it unset (bound)", f))
	}
	s.gpuBias, _ = e.lookupEnv("HMMGO_GPU_BIAS")
	if b := s.gpuBias; b != "" && b != "gpu" && b != "cpu" {
		return cli.Fail(env, name, fmt.Errorf("HMMGO_GPU_BIAS is %q: say gpu or cpu, or leave it unset (gpu)", b))
	}
	domains, _ := e.lookupEnv("HMMGO_GPU_DOMAINS")
	if s.envelopes, err = envelopeShare(domains); err != nil {
		return cli.Fail(env, name, err)
	}
	rank, _ := e.lookupEnv("HMMGO_GPU_RANK")
	if rank != "" && rank != "off" && rank != "on" {
		return cli.Fail(env, name, fmt.Errorf("HMMGO_GPU_RANK is %q: say on or off, or leave it unset (on)", rank))
	}
	// Ranked, the envelopes all on the GPU took 3.6-5.6 s against
	// 3.0-4.2 unranked (docs/BENCHMARKS.md): there it is off unless asked.
	s.gpuRankOff = rank == "off" || rank == "" && domains == "gpu"
	s.gpuForwardCost, _ = e.lookupEnv("HMMGO_GPU_FORWARD_COST")
	if _, err := parseForwardCost(s.gpuForwardCost, forwardCost{}); err != nil {
		return cli.Fail(env, name, err)
	}
	_, s.gpuForwardTrace = e.lookupEnv("HMMGO_FWD_TRACE")
	if v, ok := e.lookupEnv("HMMGO_FWD_LAUNCHES"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cli.Fail(env, name, fmt.Errorf("HMMGO_FWD_LAUNCHES is %q: say how many Forward batches a GPU may have in flight (1 or more)", v))
		}
		s.gpuFwdLaunches = n
	}
	s.gpuQueries = gpuSearchQueriesAtOnce
	if s.envelopes != nil {
		s.gpuQueries = gpuDomainsQueriesAtOnce
	}
	if v, ok := e.lookupEnv("HMMGO_GPU_QUERIES"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cli.Fail(env, name, fmt.Errorf("HMMGO_GPU_QUERIES is %q: say how many queries a GPU search keeps in flight (1 or more)", v))
		}
		s.gpuQueries, s.gpuQueriesSet = n, true
	}
	s.gpuSplit, _ = e.lookupEnv(splitEnv)
	if v := s.gpuSplit; v != "" && v != "db" && v != "queries" {
		return cli.Fail(env, name, fmt.Errorf("%s is %q: say db (each GPU a share of the targets) or queries (each GPU all of them, a query on one), or leave it unset", splitEnv, v))
	}
	if v, ok := e.lookupEnv(failEnv); ok {
		f, err := parseFailures(v)
		if err != nil {
			return cli.Fail(env, name, err)
		}
		s.gpuFailures = f
	}
	_, s.queueTrace = e.lookupEnv("HMMGO_QUEUE_TRACE")
	s.startOrder, _ = e.lookupEnv("HMMGO_START")
	if err := s.run(); err != nil {
		s.abort()
		return cli.Fail(env, name, err)
	}
	if s.stageTimes {
		// What a benchmark's wall time has beyond this is the process's
		// start and exit (the driver tearing contexts down, the kernel
		// unmapping the heap): the Unix time lets a script measure it.
		fmt.Fprintf(env.Stderr, "hmmgo hmmsearch: run done at +%.3f (outputs written, GPUs freed or being given back), Unix time %d ns\n", time.Since(s.started).Seconds(), time.Now().UnixNano())
		if g := s.gpu; g != nil && g.releaseStarted() {
			to := "not done: the exit finishes it"
			if g.releasedWithin(0) {
				to = fmt.Sprintf("done at +%.3f", g.releaseTo.Sub(s.started).Seconds())
			}
			fmt.Fprintf(env.Stderr, "hmmgo hmmsearch: GPU contexts given back from +%.3f, beside the last domains; %s\n", g.releaseFrom.Sub(s.started).Seconds(), to)
		}
		s.exitReport()
	}
	return 0
}

// usageFail prints msg and the short usage on stderr (hmmsearch prints
// them on stdout; hmmgo keeps stdout for results).
func (e *engine) usageFail(env cli.Env, g *getopts, msg string) int {
	fmt.Fprintf(env.Stderr, "%s: %s\n", prog, msg)
	fmt.Fprintf(env.Stderr, "Usage: %s %s\n", prog, usage)
	fmt.Fprintln(env.Stderr, "\nwhere most common options are:")
	g.displayHelp(env.Stderr, 1, 2, 80)
	fmt.Fprintf(env.Stderr, "\nTo see more help on available options, do %s -h\n\n", prog)
	return 2
}

func (e *engine) help(w io.Writer, g *getopts) {
	report.Banner(w, name, summary)
	fmt.Fprintf(w, "Usage: %s %s\n", prog, usage)
	for _, hg := range helpGroups {
		fmt.Fprintf(w, "\n%s\n", hg.title)
		g.displayHelp(w, hg.group, 2, 80)
	}
}

// checkFormat accepts --tformat fasta, the one format hmmgo reads.
func checkFormat(f string) error {
	switch strings.ToLower(f) {
	case "fasta":
		return nil
	case "embl", "genbank", "ddbj", "uniprot", "daemon", "hmmpgmd", "fmindex", "ncbi",
		"stockholm", "pfam", "a2m", "psiblast", "selex", "afa", "clustal", "clustallike", "phylip", "phylips":
		return fmt.Errorf("--tformat %s: only fasta target databases are supported", f)
	}
	return fmt.Errorf("%s is not a recognized sequence database file format", f)
}

// search is one run of the command.
type search struct {
	*engine
	env              cli.Env
	g                *getopts
	hmmfile, seqfile string

	outputs   []*cli.OutputFile
	text      *bufio.Writer // the report: stdout or -o
	tbl, dtbl *bufio.Writer
	textFile  *cli.OutputFile
	gpu       *gpuSearch // nil: the filters run on the CPU
	shard     *shardRun  // --shard: search a part, keep the results for hmmgo merge
	// stageTimes ($HMMGO_STAGE_TIMES set) prints each query's time per
	// pipeline stage on stderr.
	stageTimes bool
	// gpuForward ($HMMGO_GPU_FORWARD, forwardMode) forces Forward onto the GPU or the
	// CPU in a GPU search; benchmarks use it to measure both. "filter"
	// forces only the Forward filter onto the GPU and leaves the parsers
	// of domain definition to their own rule.
	gpuForward string
	// gpuBias ($HMMGO_GPU_BIAS=cpu) leaves the bias filter to the CPU
	// workers in a GPU search; benchmarks use it to measure both.
	gpuBias string
	// envelopes ($HMMGO_GPU_DOMAINS, envelopeShare) divides domain
	// definition's envelopes between the GPUs and the workers; nil: the
	// workers rescore them all.
	envelopes *pipeline.EnvelopeShare
	// gpuRankOff ($HMMGO_GPU_RANK=off, or unset with
	// $HMMGO_GPU_DOMAINS=gpu) ranks the queries in flight alike
	// (gpurank.go).
	gpuRankOff bool
	// gpuForwardCost ($HMMGO_GPU_FORWARD_COST) overrides the constants of
	// the batched Forward's cost rule (forwardCost); gpuForwardTrace
	// ($HMMGO_FWD_TRACE set) prints one line per batch on stderr.
	gpuForwardCost  string
	gpuFwdLaunches  int // $HMMGO_FWD_LAUNCHES: Forward batches in flight per GPU
	gpuForwardTrace bool
	// queueTrace ($HMMGO_QUEUE_TRACE set) prints where a queued search's
	// time went on stderr (queueTrace).
	queueTrace bool
	// gpuQueries is how many queries a GPU search keeps in flight
	// (gpuSearchQueriesAtOnce, or gpuDomainsQueriesAtOnce;
	// $HMMGO_GPU_QUERIES for benchmarks).
	gpuQueries    int
	gpuQueriesSet bool            // by $HMMGO_GPU_QUERIES: the run's total, however many GPUs
	gpuSplit      string          // $HMMGO_GPU_SPLIT (gpudeal.go)
	gpuFailures   map[int]failure // $HMMGO_GPU_FAIL (gpufail.go)
	// early is the database read begun before the GPUs were selected
	// (earlyread.go); nil when none was.
	early *earlyRead
	// startOrder ($HMMGO_START, for benchmarks) is "serial" to create the
	// contexts before reading the database instead of beside it, "late"
	// to begin reading it after the GPUs are selected instead of before
	// (earlyread.go).
	startOrder string
	// started is when the run began: stage-time lines say when each query
	// ran relative to it, a timeline of the run.
	started time.Time
}

func (s *search) printStageTimes(query string, st *hits.Stats, gpu time.Duration, from time.Time) {
	var b strings.Builder
	if s.gpu != nil {
		fmt.Fprintf(&b, "hmmgo hmmsearch: %s: wall time per stage (MSV, Viterbi, Forward/Backward on the GPU):", query)
	} else {
		fmt.Fprintf(&b, "hmmgo hmmsearch: %s: CPU time per stage (all workers):", query)
	}
	for i, d := range st.StageTime {
		fmt.Fprintf(&b, " %s %.3fs", hits.StageNames[i], d.Seconds())
	}
	if s.gpu != nil {
		fmt.Fprintf(&b, "; staged GPU search %.3fs wall", gpu.Seconds())
	}
	// No "s" right after the numbers: scripts sum the "<stage> <n>s" pairs.
	fmt.Fprintf(&b, "; ran from +%.3f to +%.3f", from.Sub(s.started).Seconds(), time.Since(s.started).Seconds())
	fmt.Fprintln(s.env.Stderr, b.String())
}

func (s *search) create(path string) (*cli.OutputFile, *bufio.Writer, error) {
	if err := cli.NotAnInput(path, s.hmmfile, s.seqfile); err != nil {
		return nil, nil, err
	}
	o, err := cli.CreateOutput(path, s.env.Stdout)
	if err != nil {
		return nil, nil, err
	}
	s.outputs = append(s.outputs, o)
	return o, bufio.NewWriterSize(o, 64<<10), nil
}

// abort removes unfinished output files; what already went to stdout
// stays, as with hmmsearch.
func (s *search) abort() {
	if s.textFile == nil && s.text != nil {
		s.text.Flush()
	}
	for _, o := range s.outputs {
		o.Abort()
	}
}

func (s *search) config() pipeline.Config {
	g := s.g
	cfg := pipeline.DefaultConfig()
	cfg.F1, cfg.F2, cfg.F3 = g.real("--F1"), g.real("--F2"), g.real("--F3")
	cfg.Max = g.isOn("--max")
	cfg.NoBias = g.isOn("--nobias")
	cfg.NoNull2 = g.isOn("--nonull2")
	cfg.Seed = uint32(g.integer("--seed"))
	cfg.CPUs = cli.Threads(g.integer("--cpu"))

	t := &cfg.Thresholds
	*t = hits.Thresholds{E: g.real("-E"), DomE: g.real("--domE"), IncE: g.real("--incE"), IncDomE: g.real("--incdomE")}
	if g.isOn("-T") {
		t.ByBits, t.T = true, g.real("-T")
	}
	if g.isOn("--domT") {
		t.DomByBits, t.DomT = true, g.real("--domT")
	}
	if g.isOn("--incT") {
		t.IncByBits, t.IncT = true, g.real("--incT")
	}
	if g.isOn("--incdomT") {
		t.IncDomByBits, t.IncDomT = true, g.real("--incdomT")
	}
	for _, c := range []struct {
		opt string
		cut hits.Cutoff
	}{{"--cut_ga", hits.CutGA}, {"--cut_nc", hits.CutNC}, {"--cut_tc", hits.CutTC}} {
		if g.isOn(c.opt) {
			t.Cutoff = c.cut
			t.ApplyCutoffs(0, 0) // the model's own values replace these per query
		}
	}
	if g.isOn("-Z") {
		t.Z, t.ZFromOption = g.real("-Z"), true
	}
	if g.isOn("--domZ") {
		t.DomZ, t.DomZFromOpt = g.real("--domZ"), true
	}
	return cfg
}

// used lists the options in effect for the report header.
func (s *search) used() []report.Setting {
	var out []report.Setting
	for _, o := range s.g.opts {
		if s.g.isUsed(o.name) {
			out = append(out, report.Setting{Name: o.name, Value: s.g.str(o.name)})
		}
	}
	return out
}

func (s *search) run() error {
	g := s.g
	if g.isOn("--redis") {
		return s.runRemote()
	}
	if err := s.setupShard(); err != nil {
		return err
	}
	if s.seqfile != "-" {
		if f, err := os.Open(s.seqfile); err != nil {
			return fmt.Errorf("Failed to open sequence file %s for reading", s.seqfile)
		} else {
			f.Close()
		}
	}
	models, err := s.openModels(s.hmmfile, s.env.Stdin)
	if err != nil {
		return err
	}
	req, err := s.gpuRequest()
	if err != nil {
		return err
	}
	if s.readEarlyFor(req) {
		pm := peekModels(models)
		models = pm
		if pm.err == nil {
			s.early = s.readEarly(pm.first.Alph)
			defer s.early.cancel()
		}
	}
	devs, err := s.selectGPUs(s.env.Stderr, name, req, devices.Needs{})
	if err != nil {
		return err
	}
	s.startMark("GPUs selected")
	if len(devs) == 0 && s.early != nil {
		s.early.cancel() // the CPU pipeline streams the targets
		s.early = nil
	}
	if len(devs) > 0 {
		s.gpu = &gpuSearch{devs: devs, launches: filterLaunchesAtOnce, forward: forwardMode(s.gpuForward), bias: s.gpuBias, split: s.gpuSplit,
			envelopes: s.envelopes, failures: s.gpuFailures, handBack: true, warn: func(msg string) { fmt.Fprintf(s.env.Stderr, "%s: %s\n", prog, msg) }}
		if s.stageTimes {
			s.gpu.marks = s.startMarkAt
		}
		if s.startOrder == "serial" {
			if err := s.gpu.openKernels(); err != nil {
				return err
			}
			s.startMark("contexts and kernels ready")
		} else {
			// Creating the contexts (the driver's slowest call) overlaps
			// reading the models and the database; the database's upload
			// waits for it (gpuSearch.load).
			s.gpu.openKernelsAsync()
		}
		s.gpu.cost, _ = parseForwardCost(s.gpuForwardCost, defaultForwardCost(max(1, s.g.integer("--cpu"))))
		if s.gpuForwardTrace {
			s.gpu.trace = s.env.Stderr
		}
		s.gpu.fwdLaunches = s.gpuFwdLaunches
		defer s.gpu.free()
		ra := s.gpu.readAhead(models)
		defer ra.close()
		models = ra
	}
	if s.shard != nil {
		s.text = bufio.NewWriter(io.Discard) // a shard prints nothing; hmmgo merge does
	} else if err := s.openOutputs(); err != nil {
		return err
	}
	opts := s.reportOptions()
	base := s.config()

	var abc *alphabet.Alphabet
	queries := newQueryRunner(s, base, opts)
	defer queries.wait()
	for nquery := 1; ; nquery++ {
		h, err := models.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if h.Calibrate {
			return fmt.Errorf("%s: model %s is in HMMER2 format, which hmmsearch 3.3.2 calibrates by simulation before searching; hmmgo does not: convert it with hmmconvert and rebuild it with hmmbuild first", s.hmmfile, h.Name)
		}
		if nquery == 1 {
			s.startMark("first model read")
			abc = h.Alph
			if err := s.header(); err != nil {
				return err
			}
		} else if h.Alph.Type != abc.Type {
			return fmt.Errorf("HMM file %s contains different alphabets", s.hmmfile)
		}
		if s.gpu != nil {
			s.gpu.queryStarts()
			if nquery == 2 {
				// More may follow: the scratch slots keep cores for the
				// filters of the queries on the devices.
				pipeline.QueriesToStart(true)
				defer pipeline.QueriesToStart(false)
			}
		}
		if err := queries.add(h, nquery); err != nil {
			return err
		}
	}
	if s.gpu != nil {
		s.gpu.lastQueryStarted()
		pipeline.QueriesToStart(false)
	}
	if err := queries.flush(); err != nil {
		return err
	}
	if s.stageTimes && s.gpu != nil {
		s.gpu.printTotals(s.env.Stderr, time.Since(s.started))
	}
	if s.shard != nil {
		return s.shard.finish(s)
	}
	return s.finish()
}

// header prints the banner and the settings, before the first query.
func (s *search) header() error {
	if err := report.Banner(s.text, name, summary); err != nil {
		return err
	}
	return report.SearchHeader(s.text, s.hmmfile, s.seqfile, s.used())
}

// openOutputs creates the report (stdout or -o) and the tables.
func (s *search) openOutputs() error {
	g := s.g
	var err error
	if g.isOn("-o") {
		s.textFile, s.text, err = s.create(g.str("-o"))
	} else {
		s.text = bufio.NewWriterSize(s.env.Stdout, 64<<10)
	}
	if err == nil && g.isOn("--tblout") {
		_, s.tbl, err = s.create(g.str("--tblout"))
	}
	if err == nil && g.isOn("--domtblout") {
		_, s.dtbl, err = s.create(g.str("--domtblout"))
	}
	return err
}

func (s *search) reportOptions() report.Options {
	g := s.g
	opts := report.Options{TextWidth: g.integer("--textw"), ShowAccessions: g.isOn("--acc"), ShowAlignments: !g.isOn("--noali")}
	if g.isOn("--notextw") {
		opts.TextWidth = 0
	}
	return opts
}

// loadGPU reads the whole database in alphabet abc and makes it resident
// on the GPUs, before the first query (a query loads it itself when the
// targets come from stdin).
func (s *search) loadGPU(abc *alphabet.Alphabet) error {
	if e := s.early; e != nil && e.abc.Type == abc.Type {
		l, err := e.result()
		if err != nil {
			return err
		}
		s.gpu.mark("database read (begun beside the GPUs' start)", e.at)
		if err := s.gpu.place(l, abc); err != nil {
			return err
		}
		s.gpu.uploadResidues()
		return nil
	}
	src, err := s.openTargets(abc)
	if err != nil {
		return err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	return s.gpu.load(src, abc)
}

// query searches the database with one model. On GPUs it calls
// leaveDevices (when not nil) once it makes no more device calls.
func (s *search) query(h *hmm.HMM, nquery int, base pipeline.Config, leaveDevices func()) (*queryResult, error) {
	userStart, sysStart := cpuTimes()
	start := time.Now()
	if nquery > 1 && s.seqfile == "-" {
		return nil, fmt.Errorf("Target sequence file %s isn't rewindable; can't search it with multiple queries", s.seqfile)
	}
	cfg := base
	thr, err := modelThresholds(h, cfg.Thresholds)
	if err != nil {
		return nil, err
	}
	cfg.Thresholds = thr
	var src pipeline.SequenceSource
	if s.gpu == nil || s.gpu.seqs == nil {
		src, err = s.openTargets(h.Alph)
		if err != nil {
			return nil, err
		}
		if c, ok := src.(io.Closer); ok {
			defer c.Close()
		}
	}
	m, err := s.newModel(h, &cfg)
	if err != nil {
		return nil, err
	}
	cfg.TimeStages = s.stageTimes
	var gpuTime time.Duration
	var list []*hits.Hit
	var st *hits.Stats
	if s.gpu != nil {
		tg := time.Now()
		if s.gpu.seqs == nil {
			if err := s.gpu.load(src, h.Alph); err != nil {
				return nil, err
			}
		}
		var indices []int64
		if s.shard != nil {
			indices = s.shard.keep
		}
		var rank int64
		if !s.gpuRankOff {
			rank = queryRank(h.M, nquery)
		}
		list, st, err = s.gpu.searchQuery(m, indices, &cfg, rank, true, leaveDevices)
		gpuTime = time.Since(tg)
	} else {
		list, st, err = s.search(m, src, &cfg)
	}
	if err != nil {
		if h.Alph.Type != alphabet.Amino {
			return nil, fmt.Errorf("%v (query %s is a %s model, so targets are read as %s)", err, h.Name, h.Alph.Type, h.Alph.Type)
		}
		return nil, err
	}
	if s.stageTimes {
		s.printStageTimes(h.Name, st, gpuTime, start)
	}
	user, sys := cpuTimes()
	r := &queryResult{Name: h.Name, Acc: h.Acc, Desc: h.Desc, M: h.M, Thr: thr, Hits: list, Stats: *st,
		Timing: report.Timing{User: user - userStart, Sys: sys - sysStart, Elapsed: time.Since(start).Seconds()}}
	return r, nil
}

// printQuery ranks and thresholds one query's hits (in database order,
// kept by HMMER's provisional rule) and prints them: the report section,
// the table lines, the statistics. Z is the number of targets searched
// unless -Z set it.
func (s *search) printQuery(r *queryResult, nquery int, opts report.Options) error {
	w := s.text
	if err := report.Query(w, r.Name, r.Acc, r.Desc, r.M); err != nil {
		return err
	}
	thr := r.Thr
	st := &r.Stats
	if !thr.ZFromOption {
		thr.Z = float64(st.NSeqs)
	}
	th := &hits.TopHits{Hits: r.Hits}
	th.Sort()
	th.Threshold(&thr)

	if err := report.Targets(w, th, &thr, opts); err != nil {
		return err
	}
	w.WriteString("\n\n")
	if err := report.Domains(w, th, &thr, opts); err != nil {
		return err
	}
	w.WriteString("\n\n")
	if s.tbl != nil {
		if err := report.TabularTargets(s.tbl, r.Name, r.Acc, th, &thr, nquery == 1); err != nil {
			return err
		}
	}
	if s.dtbl != nil {
		if err := report.TabularDomains(s.dtbl, r.Name, r.Acc, th, &thr, nquery == 1); err != nil {
			return err
		}
	}
	if err := report.Statistics(w, st, &thr, &r.Timing); err != nil {
		return err
	}
	_, err := w.WriteString("//\n")
	return err
}

// modelThresholds applies --cut_ga/tc/nc with the model's own cutoffs
// (p7_pli_NewModelThresholds), failing as hmmsearch does when the model
// has none.
func modelThresholds(h *hmm.HMM, t hits.Thresholds) (hits.Thresholds, error) {
	var ok bool
	var label string
	var i1, i2 int
	switch t.Cutoff {
	case hits.NoCutoff:
		return t, nil
	case hits.CutGA:
		ok, label, i1, i2 = h.HasGA, "GA", hmm.GA1, hmm.GA2
	case hits.CutTC:
		ok, label, i1, i2 = h.HasTC, "TC", hmm.TC1, hmm.TC2
	case hits.CutNC:
		ok, label, i1, i2 = h.HasNC, "NC", hmm.NC1, hmm.NC2
	}
	if !ok {
		return t, fmt.Errorf("%s bit thresholds unavailable on model %s", label, h.Name)
	}
	t.ApplyCutoffs(h.Cutoff[i1], h.Cutoff[i2])
	return t, nil
}

// finish writes the table trailers and "[ok]", then makes the files
// visible.
func (s *search) finish() error {
	cwd, _ := s.getwd()
	tail := report.Tail{
		Program: name, Version: report.Version, QueryFile: s.hmmfile, TargetFile: s.seqfile,
		Options: s.g.spoof(prog), Cwd: cwd, Date: s.now(),
	}
	for _, w := range []*bufio.Writer{s.tbl, s.dtbl} {
		if w == nil {
			continue
		}
		if err := report.TabularTail(w, tail); err != nil {
			return err
		}
	}
	if _, err := s.text.WriteString("[ok]\n"); err != nil {
		return err
	}
	for _, w := range []*bufio.Writer{s.text, s.tbl, s.dtbl} {
		if w == nil {
			continue
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, o := range s.outputs {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// forwardMode is gpuSearch.forward for $HMMGO_GPU_FORWARD: unset, the
// Forward filter goes to the bound kernel ("bound"), which took 38 % of
// the CPU time and 10 % of the wall off 1,000 models on one H100
// (docs/BENCHMARKS.md); "exact" is the exact kernel by the cost rule,
// the earlier default (gpuSearch's "").
func forwardMode(env string) string {
	switch env {
	case "":
		return "bound"
	case "exact":
		return ""
	}
	return env
}
