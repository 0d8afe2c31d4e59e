//go:build unix

package seqdb

import (
	"os"
	"syscall"
)

// mapFile maps the whole file read-only. Pages are shared with the page
// cache: opening a database costs no copy, and several processes
// searching it share one copy in memory.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size != int64(int(size)) {
		return nil, nil, syscall.EFBIG
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
