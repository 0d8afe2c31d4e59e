package fastaprint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
)

// A queued search hashes its database at every submission (0.2 s for
// 200 MB on a GPU host, a tenth of a short two-worker run), and a worker
// at every start. The hash of a file is kept in the user's cache
// directory (hmmgo/fastaprint/), keyed by the file's absolute path and
// valid while its identity (device, inode, size, modification and change
// times, fileIdentity) is the one recorded; HMMGO_FINGERPRINT_CACHE=off
// turns it off. A stale entry cannot go unnoticed: the change time moves
// with every write, and a worker whose file differs refuses the tasks.

// cacheEntry is one file's recorded hash.
type cacheEntry struct {
	Path     string
	Identity string
	SHA256   string
}

// cachePath returns the entry file for path, or "" when there is no
// cache.
func cachePath(path string) string {
	if os.Getenv("HMMGO_FINGERPRINT_CACHE") == "off" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	key := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, "hmmgo", "fastaprint", hex.EncodeToString(key[:16])+".json")
}

// cachedHash returns the recorded hash of the open file at path when its
// identity is still the recorded one.
func cachedHash(path string, f *os.File) (string, bool) {
	cp := cachePath(path)
	id, ok := fileIdentity(f)
	if cp == "" || !ok {
		return "", false
	}
	b, err := os.ReadFile(cp)
	if err != nil {
		return "", false
	}
	var e cacheEntry
	abs, _ := filepath.Abs(path)
	if json.Unmarshal(b, &e) != nil || e.Path != abs || e.Identity != id || len(e.SHA256) != 64 {
		return "", false
	}
	return e.SHA256, true
}

// recordHash records sum as the hash of the open file at path, if the
// file's identity is still before (taken before hashing: a file written
// meanwhile is not recorded). Failures only cost the next run a hash.
func recordHash(path string, f *os.File, before, sum string) {
	cp := cachePath(path)
	id, ok := fileIdentity(f)
	if cp == "" || !ok || id != before {
		return
	}
	abs, _ := filepath.Abs(path)
	b, err := json.Marshal(cacheEntry{Path: abs, Identity: id, SHA256: sum})
	if err != nil || os.MkdirAll(filepath.Dir(cp), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(cp), ".entry-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), cp) != nil {
		os.Remove(tmp.Name())
	}
}
