package nvrtc

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Cache keeps compiled kernels on disk: <key>.cubin or <key>.ptx holds the
// image (readable by cuobjdump), <key>.json what is needed to use it. The
// key is the SHA-256 of everything that decides the output: source,
// headers, name expressions, options, the device's compute capability and
// NVRTC's version.
//
// The cache is best effort: an unreadable, unwritable or corrupt cache
// costs a compilation, never a failed run.
type Cache struct {
	Dir string
}

// DefaultCache returns the cache in $HMMGO_KERNEL_CACHE, else
// $XDG_CACHE_HOME/hmmgo/kernels, else ~/.cache/hmmgo/kernels; nil when
// HMMGO_KERNEL_CACHE is "off" or no cache directory can be named.
func DefaultCache() *Cache {
	if d := os.Getenv("HMMGO_KERNEL_CACHE"); d != "" {
		if d == "off" {
			return nil
		}
		return &Cache{Dir: d}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	return &Cache{Dir: filepath.Join(base, "hmmgo", "kernels")}
}

// cacheKey hashes the inputs of a compilation, each length-prefixed so
// that no two different inputs serialise alike.
func cacheKey(p Program, opts []string, t Target, nvrtcVersion string) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field("hmmgo kernel cache v1")
	field("nvrtc " + nvrtcVersion)
	field("target " + t.String())
	field(p.Name)
	field(p.Source)
	names := make([]string, 0, len(p.Headers))
	for n := range p.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	field(fmt.Sprint("headers ", len(names)))
	for _, n := range names {
		field(n)
		field(p.Headers[n])
	}
	field(fmt.Sprint("options ", len(opts)))
	for _, o := range opts {
		field(o)
	}
	field(fmt.Sprint("names ", len(p.NameExpressions)))
	for _, e := range p.NameExpressions {
		field(e)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// entry is the JSON side of a cache entry.
type entry struct {
	Kind         string            `json:"kind"`
	Arch         string            `json:"arch"`
	NVRTC        string            `json:"nvrtc"`
	SHA256       string            `json:"sha256"` // of the image file, to catch truncation
	LoweredNames map[string]string `json:"lowered_names,omitempty"`
	Log          string            `json:"log,omitempty"`
}

// get returns the cached image, or nil and why not ("" for a plain miss).
func (c *Cache) get(key string) (*Image, string) {
	meta, err := os.ReadFile(filepath.Join(c.Dir, key+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, "kernel cache unreadable: " + err.Error()
	}
	var e entry
	if err := json.Unmarshal(meta, &e); err != nil || (e.Kind != "cubin" && e.Kind != "ptx") {
		return nil, "kernel cache entry " + key + " corrupt; recompiled"
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, key+"."+e.Kind))
	if err != nil {
		return nil, "kernel cache entry " + key + " incomplete; recompiled"
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != e.SHA256 {
		return nil, "kernel cache entry " + key + " corrupt; recompiled"
	}
	return &Image{Kind: e.Kind, Arch: e.Arch, Data: data, LoweredNames: e.LoweredNames, Log: e.Log,
		NVRTC: e.NVRTC, Key: key, FromCache: true}, ""
}

// put stores img; it returns why it could not, or "".
func (c *Cache) put(img *Image) string {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "kernel cache not written: " + err.Error()
	}
	sum := sha256.Sum256(img.Data)
	meta, err := json.MarshalIndent(entry{Kind: img.Kind, Arch: img.Arch, NVRTC: img.NVRTC, SHA256: hex.EncodeToString(sum[:]),
		LoweredNames: img.LoweredNames, Log: img.Log}, "", "  ")
	if err != nil {
		return "kernel cache not written: " + err.Error()
	}
	// The image first, the JSON last: a reader finds an entry only once
	// both are complete.
	if err := writeAtomic(filepath.Join(c.Dir, img.Key+"."+img.Kind), img.Data); err != nil {
		return "kernel cache not written: " + err.Error()
	}
	if err := writeAtomic(filepath.Join(c.Dir, img.Key+".json"), append(meta, '\n')); err != nil {
		return "kernel cache not written: " + err.Error()
	}
	return ""
}

// Remove deletes an entry, e.g. one the driver refused to load.
func (c *Cache) Remove(key string) {
	for _, ext := range []string{".json", ".cubin", ".ptx"} {
		os.Remove(filepath.Join(c.Dir, key+ext))
	}
}

// writeAtomic writes through a temporary file and a rename, so that
// concurrent processes never see a partial file.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// Writable reports whether the cache directory can be created and
// written, for diagnostics (gpuinfo).
func (c *Cache) Writable() error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, ".probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Entries counts the cached images and their bytes.
func (c *Cache) Entries() (n int, size int64) {
	des, err := os.ReadDir(c.Dir)
	if err != nil {
		return 0, 0
	}
	for _, d := range des {
		if strings.HasSuffix(d.Name(), ".cubin") || strings.HasSuffix(d.Name(), ".ptx") {
			if info, err := d.Info(); err == nil {
				n++
				size += info.Size()
			}
		}
	}
	return n, size
}
