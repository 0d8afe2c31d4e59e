package search

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// goldenCase is one line of testdata/hmmer2/golden/cases.tsv: a report
// made by `hmm2search --cpu 1 <args>` (see regen.sh there).
type goldenCase struct {
	name   string
	status string
	args   []string
}

func readCases(t *testing.T, dir string) []goldenCase {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "golden", "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("bad cases.tsv line %q", sc.Text())
		}
		cases = append(cases, goldenCase{parts[0], parts[1], strings.Fields(parts[2])})
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runSearch runs `hmmgo hmm2search args` in-process.
func runSearch(args []string) (stdout, stderr []byte, status int) {
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	status = Run(env, args)
	return out.Bytes(), errb.Bytes(), status
}

// firstDiff describes where two reports part.
func firstDiff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "identical"
}

// stage copies the fixture models and databases into a temporary
// directory, unpacking *.hmm2.gz models (hmm2search reads only plain
// model files), and makes it the working directory, so that the paths
// the reports print are those of the golden files.
func stage(t *testing.T, dir string) {
	t.Helper()
	tmp := t.TempDir()
	for _, sub := range []string{"models", "db"} {
		if err := os.MkdirAll(filepath.Join(tmp, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			src := filepath.Join(dir, sub, e.Name())
			var data []byte
			name := e.Name()
			if strings.HasSuffix(name, ".hmm2.gz") {
				data = gunzip(t, src)
				name = strings.TrimSuffix(name, ".gz")
			} else if data, err = os.ReadFile(src); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tmp, sub, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(tmp)
}

// TestGoldenReports compares every report with the one hmm2search made.
func TestGoldenReports(t *testing.T) {
	dir := testutil.Testdata(t, "hmmer2")
	cases := readCases(t, dir)
	stage(t, dir)
	for _, c := range cases {
		want := gunzip(t, filepath.Join(dir, "golden", c.name+".out.gz"))
		got, stderr, status := runSearch(c.args)
		if c.status != "0" {
			if status == 0 || len(got) != 0 {
				t.Errorf("%s: hmm2search failed (status %s) but hmmgo exited %d with %d bytes of output",
					c.name, c.status, status, len(got))
			}
			continue
		}
		if status != 0 {
			t.Errorf("%s: exit status %d: %s", c.name, status, stderr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s (%s): report differs at %s", c.name, strings.Join(c.args, " "), firstDiff(want, got))
		}
	}
}

// TestLiveHmm2search runs Debian's hmm2search on the golden cases when it
// is installed, so that a fixture regenerated on another machine is
// checked too.
func TestLiveHmm2search(t *testing.T) {
	bin := testutil.Tool(t, "hmm2search")
	dir := testutil.Testdata(t, "hmmer2")
	cases := readCases(t, dir)
	stage(t, dir)
	if testing.Short() {
		cases = cases[:10]
	}
	for _, c := range cases {
		if c.status != "0" {
			continue
		}
		cmd := exec.Command(bin, append([]string{"--cpu", "1"}, c.args...)...)
		want, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: hmm2search: %v", c.name, err)
			continue
		}
		got, stderr, status := runSearch(c.args)
		if status != 0 {
			t.Errorf("%s: exit status %d: %s", c.name, status, stderr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: report differs from live hmm2search at %s", c.name, firstDiff(want, got))
		}
	}
}
