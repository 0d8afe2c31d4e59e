package search

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

const banner = "hmmsearch - search a sequence database with a profile HMM"

const usage = `Usage: hmmsearch [-options] <hmmfile> <sequence file or database>
  Available options are:
   -h        : help; print brief help on version and usage
   -A <n>    : sets alignment output limit to <n> best domain alignments
   -E <x>    : sets E value cutoff (globE) to <= x
   -T <x>    : sets T bit threshold (globT) to >= x
   -Z <n>    : sets Z (# seqs) for E-value calculation
`

const experts = `   --compat       : make best effort to use last version's output style
   --cpu <n>      : run <n> threads in parallel (if threaded)
   --cut_ga       : use Pfam GA gathering threshold cutoffs
   --cut_nc       : use Pfam NC noise threshold cutoffs
   --cut_tc       : use Pfam TC trusted threshold cutoffs
   --domE <x>     : sets domain Eval cutoff (2nd threshold) to <= x
   --domT <x>     : sets domain T bit thresh (2nd threshold) to >= x
   --forward      : use the full Forward() algorithm instead of Viterbi
   --informat <s> : sequence file is in format <s>
   --null2        : turn OFF the post hoc second null model
   --pvm          : run on a Parallel Virtual Machine (PVM)
   --xnu          : turn ON XNU filtering of target protein sequences
`

// hmmgoExtras are options hmm2search does not have.
const hmmgoExtras = `  hmmgo options:
   -o <f>         : write the report to file <f> (atomically) instead of stdout
   --batch <n>    : sequences scored per lane batch (default 4096; 32768 on a GPU)
   --gpu [list]   : score on GPUs (the first usable one, a list such as 0,2, or all); error if none
   --nogpu        : never use a GPU (by default the first usable GPU is used, else the CPU)
`

// distributedOptions are hmmgo's static-shard options (docs/distributed.md).
const distributedOptions = `
Distributed search options (hmmgo; see docs/distributed.md):
   --shard <s>     : search shard i of N (i/N, 1-based) of the database; needs --shard-out
   --shard-out <f> : save this shard's results to file <f> for 'hmmgo merge'
`

type cutoff int

const (
	cutNone cutoff = iota
	cutGA
	cutNC
	cutTC
)

// Options are hmm2search's command-line settings.
type Options struct {
	Alimit   int     // -A: most domain alignments shown
	GlobE    float64 // -E
	GlobT    float32 // -T
	DomE     float64 // --domE
	DomT     float32 // --domT
	Z        int     // -Z; 0 = number of sequences searched
	Autocut  cutoff
	Compat   bool
	CPU      int  // --cpu; 0 is HMMER2's serial mode, which counts sequences differently
	cpuSet   bool // --cpu given
	Forward  bool
	Null2    bool // the null2 correction (on unless --null2)
	Informat string
	Output   string
	Batch    int
	batchSet bool
	GPU      devices.Request // --gpu/--nogpu

	// --shard i/N and --shard-out: search one static shard of the
	// database and save its results for hmmgo merge. Shard is nil
	// without --shard.
	Shard    *shard.Spec
	ShardOut string

	HMMFile, SeqFile string
}

// optSpec is one option in squid's Getopt() table.
type optSpec struct {
	name   string
	single bool
	arg    byte // 0 none, 'i' integer, 'f' real, 's' string
}

var optTable = []optSpec{
	{"-h", true, 0}, {"-A", true, 'i'}, {"-E", true, 'f'}, {"-T", true, 'f'}, {"-Z", true, 'i'},
	{"-o", true, 's'},
	{"--compat", false, 0}, {"--cpu", false, 'i'}, {"--cut_ga", false, 0}, {"--cut_nc", false, 0},
	{"--cut_tc", false, 0}, {"--domE", false, 'f'}, {"--domT", false, 'f'}, {"--forward", false, 0},
	{"--informat", false, 's'}, {"--null2", false, 0}, {"--pvm", false, 0}, {"--xnu", false, 0},
	{"--batch", false, 'i'}, {"--shard", false, 's'}, {"--shard-out", false, 's'},
}

func usageErr(format string, args ...any) error {
	return &cli.UsageError{Msg: fmt.Sprintf(format, args...) + " (try 'hmmgo hmm2search -h')"}
}

// errHelp asks the caller to print the help text.
var errHelp = fmt.Errorf("help requested")

// ParseOptions reads arguments with the rules of squid's Getopt(): long
// options may be abbreviated to a unique prefix and take "--opt=value",
// single-letter options may be bundled and take attached values.
func ParseOptions(args []string) (*Options, error) {
	o := &Options{
		Alimit: math.MaxInt32,
		GlobE:  10.0,
		GlobT:  -math.MaxFloat32,
		DomT:   -math.MaxFloat32,
		DomE:   math.MaxFloat32,
		Null2:  true,
		CPU:    1,
		Batch:  4096,
	}
	gpu, args, err := extractGPUOptions(args)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return nil, usageErr("%v", ue.err)
		}
		return nil, err
	}
	o.GPU = gpu
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		if a == "--" {
			i++
			break
		}
		var opts []struct {
			spec optSpec
			val  string
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a, "=")
			var match *optSpec
			n := 0
			for j := range optTable {
				s := &optTable[j]
				if !s.single && strings.HasPrefix(s.name, name) {
					n++
					match = s
					if s.name == name {
						n = 1
						break
					}
				}
			}
			if n > 1 {
				return nil, usageErr("option %q is ambiguous; please be more specific", name)
			}
			if n == 0 {
				return nil, usageErr("no such option %q", name)
			}
			i++
			if match.arg != 0 {
				if !hasVal {
					if i >= len(args) {
						return nil, usageErr("option %s requires an argument", match.name)
					}
					val = args[i]
					i++
				}
			} else if hasVal {
				return nil, usageErr("option %s does not take an argument", match.name)
			}
			opts = append(opts, struct {
				spec optSpec
				val  string
			}{*match, val})
		} else {
			rest := a[1:]
			i++
			for len(rest) > 0 {
				var match *optSpec
				for j := range optTable {
					if optTable[j].single && optTable[j].name[1] == rest[0] {
						match = &optTable[j]
						break
					}
				}
				if match == nil {
					return nil, usageErr("no such option \"%c\"", rest[0])
				}
				if match.arg != 0 {
					val := rest[1:]
					if val == "" {
						if i >= len(args) {
							return nil, usageErr("option %s requires an argument", match.name)
						}
						val = args[i]
						i++
					}
					opts = append(opts, struct {
						spec optSpec
						val  string
					}{*match, val})
					break
				}
				opts = append(opts, struct {
					spec optSpec
					val  string
				}{*match, ""})
				rest = rest[1:]
			}
		}
		for _, op := range opts {
			if err := o.set(op.spec, op.val); err != nil {
				return nil, err
			}
		}
	}
	rest := args[i:]
	if len(rest) != 2 {
		return nil, usageErr("incorrect number of arguments: need <hmmfile> <seqfile>")
	}
	o.HMMFile, o.SeqFile = rest[0], rest[1]
	if err := o.checkShard(); err != nil {
		return nil, err
	}
	return o, nil
}

// checkShard refuses shard options that cannot work together.
func (o *Options) checkShard() error {
	switch {
	case o.Shard == nil && o.ShardOut != "":
		return usageErr("--shard-out needs --shard i/N")
	case o.Shard == nil:
		return nil
	case o.ShardOut == "":
		return usageErr("--shard %s needs --shard-out <f> (the shard's results, for hmmgo merge)", o.Shard)
	case o.SeqFile == "-":
		return usageErr("--shard needs a sequence database file, not standard input (every shard reads the whole file)")
	}
	return nil
}

func (o *Options) set(s optSpec, val string) error {
	switch s.arg {
	case 'i':
		if !isInt(val) {
			return usageErr("option %s requires an integer argument", s.name)
		}
	case 'f':
		if !isReal(val) {
			return usageErr("option %s requires a numerical argument", s.name)
		}
	}
	switch s.name {
	case "-h":
		return errHelp
	case "-A":
		o.Alimit = atoi(val)
	case "-E":
		o.GlobE = atof(val)
	case "-T":
		o.GlobT = float32(atof(val))
	case "-Z":
		o.Z = atoi(val)
	case "-o":
		o.Output = val
	case "--compat":
		o.Compat = true
	case "--cpu":
		o.CPU, o.cpuSet = atoi(val), true
		if o.CPU < 0 {
			return usageErr("--cpu must not be negative")
		}
	case "--cut_ga":
		o.Autocut = cutGA
	case "--cut_nc":
		o.Autocut = cutNC
	case "--cut_tc":
		o.Autocut = cutTC
	case "--domE":
		o.DomE = atof(val)
	case "--domT":
		o.DomT = float32(atof(val))
	case "--forward":
		o.Forward = true
	case "--informat":
		o.Informat = val
	case "--null2":
		o.Null2 = false
	case "--pvm":
		return usageErr("PVM support is not compiled into hmmgo; --pvm doesn't work")
	case "--xnu":
		return usageErr("--xnu (XNU repeat masking) is not implemented in hmmgo hmm2search")
	case "--shard":
		spec, err := shard.Parse(val)
		if err != nil {
			return usageErr("%v", err)
		}
		o.Shard = &spec
	case "--shard-out":
		if val == "" {
			return usageErr("--shard-out needs a file name")
		}
		o.ShardOut = val
	case "--batch":
		o.Batch = atoi(val)
		o.batchSet = true
		if o.Batch < 1 {
			return usageErr("--batch must be at least 1")
		}
	}
	return nil
}

// isInt is squid's IsInt().
func isInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	hex := false
	if (strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X")) && len(s) > 2 {
		s, hex = s[2:], true
	} else if strings.HasPrefix(s, "0") && len(s) > 1 {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			continue
		}
		if hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			continue
		}
		return false
	}
	return true
}

// isReal is squid's IsReal(): at least one digit, at most one '.' and
// one exponent mark ('.' first), no white space inside; any other
// character is let through (so "1e-5" and, oddly, "1x" pass).
func isReal(s string) bool {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	gotdec, gotexp, gotreal := false, false, false
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			gotreal = true
		case c == '.':
			if gotdec || gotexp {
				return false
			}
			gotdec = true
		case c == 'e' || c == 'E':
			if gotexp {
				return false
			}
			gotexp = true
		case c == ' ' || (c >= '\t' && c <= '\r'):
			goto trail
		}
	}
trail:
	for ; i < len(s); i++ {
		if c := s[i]; !(c == ' ' || (c >= '\t' && c <= '\r')) {
			return false
		}
	}
	return gotreal
}

// atoi and atof behave like C's: the longest numeric prefix counts.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	v, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			if strings.HasPrefix(s, "-") {
				return math.MinInt32
			}
			return math.MaxInt32
		}
		return 0
	}
	return int(int32(v))
}

func atof(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	for end := len(s); end > 0; end-- {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v
		}
	}
	return 0
}
