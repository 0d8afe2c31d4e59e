package search_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer2/search"
	"github.com/hmmgo/hmmgo/internal/cli"
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
