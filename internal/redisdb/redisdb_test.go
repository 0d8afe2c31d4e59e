package redisdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/fastaprint"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/internal/redistest"
	"github.com/hmmgo/hmmgo/internal/testutil"
	"github.com/hmmgo/hmmgo/seqio"
	"github.com/redis/go-redis/v9"
)

var ctx = context.Background()

func connect(t *testing.T, s *redistest.Server) *redis.Client {
	t.Helper()
	c, err := queue.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fasta writes globins45 and prot.fa as one file (171 records, 45 with
// descriptions) and returns its path, records and record offsets.
func fasta(t *testing.T) (string, []*seqio.Sequence, []int64) {
	t.Helper()
	var all []byte
	for _, p := range []string{"globins45.fa", "hmmer3/prot.fa"} {
		b, err := os.ReadFile(testutil.Testdata(t, p))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	path := filepath.Join(t.TempDir(), "db.fa")
	os.WriteFile(path, all, 0o644)
	r, err := seqio.Open(path, nil, alphabet.New(alphabet.Amino))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seqs []*seqio.Sequence
	for {
		sq, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, sq)
	}
	fp, err := fastaprint.Scan(path, true)
	if err != nil {
		t.Fatal(err)
	}
	return path, seqs, append(fp.Starts, fp.Size)
}

func store(t *testing.T, c *redis.Client, name, path string, opt StoreOptions) *Manifest {
	t.Helper()
	m, err := Store(ctx, c, name, path, alphabet.New(alphabet.Amino), opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Any range of records read back from Redis is what seqio reads from the
// file, with the file's byte ranges checked.
func TestStoreAndRead(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	c := connect(t, srv)
	path, want, starts := fasta(t)
	m := store(t, c, "test-db", path, StoreOptions{BlockResidues: 3000, ChunkBytes: 1000})
	fp, _ := fastaprint.Scan(path, false)
	if m.SHA256 != fp.SHA256 || m.Sequences != int64(len(want)) || len(m.Blocks) < 5 || m.Blocks[0].Chunks < 2 {
		t.Fatalf("manifest: sha %s, %d sequences, %d blocks, %d chunks in the first", m.SHA256, m.Sequences, len(m.Blocks), m.Blocks[0].Chunks)
	}
	db, err := Open(ctx, c, "test-db", 0)
	if err != nil {
		t.Fatal(err)
	}
	if db.Fingerprint() != fp.SHA256 || db.Name() != "redis:test-db" {
		t.Fatalf("fingerprint %s, name %s", db.Fingerprint(), db.Name())
	}
	abc := alphabet.New(alphabet.Amino)
	n := int64(len(want))
	for _, r := range [][2]int64{{0, n}, {0, 1}, {n - 1, n}, {3, 40}, {m.Blocks[1].First - 1, m.Blocks[2].First + 1}, {m.Blocks[2].First, m.Blocks[3].First}} {
		got, err := db.Targets(ctx, r[0], r[1], starts[r[0]], starts[r[1]], abc)
		if err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		if int64(len(got)) != r[1]-r[0] {
			t.Fatalf("%v: %d sequences", r, len(got))
		}
		for i, sq := range got {
			w := want[r[0]+int64(i)]
			if sq.Name != w.Name || sq.Desc != w.Desc || sq.Acc != w.Acc || string(sq.Dsq) != string(w.Dsq) {
				t.Fatalf("%v: sequence %d is %q, want %q", r, i, sq.Name, w.Name)
			}
		}
	}
	fetched := db.Fetches
	if _, err := db.Targets(ctx, 3, 40, starts[3], starts[40], abc); err != nil || db.Fetches != fetched {
		t.Errorf("a cached range fetched again (%d -> %d): %v", fetched, db.Fetches, err)
	}
	// Refused: ranges that do not match the file, other alphabets.
	for _, c := range []struct {
		first, end, bs, be int64
		abc                *alphabet.Alphabet
		want               string
	}{
		{3, 40, starts[3] + 1, starts[40], abc, "starts at"},
		{3, 40, starts[3], starts[41], abc, "ends at"},
		{0, n + 1, 0, starts[n], abc, "task names targets"},
		{5, 5, starts[5], starts[5], abc, "task names targets"},
		{0, 1, 0, starts[1], alphabet.New(alphabet.DNA), "holds amino sequences, but the job's models are DNA"},
	} {
		if _, err := db.Targets(ctx, c.first, c.end, c.bs, c.be, c.abc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d-%d bytes %d-%d: %v, want %q", c.first, c.end, c.bs, c.be, err, c.want)
		}
	}
}

// The cache keeps the most recent blocks within its budget.
func TestCacheBudget(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	c := connect(t, srv)
	path, _, starts := fasta(t)
	m := store(t, c, "small", path, StoreOptions{BlockResidues: 3000})
	db, err := Open(ctx, c, "small", 1) // one byte: only the block in use stays
	if err != nil {
		t.Fatal(err)
	}
	abc := alphabet.New(alphabet.Amino)
	b0, b1 := m.Blocks[0], m.Blocks[1]
	for i, want := range []int{1, 1, 2, 3} {
		b := b0
		if i == 2 {
			b = b1
		}
		if _, err := db.Targets(ctx, b.First, b.First+1, starts[b.First], starts[b.First+1], abc); err != nil {
			t.Fatal(err)
		}
		if db.Fetches != want {
			t.Fatalf("step %d: %d fetches, want %d", i, db.Fetches, want)
		}
	}
}

// Storing a name again replaces it whole: the old chunks go, and a reader
// of the old version is told so when it needs a block.
func TestReplace(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	c := connect(t, srv)
	path, _, starts := fasta(t)
	store(t, c, "db", path, StoreOptions{BlockResidues: 3000})
	old, err := Open(ctx, c, "db", 0)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.fa")
	os.WriteFile(other, []byte(">x\nACDEFGHIK\n>y\nLMNPQ\n"), 0o644)
	m2 := store(t, c, "db", other, StoreOptions{})
	if m2.Sequences != 2 || m2.Generation == old.Manifest().Generation {
		t.Fatalf("replacement manifest %+v", m2)
	}
	keys, _ := c.Keys(ctx, Prefix+"db:*").Result()
	if len(keys) != 1 {
		t.Errorf("keys after replacing: %v, want the new database's one chunk", keys)
	}
	abc := alphabet.New(alphabet.Amino)
	_, err = old.Targets(ctx, 0, 1, starts[0], starts[1], abc)
	if err == nil || !strings.Contains(err.Error(), "gone from Redis") || queue.IsTransient(err) {
		t.Fatalf("reading a replaced version: %v", err)
	}
	if err := Delete(ctx, c, "db"); err != nil {
		t.Fatal(err)
	}
	if keys, _ := c.Keys(ctx, Prefix+"*").Result(); len(keys) != 0 {
		t.Errorf("keys after delete: %v", keys)
	}
	if _, err := Open(ctx, c, "db", 0); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("opening a deleted database: %v", err)
	}
}

// Damage anywhere is a clear error naming the database and block.
func TestDamage(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	c := connect(t, srv)
	path, _, starts := fasta(t)
	abc := alphabet.New(alphabet.Amino)
	rewrite := func(m *Manifest) {
		raw, _ := json.Marshal(m)
		sum := sha256.Sum256(raw)
		c.HSet(ctx, manifestKey(m.Name), "manifest", raw, "sha256", hex.EncodeToString(sum[:]))
	}
	read := func(name string) error {
		db, err := Open(ctx, c, name, 0)
		if err != nil {
			return err
		}
		_, err = db.Targets(ctx, 0, 2, starts[0], starts[2], abc)
		return err
	}
	cases := []struct {
		name string
		harm func(m *Manifest)
		want string
	}{
		{"flipped", func(m *Manifest) { c.SetRange(ctx, chunkKey(m.Name, m.Generation, 0, 0), 200, "\x00\x01") }, "block 1: fails its SHA-256"},
		{"lost", func(m *Manifest) { c.Del(ctx, chunkKey(m.Name, m.Generation, 0, 1)) }, "block 1: chunk 2 is gone"},
		{"short", func(m *Manifest) {
			k := chunkKey(m.Name, m.Generation, 0, 1)
			v, _ := c.Get(ctx, k).Bytes()
			c.Set(ctx, k, v[:len(v)-5], 0)
		}, "truncated"},
		{"manifest", func(m *Manifest) { c.HSet(ctx, manifestKey(m.Name), "manifest", `{"format":"hmmgo-redisdb"}`) }, "manifest fails its checksum"},
		{"version", func(m *Manifest) { m.Version = 2; rewrite(m) }, "format version 2"},
		{"counts", func(m *Manifest) { m.Sequences++; rewrite(m) }, "corrupt manifest"},
		{"block count", func(m *Manifest) { m.Blocks[0].Count--; m.Blocks[1].First--; m.Blocks[1].Count++; rewrite(m) }, "sequences and"},
		{"inner", func(m *Manifest) {
			// A block whose SHA-256 matches but whose seqdb bytes are damaged.
			var data []byte
			for k := 0; k < m.Blocks[0].Chunks; k++ {
				v, _ := c.Get(ctx, chunkKey(m.Name, m.Generation, 0, k)).Bytes()
				data = append(data, v...)
			}
			data[100] ^= 1
			c.Set(ctx, chunkKey(m.Name, m.Generation, 0, 0), data, 0)
			m.Blocks[0].Chunks = 1
			sum := sha256.Sum256(data)
			m.Blocks[0].SHA256 = hex.EncodeToString(sum[:])
			rewrite(m)
		}, "checksum mismatch in section RESI"},
	}
	for _, cs := range cases {
		m := store(t, c, "d-"+strings.ReplaceAll(cs.name, " ", "-"), path, StoreOptions{BlockResidues: 3000, ChunkBytes: 1000})
		cs.harm(m)
		err := read(m.Name)
		if err == nil || !strings.Contains(err.Error(), cs.want) || !strings.Contains(err.Error(), "redis:"+m.Name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line naming redis:%s and saying %q", cs.name, err, m.Name, cs.want)
		}
	}
	if _, err := Open(ctx, c, "no/such", 0); err == nil || !strings.Contains(err.Error(), "database name") {
		t.Errorf("bad name: %v", err)
	}
}

// Store refuses what a queued search cannot use, and leaves nothing.
func TestStoreRefuses(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	c := connect(t, srv)
	abc := alphabet.New(alphabet.Amino)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.fa")
	os.WriteFile(empty, nil, 0o644)
	embl := testutil.Testdata(t, "hmmer3/7LESS_DROME")
	for _, c2 := range []struct{ path, want string }{
		{empty, "no sequences"},
		{embl, "FASTA databases only"},
		{filepath.Join(dir, "missing.fa"), "missing.fa"},
	} {
		if _, err := Store(ctx, c, "x", c2.path, abc, StoreOptions{}); err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("%s: %v, want %q", c2.path, err, c2.want)
		}
	}
	if keys, _ := c.Keys(ctx, "*").Result(); len(keys) != 0 {
		t.Errorf("failed stores left keys: %v", keys)
	}
	// A lost server is a transient error for workers.
	db := store(t, c, "x", testutil.Testdata(t, "globins45.fa"), StoreOptions{})
	r, _ := Open(ctx, c, "x", 0)
	srv.Kill()
	_, err := r.Targets(ctx, 0, 1, 0, db.Blocks[0].ByteStart+1, abc)
	if err == nil || !queue.IsTransient(err) {
		t.Errorf("server gone: %v, want a transient error", err)
	}
}
