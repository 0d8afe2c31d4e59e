package mergecmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hmm2search "github.com/hmmgo/hmmgo/hmmer2/search"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/pairhmmcmd"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

const records = "1 1\nACGT IIII IIII IIII ++++\nACGTT\n1 2\nACG III III III +++\nACG\nTTT\n2 1\nAC II II II ++\nGT II II II ++\nACGT\n"

func runEnv(c cli.Command, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := c.Run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// TestMergeDispatches: hmmgo merge recognises the command that wrote the
// shards (here pairhmm) and writes the unsharded output, whatever the
// order the files are given in.
func TestMergeDispatches(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(records), 0o644)
	_, want, _ := runEnv(pairhmmcmd.Command, "--nogpu", in)
	var files []string
	for i := 3; i >= 1; i-- {
		f := filepath.Join(dir, fmt.Sprintf("p%d", i))
		if code, _, stderr := runEnv(pairhmmcmd.Command, "--nogpu", "--shard", fmt.Sprintf("%d/3", i), "--shard-out", f, in); code != 0 {
			t.Fatal(stderr)
		}
		files = append(files, f)
	}
	code, got, stderr := runEnv(Command, files...)
	if code != 0 || got != want || want == "" {
		t.Fatalf("exit %d, %q; want %q (%s)", code, got, want, stderr)
	}
}

// TestMergeHmm2search: hmm2search shards, given out of order, merge into
// the unsharded report.
func TestMergeHmm2search(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-E", "1e9", "-A", "2", testutil.Testdata(t, "hmmer2/models/fn3.hmm2"), testutil.Testdata(t, "hmmer2/db/mixed.fa")}
	_, want, _ := runEnv(hmm2search.Command, args...)
	var files []string
	for i := 4; i >= 1; i-- {
		f := filepath.Join(dir, fmt.Sprintf("h%d", i))
		sargs := append([]string{"--shard", fmt.Sprintf("%d/4", i), "--shard-out", f}, args...)
		if code, out, stderr := runEnv(hmm2search.Command, sargs...); code != 0 || out != "" {
			t.Fatalf("exit %d, %d bytes on stdout: %s", code, len(out), stderr)
		}
		files = append(files, f)
	}
	code, got, stderr := runEnv(Command, files...)
	if code != 0 || got != want || !strings.Contains(want, "Total sequences searched: 380") {
		t.Fatalf("exit %d (%s); merged report equal: %v", code, stderr, got == want)
	}
}

func TestMergeErrors(t *testing.T) {
	notShard := filepath.Join(t.TempDir(), "x")
	os.WriteFile(notShard, []byte("hello\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "no shard files"},
		{[]string{"--bogus"}, 2, "unknown option"},
		{[]string{notShard}, 1, "not an hmmgo shard file"},
		{[]string{"/nonexistent/shard"}, 1, "no such file"},
	} {
		code, _, stderr := runEnv(Command, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// Example: the usage text.
func Example() {
	Command.Run(cli.Env{Stdout: os.Stdout}, []string{"-h"})
	// Output:
	// usage: hmmgo merge <shard file>...
	//
	// Reads the files that the N runs of 'hmmgo <command> --shard i/N
	// --shard-out <file> ...' wrote (i = 1..N) and writes what one unsharded
	// run of that command line writes, to the outputs it names (standard output,
	// -o, --tblout, --domtblout; for papara its alignment, placement and log
	// files). The set must be complete and of one run; files are checked for
	// truncation and damage. Supported: hmmsearch, hmm2search, pairhmm, papara.
}
