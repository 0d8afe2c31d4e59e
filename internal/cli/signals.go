package cli

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// partials holds the temporary files of uncommitted outputs, so that an
// interrupted run (Ctrl-C, kill, a batch system's time limit) removes them
// instead of leaving hidden .partial files, which for makedb can be as
// large as the database.
var partials = partialSet{names: map[string]bool{}}

type partialSet struct {
	mu    sync.Mutex
	names map[string]bool
}

func (p *partialSet) add(name string) {
	p.mu.Lock()
	p.names[name] = true
	p.mu.Unlock()
}

func (p *partialSet) remove(name string) {
	p.mu.Lock()
	delete(p.names, name)
	p.mu.Unlock()
}

// removeAll deletes every uncommitted file. It keeps the lock, so that no
// Commit publishes a file afterwards: the caller exits.
func (p *partialSet) removeAll() {
	p.mu.Lock()
	for name := range p.names {
		os.Remove(name)
	}
}

var onSignal sync.Once

// RemovePartialsOnSignal makes SIGINT, SIGTERM and SIGHUP remove the
// uncommitted output files and exit with status 128+signal, what a shell
// reports for a process the signal killed. Commands that handle these
// signals themselves (to cancel queued work) must not call it: the first
// signal would end them before their own clean-up.
func RemovePartialsOnSignal() {
	onSignal.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			sig := <-ch
			partials.removeAll()
			code := 1
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		}()
	})
}
