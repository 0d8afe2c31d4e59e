package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
