package hmmsearch

import (
	"runtime"
	"strconv"
)

// Option groups that hmmsearch selects to exclude each other (its
// REPOPTS, DOMREPOPTS, INCOPTS, INCDOMOPTS and THRESHOPTS).
const (
	repOpts    = "-E,-T,--cut_ga,--cut_nc,--cut_tc"
	domRepOpts = "--domE,--domT,--cut_ga,--cut_nc,--cut_tc"
	incOpts    = "--incE,--incT,--cut_ga,--cut_nc,--cut_tc"
	incDomOpts = "--incdomE,--incdomT,--cut_ga,--cut_nc,--cut_tc"
	threshOpts = "-E,-T,--domE,--domT,--incE,--incT,--incdomE,--incdomT,--cut_ga,--cut_nc,--cut_tc"
)

// Help groups, as hmmsearch -h prints them.
var helpGroups = []struct {
	group int
	title string
}{
	{1, "Basic options:"},
	{2, "Options directing output:"},
	{4, "Options controlling reporting thresholds:"},
	{5, "Options controlling inclusion (significance) thresholds:"},
	{6, "Options controlling model-specific thresholding:"},
	{7, "Options controlling acceleration heuristics:"},
	{12, "Other expert options:"},
	{13, "GPU options (hmmgo):"},
	{14, "Distributed search options (hmmgo; see docs/distributed.md):"},
}

// options is HMMER 3.3.2 hmmsearch's option table (a threaded, non-MPI
// build, like Debian's), with its defaults, ranges and exclusions. The
// default of --cpu is this machine's CPU count rather than HMMER's 2.
func options() []option {
	return []option{
		{name: "-h", typ: argNone, help: "show brief help on version and usage", group: 1},

		{name: "-o", typ: argOutfile, help: "direct output to file <f>, not stdout", group: 2},
		{name: "-A", typ: argOutfile, help: "save multiple alignment of all hits to file <f>", group: 2},
		{name: "--tblout", typ: argOutfile, help: "save parseable table of per-sequence hits to file <f>", group: 2},
		{name: "--domtblout", typ: argOutfile, help: "save parseable table of per-domain hits to file <f>", group: 2},
		{name: "--pfamtblout", typ: argOutfile, help: "save table of hits and domains to file, in Pfam format <f>", group: 2},
		{name: "--acc", typ: argNone, help: "prefer accessions over names in output", group: 2},
		{name: "--noali", typ: argNone, help: "don't output alignments, so output is smaller", group: 2},
		{name: "--notextw", typ: argNone, incompat: "--textw", help: "unlimit ASCII text output line width", group: 2},
		{name: "--textw", typ: argInt, def: "120", rng: "n>=120", incompat: "--notextw", help: "set max width of ASCII text output lines", group: 2},

		{name: "-E", typ: argReal, def: "10.0", rng: "x>0", incompat: repOpts, help: "report sequences <= this E-value threshold in output", group: 4},
		{name: "-T", typ: argReal, incompat: repOpts, help: "report sequences >= this score threshold in output", group: 4},
		{name: "--domE", typ: argReal, def: "10.0", rng: "x>0", incompat: domRepOpts, help: "report domains <= this E-value threshold in output", group: 4},
		{name: "--domT", typ: argReal, incompat: domRepOpts, help: "report domains >= this score cutoff in output", group: 4},

		{name: "--incE", typ: argReal, def: "0.01", rng: "x>0", incompat: incOpts, help: "consider sequences <= this E-value threshold as significant", group: 5},
		{name: "--incT", typ: argReal, incompat: incOpts, help: "consider sequences >= this score threshold as significant", group: 5},
		{name: "--incdomE", typ: argReal, def: "0.01", rng: "x>0", incompat: incDomOpts, help: "consider domains <= this E-value threshold as significant", group: 5},
		{name: "--incdomT", typ: argReal, incompat: incDomOpts, help: "consider domains >= this score threshold as significant", group: 5},

		{name: "--cut_ga", typ: argNone, incompat: threshOpts, help: "use profile's GA gathering cutoffs to set all thresholding", group: 6},
		{name: "--cut_nc", typ: argNone, incompat: threshOpts, help: "use profile's NC noise cutoffs to set all thresholding", group: 6},
		{name: "--cut_tc", typ: argNone, incompat: threshOpts, help: "use profile's TC trusted cutoffs to set all thresholding", group: 6},

		{name: "--max", typ: argNone, incompat: "--F1,--F2,--F3", help: "Turn all heuristic filters off (less speed, more power)", group: 7},
		{name: "--F1", typ: argReal, def: "0.02", incompat: "--max", help: "Stage 1 (MSV) threshold: promote hits w/ P <= F1", group: 7},
		{name: "--F2", typ: argReal, def: "1e-3", incompat: "--max", help: "Stage 2 (Vit) threshold: promote hits w/ P <= F2", group: 7},
		{name: "--F3", typ: argReal, def: "1e-5", incompat: "--max", help: "Stage 3 (Fwd) threshold: promote hits w/ P <= F3", group: 7},
		{name: "--nobias", typ: argNone, incompat: "--max", help: "turn off composition bias filter", group: 7},

		{name: "--nonull2", typ: argNone, help: "turn off biased composition score corrections", group: 12},
		{name: "-Z", typ: argReal, rng: "x>0", help: "set # of comparisons done, for E-value calculation", group: 12},
		{name: "--domZ", typ: argReal, rng: "x>0", help: "set # of significant seqs, for domain E-value calculation", group: 12},
		{name: "--seed", typ: argInt, def: "42", rng: "n>=0", help: "set RNG seed to <n> (if 0: one-time arbitrary seed)", group: 12},
		{name: "--tformat", typ: argString, help: "assert target <seqfile> is in format <s>: no autodetection", group: 12},
		{name: "--gpu", typ: argString, incompat: "--nogpu", help: "run the filters on GPUs: N, a list 0,2, or all; alone: the first GPU, required", group: 13},
		{name: "--nogpu", typ: argNone, incompat: "--gpu", help: "never use a GPU (default: use one when present)", group: 13},
		{name: "--shard", typ: argString, incompat: "--redis", help: "search shard i of N (i/N, 1-based) of the database; needs --shard-out", group: 14},
		{name: "--shard-out", typ: argOutfile, help: "save this shard's results to file <f> for 'hmmgo merge'", group: 14},
		{name: "--redis", typ: argString, incompat: "--shard", help: "run on 'hmmgo worker's through the Redis server at URL <s>", group: 14},
		{name: "--task-cells", typ: argReal, def: "2e9", rng: "x>0", help: "with --redis: DP cells (model nodes x residues) per task", group: 14},
		{name: "--cpu", typ: argInt, def: strconv.Itoa(runtime.NumCPU()), env: "HMMER_NCPU", rng: "n>=0", help: "number of parallel CPU workers to use for multithreads", group: 12},
	}
}
