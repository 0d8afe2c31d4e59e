package fastaprint

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestHashCache: a second scan takes the recorded hash; a write that keeps
// the size and the modification time still invalidates it (the change
// time moves); HMMGO_FINGERPRINT_CACHE=off bypasses it; nothing is cached
// for a file changed within racyWindow.
func TestHashCache(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the hash cache relies on Linux's change times")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0 // the test's files are all new
	path := filepath.Join(t.TempDir(), "db.fa")
	if err := os.WriteFile(path, []byte(">a\nACGT\n>b\nGGTT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := Scan(path, false)
	if err != nil {
		t.Fatal(err)
	}
	// Plant a different hash in the entry: a scan that uses the cache
	// returns it.
	id, ok := Identity(path)
	fake := strings.Repeat("ab", 32)
	if _, hit := LoadCached(path, "sha256", id); !ok || !hit {
		t.Fatal("no entry recorded")
	}
	StoreCached(path, "sha256", id, []byte(fake))
	if p, err := Scan(path, true); err != nil || p.SHA256 != fake || p.Size != first.Size || len(p.Starts) != 2 {
		t.Fatalf("second scan: %+v, %v; want the recorded hash, size %d, 2 starts", p, err, first.Size)
	}
	t.Setenv("HMMGO_FINGERPRINT_CACHE", "off")
	if p, _ := Scan(path, false); p.SHA256 != first.SHA256 {
		t.Fatal("HMMGO_FINGERPRINT_CACHE=off still used the cache")
	}
	t.Setenv("HMMGO_FINGERPRINT_CACHE", "")
	// Same size, same modification time, other bytes.
	fi, _ := os.Stat(path)
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(path, []byte(">a\nACGA\n>b\nGGTT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	p, err := Scan(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.SHA256 == fake || p.SHA256 == first.SHA256 {
		t.Fatalf("rewritten file: hash %s, the stale or the old one", p.SHA256)
	}

	racyWindow = time.Hour
	if _, ok := Identity(path); ok {
		t.Fatal("a file written a moment ago has an identity to cache by")
	}
}
