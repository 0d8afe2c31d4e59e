// Package cli holds what every hmmgo subcommand shares: the command
// table entry, error reporting in one line, output files that never look
// complete when a run fails, and progress lines that only a terminal sees.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"unicode/utf8"
)

// Env is what a subcommand may touch of the outside world. Tests build
// one with buffers instead of the process's streams.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Command is one `hmmgo <name>` subcommand.
type Command struct {
	Name    string
	Summary string
	// Run returns the process exit status.
	Run func(env Env, args []string) int
}

// Fail prints "hmmgo <cmd>: <message>" on stderr and returns exit status 1.
// Subcommands report every fatal error through it so that errors are one line.
func Fail(env Env, cmd string, err error) int {
	fmt.Fprintf(env.Stderr, "hmmgo %s: %s\n", cmd, clip(err.Error()))
	return 1
}

// maxErrorLen bounds an error line. Readers quote what they could not
// parse, and a file of one 50 MB line would otherwise come back as a 50 MB
// message.
const maxErrorLen = 1000

// clip shortens a long message in its middle: the start names the file and
// line, the end often says what was wrong.
func clip(msg string) string {
	if len(msg) <= maxErrorLen {
		return msg
	}
	head, tail := maxErrorLen*3/5, maxErrorLen*2/5
	for head > 0 && !utf8.RuneStart(msg[head]) {
		head--
	}
	cut := len(msg) - tail
	for cut < len(msg) && !utf8.RuneStart(msg[cut]) {
		cut++
	}
	return fmt.Sprintf("%s[... %d bytes ...]%s", msg[:head], cut-head, msg[cut:])
}

// UsageError is returned by option parsing; it maps to exit status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// OutputFile writes to a temporary file beside path and renames it into
// place only on Commit, so a failed run leaves no file that looks complete.
// Path "-" writes to the given stdout and Commit/Abort do nothing. An
// existing path that is not a regular file (/dev/null, a named pipe, a
// terminal) is written directly: renaming over it would replace the device.
type OutputFile struct {
	io.Writer
	f      *os.File
	path   string
	close  bool
	direct bool
}

// CreateOutput opens path for an output that becomes visible on Commit.
func CreateOutput(path string, stdout io.Writer) (*OutputFile, error) {
	if path == "-" {
		return &OutputFile{Writer: stdout, path: path}, nil
	}
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		// Caught here, before the run: at Commit the rename would fail
		// only after all the work, and after other outputs were renamed.
		return nil, fmt.Errorf("cannot write output file %s: it is a directory", path)
	}
	if err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot open output file %s: %w", path, err)
		}
		return &OutputFile{Writer: f, f: f, path: path, close: true, direct: true}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".partial-*")
	if err != nil {
		// The temporary name means nothing to the user: report the cause.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot open output file %s: %w", path, err)
	}
	partials.add(f.Name())
	return &OutputFile{Writer: f, f: f, path: path, close: true}, nil
}

// NotAnInput fails when the output path names one of the input files (as
// in "makedb db.fa db.fa"): Commit would replace the input by the output.
// Devices such as /dev/null may be both.
func NotAnInput(out string, inputs ...string) error {
	ost, err := os.Stat(out)
	if out == "-" || err != nil || !ost.Mode().IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if ist, err := os.Stat(in); err == nil && os.SameFile(ost, ist) {
			return fmt.Errorf("output file %s is the input file %s: refusing to replace it", out, in)
		}
	}
	return nil
}

// Commit flushes and moves the finished file into place.
func (o *OutputFile) Commit() error {
	if !o.close {
		return nil
	}
	o.close = false
	if o.direct {
		if err := o.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
		return nil
	}
	if err := o.f.Close(); err != nil {
		os.Remove(o.f.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	// CreateTemp makes files private; an output file gets the usual mode.
	if err := os.Chmod(o.f.Name(), 0o644); err != nil {
		os.Remove(o.f.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	// Under the lock, an interrupt waits for the rename or comes before it.
	partials.mu.Lock()
	defer partials.mu.Unlock()
	delete(partials.names, o.f.Name())
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		os.Remove(o.f.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// Abort removes the unfinished file. It is safe after Commit.
func (o *OutputFile) Abort() {
	if !o.close {
		return
	}
	o.close = false
	o.f.Close()
	if !o.direct {
		os.Remove(o.f.Name())
		partials.remove(o.f.Name())
	}
}

// IsTerminal reports whether w is a character device (a terminal), the
// condition for printing progress lines.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Threads bounds a thread count taken from the command line. Workers
// beyond a few per core add no speed, only memory: --cpu 100000000 would
// otherwise start that many workers and run out of memory. Results never
// depend on the count, so the bound changes nothing else.
func Threads(n int) int {
	return min(max(n, 1), max(4*runtime.NumCPU(), 64))
}
