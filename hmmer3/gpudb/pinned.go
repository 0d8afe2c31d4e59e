package gpudb

import (
	"os"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// A lane's copies go through pinned host memory of its own. From Go
// (pageable) memory the driver stages each copy through a small pinned
// buffer of its own, block by block, and returns only when done: in the
// 1,000-model run on an H100 the lanes were held 41.7 s for 11.6 s of
// kernels, 20 s of it in the copy back and the wait (docs/BENCHMARKS.md,
// 2026-11-27). From pinned memory an upload is queued and returns at
// once, and a result comes back at the copy engine's full rate; the
// host then copies it once more, into the caller's slice.

// stageBytes is the size of each lane's upload arena: a filter launch's
// uploads (a profile, a subset's plan, a 4-byte word per target of a
// 485,000-target database) fit; a larger one goes from Go memory.
const stageBytes = 8 << 20

// pinnedLanes is false with $HMMGO_LANE_PINNED=off, for comparison.
var pinnedLanes = os.Getenv("HMMGO_LANE_PINNED") != "off"

// arenaAlign keeps every piece of the arena on its own 256-byte line,
// the alignment the driver gives device allocations.
const arenaAlign = 256

// arena hands out consecutive pieces of size bytes until reset.
type arena struct{ size, used int }

// claim returns the offset of a piece of n bytes, or false when n does
// not fit in what is left.
func (a *arena) claim(n int) (int, bool) {
	off := a.used
	if n <= 0 || off+n > a.size {
		return 0, false
	}
	a.used = min(a.size, (off+n+arenaAlign-1)&^(arenaAlign-1))
	return off, true
}

// reset frees every piece; only once the copies from them are done.
func (a *arena) reset() { a.used = 0 }

// copyIn queues a copy of src to dst on the lane's stream, through the
// arena when src fits in it.
func (ln *Lane) copyIn(dst cuda.DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if !ln.pinnedOff && ln.staged == nil {
		h, err := ln.Bufs.ctx.AllocHost(stageBytes)
		if err != nil {
			ln.pinnedOff = true
		} else {
			ln.staged, ln.stage = h, arena{size: stageBytes}
		}
	}
	if ln.staged != nil {
		if off, ok := ln.stage.claim(len(src)); ok {
			piece := ln.staged.Bytes()[off : off+len(src)]
			copy(piece, src)
			return ln.Stream.CopyHtoD(dst, piece)
		}
	}
	return ln.Stream.CopyHtoD(dst, src)
}

// copyBack copies len(dst) bytes from src into dst after the work queued
// on the lane's stream, and waits for all of it; the arena is then free.
func (ln *Lane) copyBack(dst []byte, src cuda.DevicePtr) error {
	into := dst
	pinned := ln.backBuffer(len(dst))
	if pinned != nil {
		into = pinned
	}
	if err := ln.Stream.CopyDtoH(into, src); err != nil {
		return err
	}
	if err := ln.Stream.Synchronize(); err != nil {
		return err
	}
	if pinned != nil {
		copy(dst, pinned)
	}
	ln.stage.reset()
	return nil
}

// backBuffer returns n bytes of the lane's pinned result buffer, grown
// as needed, or nil where pinned memory is off.
func (ln *Lane) backBuffer(n int) []byte {
	if ln.pinnedOff || n == 0 {
		return nil
	}
	if ln.back == nil || len(ln.back.Bytes()) < n {
		size := backSize(n, ln.back)
		h, err := ln.Bufs.ctx.AllocHost(size)
		if err != nil {
			return nil // the copy goes to Go memory this time
		}
		ln.back.Free()
		ln.back = h
	}
	return ln.back.Bytes()[:n]
}

// backSize is the size a result buffer grows to for n bytes: at least
// 4 MiB (a 32-bit result for each of a million targets) and twice the
// old one, so that it is reallocated a few times at most: pinning memory
// takes milliseconds, and freeing it may wait for the device.
func backSize(n int, old *cuda.HostBuffer) int {
	size := 4 << 20
	if old != nil {
		size = 2 * len(old.Bytes())
	}
	return max(size, n)
}
