package hmmsearch

import (
	"errors"
	"io"
	"testing"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

type listReader struct {
	models []*hmm.HMM
	err    error // returned after the models, then io.EOF
}

func (l *listReader) Read() (*hmm.HMM, error) {
	if len(l.models) > 0 {
		h := l.models[0]
		l.models = l.models[1:]
		return h, nil
	}
	if l.err != nil {
		err := l.err
		l.err = nil
		return nil, err
	}
	return nil, io.EOF
}

// Reading ahead changes nothing a reader of models sees: the same models
// in order, then the file's error in its place, then the end.
func TestReadAheadKeepsOrderAndErrors(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	var models []*hmm.HMM
	for i := 0; i < 3*modelsAhead; i++ {
		models = append(models, &hmm.HMM{Name: string(rune('a' + i%26)), M: 10 + i, Alph: abc})
	}
	bad := errors.New("line 7: bad number")
	g := &gpuSearch{} // no devices: nothing to precompile
	ra := g.readAhead(&listReader{models: append([]*hmm.HMM(nil), models...), err: bad})
	defer ra.close()
	for i, want := range models {
		h, err := ra.Read()
		if err != nil || h != want {
			t.Fatalf("model %d: got %v, %v", i, h, err)
		}
	}
	if _, err := ra.Read(); err != bad {
		t.Fatalf("after the models: %v, want the reader's error", err)
	}
	if _, err := ra.Read(); err != io.EOF {
		t.Fatalf("after the error: %v, want io.EOF", err)
	}
}

// close lets the reading goroutine go while models are still unread.
func TestReadAheadClose(t *testing.T) {
	abc := alphabet.New(alphabet.Amino)
	var models []*hmm.HMM
	for i := 0; i < 2*modelsAhead; i++ {
		models = append(models, &hmm.HMM{M: 5, Alph: abc})
	}
	ra := (&gpuSearch{}).readAhead(&listReader{models: models})
	if _, err := ra.Read(); err != nil {
		t.Fatal(err)
	}
	ra.close()
	for range ra.models { // drains and ends once the goroutine has returned
	}
}
