// Command hmmgo runs the dynamic-programming kernels of biological sequence
// search (HMMER3 and HMMER2 search, GATK's Pair-HMM, PaPaRa) on CPUs and GPUs.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"

	"github.com/hmmgo/hmmgo/gpu/gpuinfo"
	hmm2search "github.com/hmmgo/hmmgo/hmmer2/search"
	"github.com/hmmgo/hmmgo/hmmer3/hmmsearch"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/makedb"
	"github.com/hmmgo/hmmgo/internal/mergecmd"
	"github.com/hmmgo/hmmgo/internal/pairhmmcmd"
	"github.com/hmmgo/hmmgo/internal/synthdb"
	"github.com/hmmgo/hmmgo/internal/workercmd"
	paparacmd "github.com/hmmgo/hmmgo/papara/cmd"
	_ "github.com/hmmgo/hmmgo/papara/gpu" // registers the GPU scorer of hmmgo papara
)

// commands lists every subcommand; each lives in its own package.
var commands = []cli.Command{
	gpuinfo.Command,
	hmmsearch.Command,
	makedb.Command,
	pairhmmcmd.Command,
	paparacmd.Command,
	synthdb.Command,
	hmm2search.Command,
	mergecmd.Command,
	workercmd.Command,
}

func main() {
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if !handlesSignals(os.Args[1:]) {
		cli.RemovePartialsOnSignal()
	}
	stop := startProfile(env)
	rc := run(env, os.Args[1:])
	stop()
	writeAllocProfile(env)
	os.Exit(rc)
}

// writeAllocProfile writes the heap profile (allocations since the start,
// sampled) to $HMMGO_MEMPROFILE when it is set: per-query allocations of a
// many-model run show up as alloc_space there.
func writeAllocProfile(env cli.Env) {
	path := os.Getenv("HMMGO_MEMPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "hmmgo: HMMGO_MEMPROFILE: %v\n", err)
	}
}

// startProfile writes a CPU profile to $HMMGO_CPUPROFILE when it is set:
// benchmarks on hosts without Go tools use it to see where host time goes.
func startProfile(env cli.Env) (stop func()) {
	path := os.Getenv("HMMGO_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "hmmgo: HMMGO_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// handlesSignals reports a command line whose command catches interrupts
// itself: a worker, and the Redis modes of hmmsearch and makedb, which
// cancel their queued work. The others remove unfinished output files.
func handlesSignals(args []string) bool {
	if len(args) > 0 && args[0] == "worker" {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		// hmmsearch takes unambiguous abbreviations (--redi); a false
		// match only keeps the default signal handling.
		name, _, _ := strings.Cut(a, "=")
		if name == "-redis" || len(name) >= 3 && strings.HasPrefix("--redis", name) {
			return true
		}
	}
	return false
}

func run(env cli.Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.Name == args[0] {
			return c.Run(env, args[1:])
		}
	}
	fmt.Fprintf(env.Stderr, "hmmgo: unknown command %q (try 'hmmgo help')\n", args[0])
	return 2
}

func usage(env cli.Env) {
	fmt.Fprintln(env.Stderr, "usage: hmmgo <command> [options] [arguments]")
	fmt.Fprintln(env.Stderr, "\ncommands:")
	cs := append([]cli.Command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	for _, c := range cs {
		fmt.Fprintf(env.Stderr, "  %-12s %s\n", c.Name, c.Summary)
	}
}
