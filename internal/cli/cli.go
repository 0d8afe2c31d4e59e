// Package cli holds what every hmmgo subcommand shares: the command
// table entry, error reporting in one line, output files that never look
// complete when a run fails, and progress lines that only a terminal sees.
package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	fmt.Fprintf(env.Stderr, "hmmgo %s: %v\n", cmd, err)
	return 1
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
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
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
		return nil, fmt.Errorf("cannot open output file %s: %w", path, err)
	}
	return &OutputFile{Writer: f, f: f, path: path, close: true}, nil
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
