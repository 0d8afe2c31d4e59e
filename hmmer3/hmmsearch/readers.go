package hmmsearch

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/seqdb"
	"github.com/hmmgo/hmmgo/seqio"
)

// openModelFile reads query models (HMMER3 ASCII or pressed binary files,
// gzip, stdin).
func openModelFile(path string, stdin io.Reader) (ModelReader, error) {
	r, err := hmm.OpenFile(path, stdin)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// openSequenceFile reads the target database in the query's alphabet: a
// pre-formatted database (recognised by its magic bytes, whatever its
// name) or a sequence file.
func openSequenceFile(path string, stdin io.Reader, abc *alphabet.Alphabet) (pipeline.SequenceSource, error) {
	if path != "-" && seqdb.IsDB(path) {
		db, err := openDB(path)
		if err != nil {
			return nil, err
		}
		if t := db.Alphabet().Type; t != abc.Type {
			return nil, &seqdb.Error{Path: path, Msg: fmt.Sprintf(
				"the database holds %s sequences but the query model is %s (remake it with hmmgo makedb --alphabet %s)",
				t, abc.Type, abc.Type)}
		}
		return db.NewSource(), nil
	}
	r, err := seqio.Open(path, stdin, abc)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Databases stay open (mapped) for the life of the process: hmmsearch
// opens its target file once per query, and the checksums need checking
// only once; sequences a run keeps (the GPU path holds them all) stay
// valid. An entry is reused only while the file is the same one,
// unchanged.
var (
	dbMu    sync.Mutex
	dbCache = map[string]cachedDB{}
)

type cachedDB struct {
	db   *seqdb.DB
	info os.FileInfo
}

func openDB(path string) (*seqdb.DB, error) {
	dbMu.Lock()
	defer dbMu.Unlock()
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("Failed to open sequence file %s for reading", path)
	}
	if c, ok := dbCache[path]; ok && os.SameFile(c.info, info) && c.info.ModTime().Equal(info.ModTime()) && c.info.Size() == info.Size() {
		return c.db, nil
	}
	db, err := seqdb.Open(path)
	if err != nil {
		return nil, err
	}
	// A replaced entry is not closed: sequences from it may still be in use.
	dbCache[path] = cachedDB{db, info}
	return db, nil
}
