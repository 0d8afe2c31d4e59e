package search_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer2/search"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
)

// Run `hmmgo hmm2search` in-process and show the per-sequence table of
// its report, which is byte-identical to Debian's hmm2search.
func ExampleRun() {
	var out bytes.Buffer
	env := cli.Env{Stdin: os.Stdin, Stdout: &out, Stderr: os.Stderr}
	status := search.Run(env, []string{"-A", "0", "-E", "5e-26",
		"../../testdata/hmmer2/models/globin.hmm2", "../../testdata/hmmer2/db/mixed.fa"})
	report := out.String()
	start := strings.Index(report, "Scores for complete sequences")
	end := strings.Index(report, "\nParsed for domains")
	fmt.Println(status)
	for _, line := range strings.Split(report[start:end], "\n")[3:] {
		fmt.Println(line)
	}
	// Output:
	// 0
	// globin-26                                               103.0    3.7e-29   1
	// globin-9                                                 97.4    1.9e-27   1
	// globin-5                                                 93.6    2.5e-26   1
}

// Search a database in three static shards, as three jobs of a batch
// array would, and merge their files into the report one run prints.
func ExampleMerge() {
	dir, err := os.MkdirTemp("", "hmm2shards")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	args := []string{"-A", "0", "-E", "5e-26",
		"../../testdata/hmmer2/models/globin.hmm2", "../../testdata/hmmer2/db/mixed.fa"}
	var paths []string
	for i := 1; i <= 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("part.%d", i))
		env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
		search.Run(env, append([]string{"--shard", fmt.Sprintf("%d/3", i), "--shard-out", p}, args...))
		paths = append(paths, p)
	}
	files, err := shard.ReadSet(paths) // checks the set: complete, one run, undamaged
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	if err := search.Merge(cli.Env{Stdout: &out, Stderr: os.Stderr}, files); err != nil {
		panic(err)
	}
	report := out.String()
	start := strings.Index(report, "Scores for complete sequences")
	end := strings.Index(report, "\nParsed for domains")
	for _, line := range strings.Split(report[start:end], "\n")[3:] {
		fmt.Println(line)
	}
	fmt.Println(report[strings.Index(report, "Total sequences"):strings.Index(report, "\n\nWhole")])
	// Output:
	// globin-26                                               103.0    3.7e-29   1
	// globin-9                                                 97.4    1.9e-27   1
	// globin-5                                                 93.6    2.5e-26   1
	//
	// Total sequences searched: 380
}
