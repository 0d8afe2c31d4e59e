package makedb

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/cli"
	"github.com/hmmgo/hmmgo/internal/synthdb"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

// One synthetic 20M-residue FASTA (and its database) shared by the
// benchmarks; bytes/s below are residues per second.
const benchResidues = 20_000_000

var (
	benchOnce        sync.Once
	benchDir         string
	benchFA, benchDB string
)

func benchFiles(b *testing.B) (fa, db string) {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "makedb-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		benchFA, benchDB = filepath.Join(dir, "db.fa"), filepath.Join(dir, "db.hmmgo")
		f, _ := os.Create(benchFA)
		if _, err := synthdb.Write(f, synthdb.DefaultParams(benchResidues, 1)); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if err := Make(cli.Env{}, benchFA, benchDB, alphabet.New(alphabet.Amino)); err != nil {
			b.Fatal(err)
		}
	})
	return benchFA, benchDB
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkMake: FASTA to database, the whole command's work.
func BenchmarkMake(b *testing.B) {
	fa, _ := benchFiles(b)
	out := filepath.Join(b.TempDir(), "out.hmmgo")
	b.SetBytes(benchResidues)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Make(cli.Env{}, fa, out, alphabet.New(alphabet.Amino)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPassFASTA: one pass over the targets as hmmsearch reads FASTA.
func BenchmarkPassFASTA(b *testing.B) {
	fa, _ := benchFiles(b)
	abc := alphabet.New(alphabet.Amino)
	b.SetBytes(benchResidues)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := seqio.Open(fa, nil, abc)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
}

// BenchmarkPassDB: one pass over the database, opening (and verifying)
// it every time, as a first query does.
func BenchmarkPassDB(b *testing.B) {
	_, path := benchFiles(b)
	b.SetBytes(benchResidues)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := seqdb.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		src := db.NewSource()
		for {
			if _, err := src.Read(); err == io.EOF {
				break
			}
		}
		db.Close()
	}
}

// BenchmarkPassOpenDB: one pass over an open database, as every further
// query of a run does.
func BenchmarkPassOpenDB(b *testing.B) {
	_, path := benchFiles(b)
	db, err := seqdb.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.SetBytes(benchResidues)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := db.NewSource()
		for {
			if _, err := src.Read(); err == io.EOF {
				break
			}
		}
	}
}
