package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOutputFileCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.tbl")
	o, err := CreateOutput(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(o, "half")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("output visible before Commit")
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "half" {
		t.Fatalf("committed %q", b)
	}

	o, _ = CreateOutput(filepath.Join(dir, "failed.tbl"), nil)
	fmt.Fprint(o, "partial")
	o.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("abort left files behind: %v", ents)
	}
}

func TestOutputFileDevice(t *testing.T) {
	o, err := CreateOutput(os.DevNull, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(o, "discarded")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s is no longer a device", os.DevNull)
	}
}

func TestOutputFileStdout(t *testing.T) {
	var buf bytes.Buffer
	o, _ := CreateOutput("-", &buf)
	fmt.Fprint(o, "x")
	o.Commit()
	if buf.String() != "x" {
		t.Fatal("'-' must write to stdout")
	}
}

// Bad output paths fail at once, with the path the user gave and not the
// temporary file's name.
func TestOutputFileBadPaths(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, path, want string }{
		{"directory", dir, dir + ": it is a directory"},
		{"missing directory", filepath.Join(dir, "none", "x"), filepath.Join(dir, "none", "x") + ": no such file or directory"},
	} {
		_, err := CreateOutput(c.path, nil)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || strings.Contains(err.Error(), "partial") {
			t.Errorf("%s: error %v, want one ending in %q", c.name, err, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed opens left files behind: %v", ents)
	}
}

func TestThreads(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 2} {
		if got := Threads(n); got != max(n, 1) {
			t.Errorf("Threads(%d) = %d", n, got)
		}
	}
	if got := Threads(100000000); got > 4*runtime.NumCPU() && got > 64 {
		t.Errorf("Threads(1e8) = %d, not bounded", got)
	}
}

// A reader that quotes a 50 MB token must not print a 50 MB error line.
func TestFailClipsLongMessages(t *testing.T) {
	var stderr bytes.Buffer
	long := fmt.Errorf("db.fa:2: illegal character '1' in sequence %s (query x is a DNA model)", strings.Repeat("é", 1<<20))
	if code := Fail(Env{Stderr: &stderr}, "hmmsearch", long); code != 1 {
		t.Fatalf("exit %d", code)
	}
	msg := stderr.String()
	if len(msg) > maxErrorLen+100 || !utf8.ValidString(msg) || strings.Count(msg, "\n") != 1 {
		t.Fatalf("%d bytes, valid UTF-8 %v, %d newlines", len(msg), utf8.ValidString(msg), strings.Count(msg, "\n"))
	}
	for _, want := range []string{"hmmgo hmmsearch: db.fa:2: illegal character '1' in sequence ééé", "bytes ...]éé", "éé (query x is a DNA model)\n"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not contain %q", msg, want)
		}
	}
	stderr.Reset()
	Fail(Env{Stderr: &stderr}, "x", fmt.Errorf("short"))
	if stderr.String() != "hmmgo x: short\n" {
		t.Errorf("short message changed: %q", stderr.String())
	}
}

func TestNotAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "db.fa")
	os.WriteFile(in, []byte(">a\nAC\n"), 0o644)
	link := filepath.Join(dir, "link.fa")
	os.Symlink(in, link)
	if err := NotAnInput(in, "-", in); err == nil || err.Error() != "output file "+in+" is the input file "+in+": refusing to replace it" {
		t.Errorf("same path: %v", err)
	}
	if err := NotAnInput(link, in); err == nil {
		t.Error("a link to the input was accepted as output")
	}
	for _, out := range []string{"-", os.DevNull, filepath.Join(dir, "new.db")} {
		if err := NotAnInput(out, in, os.DevNull); err != nil {
			t.Errorf("%s: %v", out, err)
		}
	}
}
