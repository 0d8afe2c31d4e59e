package hmmsearch_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer3/hmmsearch"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// A command line that hmmsearch rejects is rejected with its words,
// followed by the short usage; the exit status is 2.
func Example() {
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stdout}
	code := hmmsearch.Run(env, []string{"--textw", "100", "globins4.hmm", "globins45.fa"})
	fmt.Println("exit status", code)
	// Output:
	// hmmgo hmmsearch: Failed to parse command line: option --textw takes integer arg in range n>=120; got 100 on cmdline
	// Usage: hmmgo hmmsearch [options] <hmmfile> <seqdb>
	//
	// where most common options are:
	//   -h : show brief help on version and usage
	//
	// To see more help on available options, do hmmgo hmmsearch -h
	//
	// exit status 2
}
