//go:build readers

// The file readers are wired here. This file builds only with the
// "readers" tag until packages hmm (OpenFile) and seqio (Open) land; then
// the build line above is to be removed.

package hmmsearch

import (
	"io"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/seqio"
)

func init() {
	openModelFile = func(path string, stdin io.Reader) (ModelReader, error) {
		r, err := hmm.OpenFile(path, stdin)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	openSequenceFile = func(path string, stdin io.Reader, abc *alphabet.Alphabet) (pipeline.SequenceSource, error) {
		r, err := seqio.Open(path, stdin, abc)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}
