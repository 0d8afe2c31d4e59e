package pairhmmcmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/shard"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// TestShardsMergeToUnsharded: for both output formats and several shard
// counts (more shards than records included), the merged shards are the
// unsharded output byte for byte, and every shard holds a contiguous run.
func TestShardsMergeToUnsharded(t *testing.T) {
	in := testutil.SharedData(t, "PairHMM/10s.in")
	dir := t.TempDir()
	for _, format := range []string{"lines", "matrix"} {
		code, want, stderr := runCmd(t, "", "--format", format, in)
		if code != 0 {
			t.Fatal(stderr)
		}
		for _, n := range []int{1, 3, 8} {
			var files []string
			for i := 1; i <= n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("%s_%d_%d", format, i, n))
				code, out, stderr := runCmd(t, "", "--format", format, "--shard", fmt.Sprintf("%d/%d", i, n), "--shard-out", p, in)
				if code != 0 || out != "" {
					t.Fatalf("shard %d/%d: exit %d, stdout %d bytes: %s", i, n, code, len(out), stderr)
				}
				files = append(files, p)
			}
			set, err := shard.ReadSet(files)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Merge(cli.Env{Stdout: &got, Stderr: os.Stderr}, set); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("%s, %d shards: merged output differs from the unsharded run", format, n)
			}
			if set[0].Header.Args[0] != "-format="+format && set[0].Header.Args[1] != "-format="+format {
				t.Errorf("recorded command line %q lacks the format", set[0].Header.Args)
			}
		}
	}
}

// TestShardErrors: bad shard options are usage errors.
func TestShardErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "1/2", "x.in"}, "needs --shard-out"},
		{[]string{"--shard", "0/2", "--shard-out", "o", "x.in"}, "1 <= i <= N"},
		{[]string{"--shard-out", "o", "x.in"}, "needs --shard"},
		{[]string{"--shard", "1/2", "--shard-out", "o", "-"}, "not standard input"},
	} {
		code, _, stderr := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// ExampleMerge shows a three-way split of a pair-HMM run.
func ExampleMerge() {
	dir, _ := os.MkdirTemp("", "pairhmm-shards")
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte("1 1\nACGT IIII IIII IIII ++++\nACGTT\n1 2\nACG III III III +++\nACG\nTTT\n"), 0o644)
	var files []string
	for i := 1; i <= 3; i++ {
		f := filepath.Join(dir, fmt.Sprintf("part%d", i))
		Command.Run(cli.Env{Stdout: os.Stdout, Stderr: os.Stdout}, []string{"--nogpu", "--shard", fmt.Sprintf("%d/3", i), "--shard-out", f, in})
		files = append(files, f)
	}
	set, err := shard.ReadSet(files)
	if err != nil {
		fmt.Println(err)
		return
	}
	Merge(cli.Env{Stdout: os.Stdout}, set) // what one unsharded run prints
	// Output:
	// -0.745075
	// -0.523136
	// -9.52268
}
