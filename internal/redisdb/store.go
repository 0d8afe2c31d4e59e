package redisdb

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/fastaprint"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
	"github.com/redis/go-redis/v9"
)

// StoreOptions tune Store; zero values take the defaults.
type StoreOptions struct {
	// BlockResidues: a block holds records until it has about this many
	// residues (default 8e6; a longer record makes a block of its own).
	BlockResidues int64
	// ChunkBytes caps a stored value (default 4 MiB).
	ChunkBytes int
	// Progress, if set, is called after each block is stored.
	Progress func(blocks int, sequences, residues int64)
}

// Store reads the FASTA file at path in abc (with hmmsearch's rules, as
// a search reads it) and stores it in Redis as name, replacing any
// database of that name only once the new one is complete.
func Store(ctx context.Context, c *redis.Client, name, path string, abc *alphabet.Alphabet, opt StoreOptions) (*Manifest, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if opt.BlockResidues <= 0 {
		opt.BlockResidues = 8_000_000
	}
	if opt.ChunkBytes <= 0 {
		opt.ChunkBytes = 4 << 20
	}
	fp, err := fastaprint.Scan(path, true)
	if err != nil {
		return nil, err
	}
	fp.Starts = append(fp.Starts, fp.Size)
	old, err := ReadManifest(ctx, c, name)
	switch {
	case errors.Is(err, ErrNoDatabase):
	case queue.IsTransient(err):
		return nil, err
	case err != nil:
		old = nil // damaged or foreign: replaced all the same; its chunks cannot be named
	}
	m := &Manifest{Format: Format, Version: Version, Name: name, Generation: randomHex(8), Source: path,
		SHA256: fp.SHA256, Size: fp.Size, Alphabet: lower(abc.Type.String()), Created: time.Now().UTC().Format(time.RFC3339)}
	w := &storer{ctx: ctx, c: c, m: m, abc: abc, opt: opt, starts: fp.Starts}
	if err := w.run(path); err != nil {
		w.discard()
		return nil, err
	}
	raw, _ := json.Marshal(m)
	sum := sha256.Sum256(raw)
	// One command: readers see the old manifest or the new one.
	if err := c.HSet(ctx, manifestKey(name), "manifest", raw, "sha256", hex.EncodeToString(sum[:])).Err(); err != nil {
		w.discard()
		return nil, fmt.Errorf("redis:%s: %v", name, err)
	}
	if old != nil && old.Generation != m.Generation {
		deleteChunks(ctx, c, old)
	}
	return m, nil
}

// storer writes one database's blocks.
type storer struct {
	ctx     context.Context
	c       *redis.Client
	m       *Manifest
	abc     *alphabet.Alphabet
	opt     StoreOptions
	starts  []int64 // record offsets, then the file size
	written []string
}

func (w *storer) run(path string) error {
	r, err := seqio.Open(path, nil, w.abc)
	if err != nil {
		return err
	}
	defer r.Close()
	var block []seqio.Sequence
	var residues int64
	var n int64
	for {
		var sq seqio.Sequence
		err := r.ReadInto(&sq)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if r.Format() != seqio.FASTA {
			return fmt.Errorf("%s is %s; queued searches read FASTA databases only", path, r.Format())
		}
		if len(block) > 0 && residues+int64(sq.L()) > w.opt.BlockResidues {
			if err := w.flush(block, n-int64(len(block))); err != nil {
				return err
			}
			block, residues = block[:0], 0
		}
		sq.Dsq = append([]byte(nil), sq.Dsq...) // ReadInto reuses its buffer
		block = append(block, sq)
		residues += int64(sq.L())
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s: no sequences", path)
	}
	if n != int64(len(w.starts)-1) {
		return fmt.Errorf("%s: found %d record starts but read %d sequences; cannot cut it into blocks", path, len(w.starts)-1, n)
	}
	return w.flush(block, n-int64(len(block)))
}

// flush stores one block: records first.. of the file.
func (w *storer) flush(seqs []seqio.Sequence, first int64) error {
	var buf bytes.Buffer
	sw, err := seqdb.NewWriter(&buf, w.abc, seqdb.Options{Meta: []string{"source=" + w.m.Source, "made-by=hmmgo makedb --redis"}})
	if err != nil {
		return err
	}
	var residues int64
	for i := range seqs {
		if err := sw.Add(&seqs[i]); err != nil {
			sw.Abort()
			return err
		}
		residues += int64(seqs[i].L())
	}
	offsets := make([]byte, 8*(len(seqs)+1))
	for i := 0; i <= len(seqs); i++ {
		binary.LittleEndian.PutUint64(offsets[8*i:], uint64(w.starts[first+int64(i)]))
	}
	if err := sw.AddSection(TagOffsets, 0, 0, offsets); err != nil {
		sw.Abort()
		return err
	}
	if _, err := sw.Close(); err != nil {
		return err
	}
	data := buf.Bytes()
	b := len(w.m.Blocks)
	info := Block{First: first, Count: int64(len(seqs)), ByteStart: w.starts[first], Residues: residues, Bytes: int64(len(data))}
	sum := sha256.Sum256(data)
	info.SHA256 = hex.EncodeToString(sum[:])
	pipe := w.c.Pipeline()
	for off := 0; off < len(data); off += w.opt.ChunkBytes {
		key := chunkKey(w.m.Name, w.m.Generation, b, info.Chunks)
		pipe.Set(w.ctx, key, data[off:min(off+w.opt.ChunkBytes, len(data))], 0)
		w.written = append(w.written, key)
		info.Chunks++
	}
	if _, err := pipe.Exec(w.ctx); err != nil {
		return fmt.Errorf("redis:%s: storing block %d: %v", w.m.Name, b+1, err)
	}
	w.m.Blocks = append(w.m.Blocks, info)
	w.m.Sequences += info.Count
	w.m.Residues += residues
	if w.opt.Progress != nil {
		w.opt.Progress(len(w.m.Blocks), w.m.Sequences, w.m.Residues)
	}
	return nil
}

// discard removes the chunks of a store that did not complete.
func (w *storer) discard() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 0; i < len(w.written); i += 512 {
		w.c.Del(ctx, w.written[i:min(i+512, len(w.written))]...)
	}
}

// Delete removes a stored database: its manifest first (readers then see
// no database), then its chunks.
func Delete(ctx context.Context, c *redis.Client, name string) error {
	m, err := ReadManifest(ctx, c, name)
	if err != nil {
		if errors.Is(err, ErrNoDatabase) || queue.IsTransient(err) {
			return err
		}
		// A damaged manifest: remove it; its chunks cannot be named.
		if derr := c.Del(ctx, manifestKey(name)).Err(); derr != nil {
			return derr
		}
		return nil
	}
	if err := c.Del(ctx, manifestKey(name)).Err(); err != nil {
		return err
	}
	return deleteChunks(ctx, c, m)
}

func deleteChunks(ctx context.Context, c *redis.Client, m *Manifest) error {
	var keys []string
	for b, info := range m.Blocks {
		for k := 0; k < info.Chunks; k++ {
			keys = append(keys, chunkKey(m.Name, m.Generation, b, k))
		}
	}
	var errs []error
	for i := 0; i < len(keys); i += 512 {
		errs = append(errs, c.Del(ctx, keys[i:min(i+512, len(keys))]...).Err())
	}
	return errors.Join(errs...)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
