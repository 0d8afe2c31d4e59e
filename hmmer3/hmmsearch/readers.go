// The file readers are wired here: models through hmm.OpenFile and
// targets through seqio.Open.

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
