package shard

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// magic opens every shard file; the version changes with the layout.
const magic = "hmmgo-shard 1\n"

// Header describes a shard file: which command wrote it, which shard of
// how many, the command line it ran (without the shard options, so that
// the merge can print exactly what one unsharded run prints), and
// fingerprints of its inputs, so that shards of different runs or of a
// changed input are never merged.
type Header struct {
	Command string            `json:"command"`
	Shard   int               `json:"shard"`
	Of      int               `json:"of"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
	Inputs  []string          `json:"inputs"`
	// First and End, for shards that are contiguous runs of items
	// (shard.Contiguous), give the items [First, End) this shard holds.
	First int64 `json:"first,omitempty"`
	End   int64 `json:"end,omitempty"`
	// Payload is the command's own encoding of its results, checked by
	// length and SHA-256 so that a truncated or damaged file is refused.
	PayloadBytes  int64  `json:"payload_bytes"`
	PayloadSHA256 string `json:"payload_sha256"`
}

// File is a shard file read back.
type File struct {
	Path    string
	Header  Header
	Payload []byte
}

// Encode writes the magic line, the header as one JSON line, and the
// payload.
func Encode(w io.Writer, h Header, payload []byte) error {
	sum := sha256.Sum256(payload)
	h.PayloadBytes = int64(len(payload))
	h.PayloadSHA256 = hex.EncodeToString(sum[:])
	js, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(magic)
	bw.Write(js)
	bw.WriteByte('\n')
	bw.Write(payload)
	return bw.Flush()
}

// Decode reads a shard file from r; name is used in errors.
func Decode(r io.Reader, name string) (*File, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := br.ReadString('\n')
	if first != magic {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%s: not an hmmgo shard file (it does not start with %q)", name, strings.TrimSpace(magic))
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: line 2: shard header is incomplete (truncated file?)", name)
	}
	f := &File{Path: name}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Header); err != nil {
		return nil, fmt.Errorf("%s: line 2: bad shard header: %v", name, err)
	}
	h := &f.Header
	if h.Command == "" || h.Of < 1 || h.Shard < 1 || h.Shard > h.Of || h.PayloadBytes < 0 {
		return nil, fmt.Errorf("%s: line 2: bad shard header (command %q, shard %d of %d)", name, h.Command, h.Shard, h.Of)
	}
	// Read what is there rather than allocate what the header claims: a
	// damaged length must be a truncation error, not a crash.
	payload, err := io.ReadAll(io.LimitReader(br, h.PayloadBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if int64(len(payload)) != h.PayloadBytes {
		return nil, fmt.Errorf("%s: results end after %d of %d bytes (truncated file?)", name, len(payload), h.PayloadBytes)
	}
	f.Payload = payload
	if n, _ := br.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%s: unexpected data after the %d bytes of results", name, h.PayloadBytes)
	}
	sum := sha256.Sum256(f.Payload)
	if hex.EncodeToString(sum[:]) != h.PayloadSHA256 {
		return nil, fmt.Errorf("%s: results fail their SHA-256 check (damaged file?)", name)
	}
	return f, nil
}

// ReadFile reads and checks one shard file.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return Decode(fh, path)
}

// ReadSet reads the shard files of one sharded run and checks that they
// belong together and are complete: the same command, command line and
// inputs, every shard 1..N exactly once. They come back in shard order.
func ReadSet(paths []string) ([]*File, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no shard files given")
	}
	var files []*File
	for _, p := range paths {
		f, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, CheckSet(files)
}

// CheckSet checks that files are the complete shards of one run and
// sorts them into shard order.
func CheckSet(files []*File) error {
	ref := &files[0].Header
	seen := make(map[int]string)
	for _, f := range files {
		h := &f.Header
		switch {
		case h.Command != ref.Command:
			return fmt.Errorf("%s is a %s shard but %s is a %s shard", f.Path, h.Command, files[0].Path, ref.Command)
		case h.Of != ref.Of:
			return fmt.Errorf("%s is shard %d of %d but %s is shard %d of %d", f.Path, h.Shard, h.Of, files[0].Path, ref.Shard, ref.Of)
		case !slices.Equal(h.Args, ref.Args):
			return fmt.Errorf("%s and %s come from different command lines (%q vs %q)", f.Path, files[0].Path,
				strings.Join(h.Args, " "), strings.Join(ref.Args, " "))
		case !slices.Equal(h.Inputs, ref.Inputs):
			return fmt.Errorf("%s and %s read different inputs (%s vs %s)", f.Path, files[0].Path,
				strings.Join(h.Inputs, "; "), strings.Join(ref.Inputs, "; "))
		case !sameEnv(h.Env, ref.Env):
			return fmt.Errorf("%s and %s ran with different environment settings", f.Path, files[0].Path)
		}
		if other, dup := seen[h.Shard]; dup {
			return fmt.Errorf("shard %d/%d is given twice (%s and %s)", h.Shard, h.Of, other, f.Path)
		}
		seen[h.Shard] = f.Path
	}
	if len(seen) != ref.Of {
		// Name a few: a damaged "of" could be two billion.
		var missing []string
		for i := 1; i <= ref.Of && len(missing) < maxListed; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, ref.Of))
			}
		}
		if n := ref.Of - len(seen); n > len(missing) {
			missing = append(missing, fmt.Sprintf("and %d more", n-len(missing)))
		}
		return fmt.Errorf("incomplete set of %d shards: missing %s", ref.Of, strings.Join(missing, ", "))
	}
	sort.Slice(files, func(a, b int) bool { return files[a].Header.Shard < files[b].Header.Shard })
	return nil
}

// maxListed is how many missing shards an error names.
const maxListed = 10

func sameEnv(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// DecodePayloads decodes each file's payload, which the command wrote with
// encoding/gob, into a T.
func DecodePayloads[T any](files []*File) ([]*T, error) {
	out := make([]*T, len(files))
	for i, f := range files {
		out[i] = new(T)
		if err := gob.NewDecoder(bytes.NewReader(f.Payload)).Decode(out[i]); err != nil {
			return nil, fmt.Errorf("%s: cannot decode the shard's results: %v", f.Path, err)
		}
	}
	return out, nil
}
