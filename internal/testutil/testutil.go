// Package testutil finds test inputs: the repository's testdata/ and the
// peers' shared data set beside the checkout (../shared/data), which tests
// may use but must skip without.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testutil: go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Testdata returns the path of a file under the repository's testdata/.
func Testdata(t testing.TB, rel string) string {
	return filepath.Join(RepoRoot(t), "testdata", rel)
}

// SharedData returns the path of rel under the shared data set
// ($HMMGO_SHARED_DATA, else ../shared/data beside the checkout), and
// skips the test when it is absent.
func SharedData(t testing.TB, rel string) string {
	t.Helper()
	base := os.Getenv("HMMGO_SHARED_DATA")
	if base == "" {
		base = filepath.Join(RepoRoot(t), "..", "shared", "data")
	}
	p := filepath.Join(base, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s not present; skipping", rel)
	}
	return p
}

// Tool returns the path of a reference program on PATH, or skips the test
// saying the live cross-check needs it.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not on PATH; live cross-check skipped (golden files still checked)", name)
	}
	return p
}

// HMMERExamples returns a file under Debian's hmmer-examples directory
// ($HMMGO_HMMER_EXAMPLES where a copy travels, as to the GPU host),
// skipping when the package is not installed.
func HMMERExamples(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("HMMGO_HMMER_EXAMPLES")
	if dir == "" {
		dir = "/usr/share/doc/hmmer/examples"
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("hmmer-examples file %s not present; skipping", rel)
	}
	return p
}
