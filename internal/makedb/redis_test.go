package makedb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/internal/redisdb"
	"github.com/hmmgo/hmmgo/internal/redistest"
	"github.com/hmmgo/hmmgo/internal/testutil"
)

// makedb --redis stores a database workers can read; --delete removes
// it; mistakes are clear errors that leave nothing in Redis.
func TestRedis(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw-9"})
	ctx := context.Background()
	c, err := queue.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	src := testutil.Testdata(t, "globins45.fa")
	if rc, stderr := runCmd("--redis", srv.URL(), "--block-residues", "2000", src, "globins"); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	m, err := redisdb.ReadManifest(ctx, c, "globins")
	if err != nil {
		t.Fatal(err)
	}
	if m.Sequences != 45 || len(m.Blocks) < 3 || m.Alphabet != "amino" || m.Source != src {
		t.Fatalf("manifest: %d sequences, %d blocks, %s, %s", m.Sequences, len(m.Blocks), m.Alphabet, m.Source)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.fa")
	os.WriteFile(bad, []byte(">ok\nACDE\n>bad\nAC1DE\n"), 0o644)
	wrongPW := strings.Replace(srv.URL(), "pw-9", "nope", 1)
	for _, cs := range []struct {
		args []string
		rc   int
		want string
	}{
		{[]string{"--redis", srv.URL(), bad, "bad"}, 1, "bad.fa:4: illegal character '1'"},
		{[]string{"--redis", srv.URL(), src, "no/slash"}, 2, "database name"},
		{[]string{"--redis", srv.URL(), "-", "x"}, 2, "not standard input"},
		{[]string{"--redis", srv.URL(), src}, 2, "expected <fastafile> <NAME>"},
		{[]string{"--block-residues", "10", src, filepath.Join(dir, "x.hmmgo")}, 2, "go with --redis"},
		{[]string{"--redis", srv.URL(), "--block-residues", "0", src, "x"}, 2, "--block-residues"},
		{[]string{"--redis", wrongPW, src, "x"}, 1, "cannot reach Redis"},
		{[]string{"--redis", srv.URL(), "--delete", "missing"}, 1, "no such database"},
		{[]string{"--redis", srv.URL(), "--delete"}, 2, "--delete expects <NAME>"},
	} {
		rc, stderr := runCmd(cs.args...)
		if rc != cs.rc || !strings.Contains(stderr, cs.want) || strings.Contains(stderr, "nope") {
			t.Errorf("%v: exit %d, %q; want exit %d, %q", cs.args, rc, stderr, cs.rc, cs.want)
		}
		if rc == 1 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: error is not one line: %q", cs.args, stderr)
		}
	}
	keys, _ := c.Keys(ctx, redisdb.Prefix+"*").Result()
	for _, k := range keys {
		if !strings.HasPrefix(k, redisdb.Prefix+"globins") {
			t.Errorf("a failed store left %s", k)
		}
	}
	if rc, stderr := runCmd("--redis", srv.URL(), "--delete", "globins"); rc != 0 {
		t.Fatalf("delete: exit %d: %s", rc, stderr)
	}
	if _, err := redisdb.ReadManifest(ctx, c, "globins"); !errors.Is(err, redisdb.ErrNoDatabase) {
		t.Errorf("after --delete: %v", err)
	}
	if keys, _ := c.Keys(ctx, "*").Result(); len(keys) != 0 {
		t.Errorf("keys after --delete: %v", keys)
	}
}
