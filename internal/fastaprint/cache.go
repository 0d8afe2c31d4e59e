package fastaprint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// A queued search hashes and indexes its database at every submission
// (0.2 s for 200 MB on a GPU host, a tenth of a short two-worker run),
// and a worker hashes its databases at every start. What was computed
// from a file is kept in the user's cache directory (hmmgo/fastaprint/),
// keyed by the file's absolute path and a name, and valid while the
// file's identity (device, inode, size, modification and change times:
// Identity) is the one recorded with it; HMMGO_FINGERPRINT_CACHE=off
// turns it off. A stale entry cannot go unnoticed: the change time moves
// with every write, and a worker whose file differs refuses the tasks.

// cacheFile returns the entry file of name for path, or "" when there is
// no cache.
func cacheFile(path, name string) string {
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
	key := sha256.Sum256([]byte(abs + "\x00" + name))
	return filepath.Join(dir, "hmmgo", "fastaprint", hex.EncodeToString(key[:16]))
}

// Identity returns the identity of the file at path that cached data
// must match, or ok false when nothing may be cached for it.
func Identity(path string) (id string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	return fileIdentity(f)
}

// LoadCached returns the data recorded as name for path while the file
// had identity id (from Identity, taken before the file is read).
func LoadCached(path, name, id string) ([]byte, bool) {
	cf := cacheFile(path, name)
	if cf == "" || id == "" {
		return nil, false
	}
	b, err := os.ReadFile(cf)
	if err != nil {
		return nil, false
	}
	head, data, ok := bytes.Cut(b, []byte{'\n'})
	if !ok || string(head) != entryHead(path, id) {
		return nil, false
	}
	return data, true
}

// StoreCached records data as name for path if the file's identity is
// still id (the one taken before it was read: a file written meanwhile is
// not recorded). Failures only cost the next run the work again.
func StoreCached(path, name, id string, data []byte) {
	cf := cacheFile(path, name)
	if now, ok := Identity(path); cf == "" || id == "" || !ok || now != id {
		return
	}
	if os.MkdirAll(filepath.Dir(cf), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(cf), ".entry-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append([]byte(entryHead(path, id)+"\n"), data...))
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), cf) != nil {
		os.Remove(tmp.Name())
	}
}

// entryHead is an entry's first line: the absolute path and identity it
// holds for (a hash collision of the file name cannot mix entries up).
func entryHead(path, id string) string {
	abs, _ := filepath.Abs(path)
	return abs + "\x00" + id
}
