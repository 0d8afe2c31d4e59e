package hmm

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The tests of this package cannot import internal/testutil, which
// imports this package (for its random models); these are the same
// lookups: repository testdata, Debian's hmmer-examples, the shared data
// set and reference programs, skipping when absent.

func repoTestdata(t *testing.T, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func hmmerExamples(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("/usr/share/doc/hmmer/examples", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("hmmer-examples file %s not present; skipping", rel)
	}
	return p
}

func sharedData(t *testing.T, rel string) string {
	t.Helper()
	base := os.Getenv("HMMGO_SHARED_DATA")
	if base == "" {
		base = filepath.Join(filepath.Dir(repoTestdata(t, "")), "..", "shared", "data")
	}
	p := filepath.Join(base, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s not present; skipping", rel)
	}
	return p
}

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not on PATH; live cross-check skipped (golden files still checked)", name)
	}
	return p
}
