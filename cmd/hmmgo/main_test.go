package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestHandlesSignals(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"worker --redis x --db y", true},
		{"hmmsearch --redis redis://h m.hmm db.fa", true},
		{"hmmsearch --redi=redis://h m.hmm db.fa", true},
		{"makedb -redis redis://h db.fa NAME", true},
		{"hmmsearch -o out m.hmm db.fa", false},
		{"hmmsearch -o out -- m.hmm --redis", false},
		{"makedb db.fa db.hmmgo", false},
		{"pairhmm -o x in", false},
	} {
		if got := handlesSignals(strings.Fields(c.args)); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}

// An interrupted run removes its unfinished output file: synthdb writing
// a large database is stopped by SIGTERM while the file is being written.
func TestInterruptRemovesPartialOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to send on Windows")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "hmmgo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "db.fa")
	cmd := exec.Command(bin, "synthdb", "-n", "50G", "--cpu", "1", "-o", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the temporary file has data, then interrupt.
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(dir, ".db.fa.partial-*"))
		if len(m) == 1 {
			if st, err := os.Stat(m[0]); err == nil && st.Size() > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no partial output appeared")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("exit: %v, want status %d", err, 128+int(syscall.SIGTERM))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
}
