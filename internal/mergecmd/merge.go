// Package mergecmd is `hmmgo merge`: it combines the shard files that
// `--shard i/N --shard-out f` runs of a search command wrote into exactly
// the output of one unsharded run of that command.
package mergecmd

import (
	"errors"
	"fmt"
	"strings"

	hmm2search "github.com/hmmgo/hmmgo/hmmer2/search"
	"github.com/hmmgo/hmmgo/hmmer3/hmmsearch"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/pairhmmcmd"
	"github.com/hmmgo/hmmgo/internal/shard"
	paparacmd "github.com/hmmgo/hmmgo/papara/cmd"
)

// Command is the table entry for cmd/hmmgo.
var Command = cli.Command{
	Name:    "merge",
	Summary: "combine the shard files of a sharded search into one run's output",
	Run:     run,
}

const usage = `usage: hmmgo merge <shard file>...

Reads the files that the N runs of 'hmmgo <command> --shard i/N
--shard-out <file> ...' wrote (i = 1..N) and writes what one unsharded
run of that command line writes, to the outputs it names (standard output,
-o, --tblout, --domtblout; for papara its alignment, placement and log
files). The set must be complete and of one run; files are checked for
truncation and damage. Supported: hmmsearch, hmm2search, pairhmm, papara.
`

// mergers maps a shard file's command to the code that merges it.
var mergers = map[string]func(cli.Env, []*shard.File) error{
	"hmmsearch":  hmmsearch.Merge,
	"hmm2search": hmm2search.Merge,
	"pairhmm":    pairhmmcmd.Merge,
	"papara":     paparacmd.Merge,
}

func run(env cli.Env, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(env.Stdout, usage)
		return 0
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			fmt.Fprintf(env.Stderr, "hmmgo merge: unknown option %s\n%s", a, usage)
			return 2
		}
	}
	if len(args) == 0 {
		fmt.Fprintf(env.Stderr, "hmmgo merge: no shard files given\n%s", usage)
		return 2
	}
	files, err := shard.ReadSet(args)
	if err != nil {
		return cli.Fail(env, "merge", err)
	}
	merge, ok := mergers[files[0].Header.Command]
	if !ok {
		return cli.Fail(env, "merge", fmt.Errorf("%s: shards of %q cannot be merged", files[0].Path, files[0].Header.Command))
	}
	if err := merge(env, files); err != nil {
		var reported interface{ ExitCode() int }
		if errors.As(err, &reported) {
			return reported.ExitCode() // the command has printed its error
		}
		return cli.Fail(env, "merge", err)
	}
	return 0
}
