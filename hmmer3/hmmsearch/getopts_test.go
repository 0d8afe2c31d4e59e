package hmmsearch

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// usageCases are command lines hmmsearch rejects, with the first line
// HMMER 3.3.2 prints for each (recorded from Debian's hmmsearch).
var usageCases = []struct {
	args []string
	env  string // HMMER_NCPU, when set
	want string
}{
	{[]string{"--textw", "100"}, "", "Failed to parse command line: option --textw takes integer arg in range n>=120; got 100 on cmdline"},
	{[]string{"-E", "0"}, "", "Failed to parse command line: Option -E takes real-valued arg in range x>0; got 0 on cmdline"},
	{[]string{"-E", "abc"}, "", "Failed to parse command line: Option -E takes real-valued arg; got abc on cmdline"},
	{[]string{"-E", "1e-5x"}, "", "Failed to parse command line: Option -E takes real-valued arg; got 1e-5x on cmdline"},
	{[]string{"-Ex"}, "", "Failed to parse command line: Option -E takes real-valued arg; got x on cmdline"},
	{[]string{"--seed", "x"}, "", "Failed to parse command line: Option --seed takes integer arg; got x on cmdline"},
	{[]string{"--seed", "-1"}, "", "Failed to parse command line: option --seed takes integer arg in range n>=0; got -1 on cmdline"},
	{[]string{"--textw", "12x"}, "", "Failed to parse command line: Option --textw takes integer arg; got 12x on cmdline"},
	{[]string{"--textw="}, "", "Failed to parse command line: Option --textw takes integer arg; got  on cmdline"},
	{[]string{"-Z", "0"}, "", "Failed to parse command line: Option -Z takes real-valued arg in range x>0; got 0 on cmdline"},
	{[]string{"--domZ", "0"}, "", "Failed to parse command line: Option --domZ takes real-valued arg in range x>0; got 0 on cmdline"},
	{[]string{"--cpu", "-2"}, "", "Failed to parse command line: option --cpu takes integer arg in range n>=0; got -2 on cmdline"},
	{[]string{"-E", "1", "--cut_ga"}, "", "Failed to parse command line: Option -E is incompatible with option(s) -E,-T,--cut_ga,--cut_nc,"},
	{[]string{"--cut_ga", "--cut_tc"}, "", "Failed to parse command line: Option --cut_ga is incompatible with option(s) -E,-T,--domE,--domT,--in"},
	{[]string{"--incT", "5", "--incE", "0.1"}, "", "Failed to parse command line: Option --incE is incompatible with option(s) --incE,--incT,--cut_ga,-"},
	{[]string{"--F1", "0.1", "--max"}, "", "Failed to parse command line: Option --max is incompatible with option(s) --F1,--F2,--F3"},
	{[]string{"--notextw", "--textw", "130"}, "", "Failed to parse command line: Option --notextw is incompatible with option(s) --textw"},
	{[]string{"--dom", "3"}, "", "Failed to parse command line: Abbreviated option \"--dom\" is ambiguous."},
	{[]string{"--foo"}, "", "Failed to parse command line: No such option \"--foo\"."},
	{[]string{"--foo=3"}, "", "Failed to parse command line: No such option \"--foo=3\"."},
	{[]string{"-q"}, "", "Failed to parse command line: No such option \"-q\"."},
	{[]string{"-hq"}, "", "Failed to parse command line: No such option \"-q\"."},
	{[]string{"-E", "1", "-E", "2"}, "", "Failed to parse command line: Option -E has already been set on cmdline."},
	{[]string{"--acc", "--acc"}, "", "Failed to parse command line: Option --acc has already been set on cmdline."},
	{[]string{"--acc=yes"}, "", "Failed to parse command line: Option --acc does not take an argument."},
	{[]string{"--tblout", "-x"}, "", "Failed to parse command line: Arg looks like option? Use --tblout=-x if you really mean it."},
	{[]string{"-o", "-x"}, "", "Failed to parse command line: Arg looks like option? Use -o-x if you really mean it."},
	{nil, "x", "Failed to process environment: Option --cpu takes integer arg; got x in env"},
}

// runCmd runs the command in-process with fake inputs and the given
// HMMER_NCPU.
func runCmd(args []string, ncpu string) (code int, stdout, stderr string) {
	e := defaultEngine()
	e.lookupEnv = func(k string) (string, bool) {
		if k == "HMMER_NCPU" && ncpu != "" {
			return ncpu, true
		}
		return "", false
	}
	var out, errb bytes.Buffer
	code = e.run(cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	for _, c := range usageCases {
		args := append(append([]string(nil), c.args...), "m.hmm", "s.fa")
		code, stdout, stderr := runCmd(args, c.env)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || stdout != "" || first != prog+": "+c.want {
			t.Errorf("%q: exit %d, first line %q; want 2 and %q", c.args, code, first, c.want)
		}
		if !strings.Contains(stderr, "Usage: hmmgo hmmsearch [options] <hmmfile> <seqdb>") {
			t.Errorf("%q: no usage line in %q", c.args, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"m.hmm", "s.fa", "-E", "1"}, "Incorrect number of command line arguments."}, // options must come first
		{[]string{"m.hmm", "s.fa", "--tblout"}, "Incorrect number of command line arguments."},
		{[]string{"m.hmm"}, "Incorrect number of command line arguments."},
		{[]string{"-", "-"}, "Either <hmmfile> or <seqdb> may be '-' (to read from stdin), but not both."},
	} {
		code, _, stderr := runCmd(c.args, "")
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || first != prog+": "+c.want {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, first, c.want)
		}
	}
}

// TestUsageErrorsLive checks the recorded messages against the hmmsearch
// on PATH, so that the table above cannot drift from HMMER.
func TestUsageErrorsLive(t *testing.T) {
	bin := testutil.Tool(t, "hmmsearch")
	m := testutil.Testdata(t, "globins4.hmm")
	s := testutil.Testdata(t, "globins45.fa")
	for _, c := range usageCases {
		cmd := exec.Command(bin, append(append([]string(nil), c.args...), m, s)...)
		if c.env != "" {
			cmd.Env = append(cmd.Environ(), "HMMER_NCPU="+c.env)
		}
		out, _ := cmd.Output()
		first, _, _ := strings.Cut(string(out), "\n")
		if first != c.want {
			t.Errorf("hmmsearch %q says %q; our table has %q", c.args, first, c.want)
		}
	}
}

func TestOptionForms(t *testing.T) {
	g := newGetopts(options())
	err := g.processCmdline([]string{"--textw=130", "-Z10", "--domE=1e-3", "--tbl", "t.tbl", "-E1e-5", "--cpu", "0",
		"--acc", "--incT", "3", "--", "-m.hmm", "s.fa"})
	if err == nil {
		err = g.verify()
	}
	if err != nil {
		t.Fatal(err)
	}
	if g.integer("--textw") != 130 || g.real("-Z") != 10 || g.real("--domE") != 1e-3 || g.str("--tblout") != "t.tbl" ||
		g.real("-E") != 1e-5 || g.integer("--cpu") != 0 || !g.isOn("--acc") || g.isOn("--noali") || g.real("--incT") != 3 {
		t.Errorf("values parsed wrong: %q", g.val)
	}
	if len(g.args) != 2 || g.args[0] != "-m.hmm" {
		t.Errorf("arguments after --: %q", g.args)
	}
	want := "hmmgo hmmsearch --tblout t.tbl --acc --textw 130 -E 1e-5 --domE 1e-3 --incT 3 -Z 10 --cpu 0 -m.hmm s.fa "
	if got := g.spoof(prog); got != want {
		t.Errorf("spoofed command line\n got %q\nwant %q", got, want)
	}
}

func TestIsUsed(t *testing.T) {
	g := newGetopts(options())
	if err := g.processCmdline([]string{"-E", "10.0", "--domE", "10", "--seed", "42", "--F2", "1e-3", "--nobias", "m", "s"}); err != nil {
		t.Fatal(err)
	}
	// An option given its default text is not "used" (Easel compares the
	// strings), so hmmsearch's header omits it; "10" differs from "10.0".
	for opt, want := range map[string]bool{"-E": false, "--domE": true, "--seed": false, "--F2": false, "--nobias": true, "-T": false, "--textw": false} {
		if got := g.isUsed(opt); got != want {
			t.Errorf("isUsed(%s) = %v, want %v", opt, got, want)
		}
	}
}

func TestHelp(t *testing.T) {
	code, stdout, _ := runCmd([]string{"-h"}, "")
	if code != 0 {
		t.Fatalf("-h exit %d", code)
	}
	for _, want := range []string{
		"Usage: hmmgo hmmsearch [options] <hmmfile> <seqdb>\n\nBasic options:\n  -h : show brief help on version and usage\n",
		"  --textw <n>      : set max width of ASCII text output lines  [120]  (n>=120)\n",
		"  -E <x>     : report sequences <= this E-value threshold in output  [10.0]  (x>0)\n",
		// This group is too wide for defaults at 80 columns, as in HMMER.
		"  --incE <x>    : consider sequences <= this E-value threshold as significant\n",
		"  --F2 <x> : Stage 2 (Vit) threshold: promote hits w/ P <= F2  [1e-3]\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestHelpLive compares the option help with hmmsearch -h line for line
// (the banner, --cpu's machine-dependent default and hmmgo's own GPU
// group aside).
func TestHelpLive(t *testing.T) {
	bin := testutil.Tool(t, "hmmsearch")
	out, err := exec.Command(bin, "-h").Output()
	if err != nil {
		t.Fatal(err)
	}
	_, ours, _ := runCmd([]string{"-h"}, "")
	ours, _, _ = strings.Cut(ours, "\nGPU options (hmmgo):")
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			switch {
			case strings.HasPrefix(l, "#"), strings.HasPrefix(l, "  --cpu"):
			case strings.HasPrefix(l, "Usage:"):
				keep = append(keep, "Usage:"+l[strings.Index(l, " ["):])
			default:
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(string(out)) != strip(ours) {
		t.Errorf("help differs from hmmsearch -h:\n%s\n---- ours ----\n%s", strip(string(out)), strip(ours))
	}
}
