package hmmsearch

import (
	"io"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
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

// openSequenceFile reads the target database in the query's alphabet.
func openSequenceFile(path string, stdin io.Reader, abc *alphabet.Alphabet) (pipeline.SequenceSource, error) {
	r, err := seqio.Open(path, stdin, abc)
	if err != nil {
		return nil, err
	}
	return r, nil
}
