package hmmsearch

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer3/hmm"
)

// A GPU search reads the whole database before its first query. The
// read needs only the first model's alphabet, while the driver takes
// about a quarter of a second to load, initialise and make the contexts
// (docs/BENCHMARKS.md). So the read starts before the GPUs are selected,
// beside the driver, and is dropped if none is.

// earlyRead is the database read started before the GPUs are selected.
type earlyRead struct {
	abc  *alphabet.Alphabet
	stop chan struct{}
	once sync.Once
	done chan struct{}
	read *loaded
	err  error
	at   time.Time // when the read ended
}

var errReadStopped = errors.New("hmmsearch: database read stopped")

// readEarlyFor reports whether a run with GPU request req reads the
// database early: when it may use a GPU (asked for one, or left it to
// hmmgo where a driver is installed), reads a rewindable file whole (not
// a shard's part) and keeps the usual start ($HMMGO_START unset).
func (s *search) readEarlyFor(req devices.Request) bool {
	if req.CPUOnly() || s.seqfile == "-" || s.shard != nil || s.startOrder != "" {
		return false
	}
	return req.Mode != devices.Auto || s.driverPresent()
}

// readEarly starts reading the targets in alphabet abc.
func (s *search) readEarly(abc *alphabet.Alphabet) *earlyRead {
	e := &earlyRead{abc: abc, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		defer func() { e.at = time.Now() }()
		src, err := s.openTargets(abc)
		if err != nil {
			e.err = err
			return
		}
		if c, ok := src.(io.Closer); ok {
			defer c.Close()
		}
		e.read, e.err = readTargets(src, e.stop)
	}()
	return e
}

// result waits for the read.
func (e *earlyRead) result() (*loaded, error) {
	<-e.done
	return e.read, e.err
}

// cancel stops the read if it is still going and waits for it to close
// the file; after result it only waits.
func (e *earlyRead) cancel() {
	e.once.Do(func() { close(e.stop) })
	<-e.done
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// peekedModels replays the first model (or the error reading it) before
// reading on.
type peekedModels struct {
	r     ModelReader
	first *hmm.HMM
	err   error
	read  bool // the first has been replayed
}

func peekModels(r ModelReader) *peekedModels {
	p := &peekedModels{r: r}
	p.first, p.err = r.Read()
	return p
}

func (p *peekedModels) Read() (*hmm.HMM, error) {
	if !p.read {
		p.read = true
		return p.first, p.err
	}
	return p.r.Read()
}
