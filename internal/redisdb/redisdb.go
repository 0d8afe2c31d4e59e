// Package redisdb keeps a FASTA database's pre-formatted blocks in Redis
// (as CUDAMPF++ keeps its database in a server's memory), so that queue
// workers started with `--db redis:NAME` fetch the blocks they need from
// the queue's own server instead of reading a shared file.
//
// Layout (docs/distributed.md, "Databases stored in Redis"):
//
//	hmmgo:db:NAME                      hash: manifest (JSON), sha256 (of the manifest)
//	hmmgo:db:NAME:GEN:<block>:<chunk>  string: a chunk of a block's value
//
// A block is a run of consecutive records, stored as a complete seqdb
// database (the on-disk .hmmgo format: versioned, CRC-32C per section)
// with one more section, SRCO, the records' byte offsets in the FASTA
// file. The value is cut into chunks (Redis serves small values without
// stalling other clients), and the manifest holds each block's size,
// chunk count and SHA-256. GEN is a random generation: storing a name
// again writes a new generation, switches the manifest in one command
// and then deletes the old chunks, so a reader never mixes two versions.
//
// Everything read back is checked: the manifest's checksum, format and
// version, every block's size and SHA-256, then seqdb's own checks, the
// sequence count, the alphabet and the offsets.
package redisdb

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
	"github.com/redis/go-redis/v9"
)

// Format and Version name the layout; a reader refuses other versions.
const (
	Format  = "hmmgo-redisdb"
	Version = 1
)

// TagOffsets is the block section holding n+1 little-endian u64: the
// byte offset in the FASTA file of each record's '>', then the offset
// just past the block's last record.
var TagOffsets = seqdb.Tag{'S', 'R', 'C', 'O'}

// Prefix is the start of every key of a stored database: "redis:NAME"
// lives under Prefix+NAME.
const Prefix = "hmmgo:db:"

// Manifest describes a stored database.
type Manifest struct {
	Format     string  `json:"format"`
	Version    int     `json:"version"`
	Name       string  `json:"name"`
	Generation string  `json:"generation"` // names the chunk keys of this version
	Source     string  `json:"source"`     // the FASTA file as given to makedb
	SHA256     string  `json:"sha256"`     // of the FASTA file's bytes: what tasks name
	Size       int64   `json:"size"`       // bytes of the FASTA file
	Alphabet   string  `json:"alphabet"`   // amino, dna or rna
	Sequences  int64   `json:"sequences"`
	Residues   int64   `json:"residues"`
	Created    string  `json:"created"` // RFC 3339
	Blocks     []Block `json:"blocks"`
}

// Block is one stored block.
type Block struct {
	First     int64  `json:"first"`      // index of its first record
	Count     int64  `json:"count"`      // records
	ByteStart int64  `json:"byte_start"` // offset of its first record in the FASTA file
	Residues  int64  `json:"residues"`
	Bytes     int64  `json:"bytes"`  // length of the stored value
	Chunks    int    `json:"chunks"` // values it is cut into
	SHA256    string `json:"sha256"` // of the stored value
}

// ErrNoDatabase: no database of that name is stored.
var ErrNoDatabase = errors.New("no such database in Redis")

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// CheckName refuses names that would not make plain keys.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("database name %q: use 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

func manifestKey(name string) string { return Prefix + name }

func chunkKey(name, gen string, block, chunk int) string {
	return Prefix + name + ":" + gen + ":" + strconv.Itoa(block) + ":" + strconv.Itoa(chunk)
}

// ReadManifest fetches and checks a database's manifest.
func ReadManifest(ctx context.Context, c *redis.Client, name string) (*Manifest, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	v, err := c.HGetAll(ctx, manifestKey(name)).Result()
	if err != nil {
		return nil, queue.Transient(fmt.Errorf("redis:%s: %v", name, err))
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("redis:%s: %w (store it with hmmgo makedb --redis URL db.fa %s)", name, ErrNoDatabase, name)
	}
	raw := []byte(v["manifest"])
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != v["sha256"] {
		return nil, fmt.Errorf("redis:%s: the manifest fails its checksum (damaged; store the database again)", name)
	}
	m := new(Manifest)
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("redis:%s: unreadable manifest: %v", name, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("redis:%s: not an hmmgo database (format %q)", name, m.Format)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("redis:%s: format version %d; this hmmgo reads version %d (store it again with this hmmgo's makedb)", name, m.Version, Version)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("redis:%s: corrupt manifest: %v", name, err)
	}
	return m, nil
}

// check verifies the manifest's internal consistency: blocks tile the
// records and bytes of the file in order.
func (m *Manifest) check() error {
	if _, ok := alphabet.ParseType(m.Alphabet); !ok {
		return fmt.Errorf("unknown alphabet %q", m.Alphabet)
	}
	if len(m.SHA256) != 64 {
		return errors.New("bad fingerprint")
	}
	if !validName.MatchString(m.Generation) {
		return errors.New("bad generation")
	}
	var next, res, bytePos int64
	for i, b := range m.Blocks {
		switch {
		case b.First != next || b.Count <= 0:
			return fmt.Errorf("block %d does not follow block %d", i, i-1)
		case b.ByteStart < bytePos || b.ByteStart >= m.Size:
			return fmt.Errorf("block %d starts at byte %d", i, b.ByteStart)
		case b.Bytes <= 0 || b.Chunks <= 0 || b.Chunks > 1<<20 || len(b.SHA256) != 64 || b.Residues < 0:
			return fmt.Errorf("block %d has impossible sizes", i)
		}
		next += b.Count
		res += b.Residues
		bytePos = b.ByteStart + 1
	}
	if next != m.Sequences || res != m.Residues {
		return fmt.Errorf("blocks hold %d sequences and %d residues; the manifest says %d and %d", next, res, m.Sequences, m.Residues)
	}
	return nil
}

// DB is a stored database as a worker reads it: blocks are fetched when
// a task needs them and kept in memory up to a budget.
type DB struct {
	c   *redis.Client
	m   *Manifest
	abc *alphabet.Alphabet

	mu     sync.Mutex
	budget int64
	cache  map[int]*cachedBlock
	held   int64
	clock  uint64
	// Fetches counts blocks fetched from Redis (tests check the cache).
	Fetches int
}

type cachedBlock struct {
	db      *seqdb.DB
	offsets []byte // the SRCO section
	bytes   int64
	used    uint64
}

// DefaultCacheBytes is how much of the fetched blocks a DB keeps.
const DefaultCacheBytes = 2 << 30

// Open reads a database's manifest; cacheBytes (0: DefaultCacheBytes)
// bounds the blocks kept in memory between tasks (the most recently used
// stay; one block is always kept).
func Open(ctx context.Context, c *redis.Client, name string, cacheBytes int64) (*DB, error) {
	m, err := ReadManifest(ctx, c, name)
	if err != nil {
		return nil, err
	}
	t, _ := alphabet.ParseType(m.Alphabet)
	if cacheBytes <= 0 {
		cacheBytes = DefaultCacheBytes
	}
	return &DB{c: c, m: m, abc: alphabet.New(t), budget: cacheBytes, cache: make(map[int]*cachedBlock)}, nil
}

// Manifest returns the database's manifest.
func (d *DB) Manifest() *Manifest { return d.m }

// Fingerprint is the SHA-256 of the FASTA file the database was made of.
func (d *DB) Fingerprint() string { return d.m.SHA256 }

// Name is "redis:NAME".
func (d *DB) Name() string { return "redis:" + d.m.Name }

// Targets returns records first..end-1 read in abc, which must be the
// records at bytes byteStart..byteEnd-1 of the FASTA file.
func (d *DB) Targets(ctx context.Context, first, end, byteStart, byteEnd int64, abc *alphabet.Alphabet) ([]*seqio.Sequence, error) {
	m := d.m
	if abc.Type != d.abc.Type {
		return nil, fmt.Errorf("%s holds %s sequences, but the job's models are %s (store it again with hmmgo makedb --redis --alphabet %s)",
			d.Name(), d.abc.Type, abc.Type, lower(abc.Type.String()))
	}
	if first < 0 || end > m.Sequences || first >= end {
		return nil, fmt.Errorf("task names targets %d-%d of %s's %d", first+1, end, d.Name(), m.Sequences)
	}
	out := make([]*seqio.Sequence, 0, end-first)
	seqs := make([]seqio.Sequence, end-first)
	b := sort.Search(len(m.Blocks), func(i int) bool { return m.Blocks[i].First+m.Blocks[i].Count > first })
	for i := first; i < end; b++ {
		blk, err := d.block(ctx, b)
		if err != nil {
			return nil, err
		}
		info := m.Blocks[b]
		if i == first && offset(blk.offsets, i-info.First) != byteStart {
			return nil, fmt.Errorf("task's block starts at byte %d, but target %d of %s starts at %d", byteStart, first+1, d.Name(), offset(blk.offsets, i-info.First))
		}
		for ; i < end && i < info.First+info.Count; i++ {
			sq := &seqs[i-first]
			blk.db.Sequence(int(i-info.First), sq)
			out = append(out, sq)
		}
		if i == end && offset(blk.offsets, end-info.First) != byteEnd {
			return nil, fmt.Errorf("task's block ends at byte %d, but target %d of %s ends at %d", byteEnd, end, d.Name(), offset(blk.offsets, end-info.First))
		}
	}
	return out, nil
}

func offset(offsets []byte, i int64) int64 { return int64(binary.LittleEndian.Uint64(offsets[8*i:])) }

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// block returns block b, from the cache or fetched and checked.
func (d *DB) block(ctx context.Context, b int) (*cachedBlock, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clock++
	if cb := d.cache[b]; cb != nil {
		cb.used = d.clock
		return cb, nil
	}
	cb, err := d.fetch(ctx, b)
	if err != nil {
		return nil, err
	}
	for d.held+cb.bytes > d.budget && len(d.cache) > 0 {
		oldest := -1
		for k, v := range d.cache {
			if oldest < 0 || v.used < d.cache[oldest].used {
				oldest = k
			}
		}
		d.held -= d.cache[oldest].bytes
		delete(d.cache, oldest)
	}
	cb.used = d.clock
	d.cache[b] = cb
	d.held += cb.bytes
	d.Fetches++
	return cb, nil
}

// fetch reads block b's chunks and checks everything about it.
func (d *DB) fetch(ctx context.Context, b int) (*cachedBlock, error) {
	m := d.m
	info := m.Blocks[b]
	label := fmt.Sprintf("%s block %d", d.Name(), b+1)
	pipe := d.c.Pipeline()
	gets := make([]*redis.StringCmd, info.Chunks)
	for c := range gets {
		gets[c] = pipe.Get(ctx, chunkKey(m.Name, m.Generation, b, c))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, queue.Transient(fmt.Errorf("%s: %v", label, err))
	}
	data := make([]byte, 0, info.Bytes)
	for c, g := range gets {
		v, err := g.Bytes()
		if errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("%s: chunk %d is gone from Redis (the database was stored again or deleted, or Redis lost it); restart the worker", label, c+1)
		}
		if err != nil {
			return nil, queue.Transient(fmt.Errorf("%s: %v", label, err))
		}
		if int64(len(data)+len(v)) > info.Bytes {
			return nil, fmt.Errorf("%s: longer than the %d bytes the manifest says", label, info.Bytes)
		}
		data = append(data, v...)
	}
	if int64(len(data)) != info.Bytes {
		return nil, fmt.Errorf("%s: %d bytes where the manifest says %d (truncated)", label, len(data), info.Bytes)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != info.SHA256 {
		return nil, fmt.Errorf("%s: fails its SHA-256 (damaged; store the database again)", label)
	}
	db, err := seqdb.OpenBytes(label, data)
	if err != nil {
		return nil, err
	}
	switch {
	case int64(db.NumSeqs()) != info.Count || db.NumResidues() != info.Residues:
		return nil, fmt.Errorf("%s: %d sequences and %d residues where the manifest says %d and %d", label, db.NumSeqs(), db.NumResidues(), info.Count, info.Residues)
	case db.Alphabet().Type != d.abc.Type:
		return nil, fmt.Errorf("%s: %s sequences in a %s database", label, db.Alphabet().Type, d.abc.Type)
	}
	offsets, ok := db.Section(TagOffsets, 0)
	if !ok || int64(len(offsets)) != 8*(info.Count+1) {
		return nil, fmt.Errorf("%s: no record offsets (section %s)", label, TagOffsets)
	}
	end := m.Size
	if b+1 < len(m.Blocks) {
		end = m.Blocks[b+1].ByteStart
	}
	if offset(offsets, 0) != info.ByteStart || offset(offsets, info.Count) != end {
		return nil, fmt.Errorf("%s: its record offsets do not match the manifest", label)
	}
	for i := int64(1); i <= info.Count; i++ {
		if offset(offsets, i) <= offset(offsets, i-1) {
			return nil, fmt.Errorf("%s: record offsets out of order", label)
		}
	}
	return &cachedBlock{db: db, offsets: offsets, bytes: info.Bytes}, nil
}
