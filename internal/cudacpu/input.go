package cudacpu

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Input is a driver's input in driver.h's format: fixed little-endian
// fields the driver reads with fread, then arrays, each preceded by its
// int64 byte count (driver.h: array).
type Input struct{ buf bytes.Buffer }

// Put appends v's fixed-size little-endian bytes (a number, or a slice
// of them).
func (in *Input) Put(v any) { binary.Write(&in.buf, binary.LittleEndian, v) }

// Arrays appends each of as as driver.h's array reads it.
func (in *Input) Arrays(as ...[]byte) {
	for _, a := range as {
		in.Put(int64(len(a)))
		in.buf.Write(a)
	}
}

// Run runs the driver exe on in (exe IN OUT, files in a test directory)
// and returns what it wrote to OUT; what names the kernel in failures.
func Run(t testing.TB, exe, what string, in *Input) []byte {
	t.Helper()
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(inPath, in.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, inPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("%s on the CPU: %v\n%s", what, err, out)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Words is raw as n little-endian 32-bit words: a kernel's one result
// per target. Output of another length fails t.
func Words(t testing.TB, raw []byte, n int) []uint32 {
	t.Helper()
	if len(raw) != 4*n {
		t.Fatalf("kernel output: %d bytes for %d targets", len(raw), n)
	}
	w := make([]uint32, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return w
}
