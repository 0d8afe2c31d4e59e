//go:build linux

package hugemem

import (
	"syscall"
	"unsafe"
)

// mapping is one anonymous mapping: all of it (for munmap) and the
// aligned part that holds the floats.
type mapping struct {
	all  []byte
	used int
}

func (m mapping) bytes() int { return len(m.all) }

// mapFloats maps room for n floats starting on a huge page boundary:
// the kernel places anonymous mappings on 4 KiB boundaries, and only the
// 2 MiB-aligned parts of a range can be huge pages, so it maps one huge
// page more and starts the floats at the first boundary inside (the
// untouched slack costs address space, not memory). Fresh anonymous
// memory reads as zeros. MAP_NORESERVE: most of a reservation is never
// touched (reserveFactor), so it should not count against overcommit.
func mapFloats(n int) ([]float32, mapping, bool) {
	used := roundUp(4 * n)
	all, err := syscall.Mmap(-1, 0, used+pageBytes, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, mapping{}, false
	}
	off := 0
	if r := int(uintptr(unsafe.Pointer(&all[0])) % pageBytes); r != 0 {
		off = pageBytes - r
	}
	part := all[off : off+used]
	// Without the advice (THP off, or "never") the mapping still works,
	// in small pages.
	_ = syscall.Madvise(part, syscall.MADV_HUGEPAGE)
	f := unsafe.Slice((*float32)(unsafe.Pointer(&part[0])), used/4)
	return f, mapping{all: all, used: used}, true
}

func unmap(m mapping) {
	// Munmap fails only for memory it did not map: a bug here, and the
	// floats must not be handed out again either way.
	if err := syscall.Munmap(m.all); err != nil {
		panic("hugemem: munmap: " + err.Error())
	}
}
