package cuda

import (
	"fmt"
	"time"
	"unsafe"
)

// Stream is a queue of device work that runs in order; work on different
// streams may overlap. A nil *Stream means the context's default (legacy)
// stream, which waits for all other blocking streams.
type Stream struct {
	ctx    *Context
	handle uintptr
}

// NewStream creates a stream that does not synchronise with the default
// stream (CU_STREAM_NON_BLOCKING), so independent pipelines overlap.
func (c *Context) NewStream() (*Stream, error) {
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	const nonBlocking = 0x1
	s := &Stream{ctx: c}
	if err := result(drv.cuStreamCreate.Call(uintptr(unsafe.Pointer(&s.handle)), nonBlocking), "cuStreamCreate(GPU %d)", c.dev.Ordinal); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Stream) h() uintptr {
	if s == nil {
		return 0
	}
	return s.handle
}

// Destroy releases the stream once its queued work is done.
func (s *Stream) Destroy() error {
	if s == nil || s.handle == 0 {
		return nil
	}
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = result(drv.cuStreamDestroy.Call(s.handle), "cuStreamDestroy")
	s.handle = 0
	return err
}

// Synchronize waits until all work queued on the stream has finished and
// reports any error it raised.
func (s *Stream) Synchronize() error {
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuStreamSynchronize.Call(s.handle), "cuStreamSynchronize")
}

// SynchronizeDefault waits until the work queued on the context's default
// (legacy) stream has finished. Synchronous copies from pageable memory
// may return before their transfer has reached the device; work on a
// non-blocking stream that reads what they wrote must wait for this.
func (c *Context) SynchronizeDefault() error {
	unbind, err := c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuStreamSynchronize.Call(0), "cuStreamSynchronize(default stream of GPU %d)", c.dev.Ordinal)
}

// Done reports whether all queued work has finished, without waiting.
func (s *Stream) Done() (bool, error) {
	unbind, err := s.ctx.bind()
	if err != nil {
		return false, err
	}
	defer unbind()
	r := drv.cuStreamQuery.Call(s.handle)
	if Result(r) == ErrorNotReady {
		return false, nil
	}
	return r == 0, result(r, "cuStreamQuery")
}

// WaitEvent makes later work on s wait until e has completed (on any
// stream, even of another device), without blocking the host.
func (s *Stream) WaitEvent(e *Event) error {
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuStreamWaitEvent.Call(s.handle, e.handle, 0), "cuStreamWaitEvent")
}

// The copies below are queued on s and return at once when the host side
// is pinned memory (HostBuffer). With ordinary Go memory the driver stages
// the data and returns only once it no longer needs the Go slice, so
// passing any []byte is safe; only pinned memory gives real overlap.

// CopyHtoD queues a copy of src to device address dst.
func (s *Stream) CopyHtoD(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuMemcpyHtoDAsync.Call(uintptr(dst), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), s.handle),
		"cuMemcpyHtoDAsync(%d bytes)", len(src))
}

// CopyDtoH queues a copy from device address src into dst.
func (s *Stream) CopyDtoH(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuMemcpyDtoHAsync.Call(uintptr(unsafe.Pointer(&dst[0])), uintptr(src), uintptr(len(dst)), s.handle),
		"cuMemcpyDtoHAsync(%d bytes)", len(dst))
}

// CopyDtoD queues a device-to-device copy of n bytes.
func (s *Stream) CopyDtoD(dst, src DevicePtr, n int) error {
	if n == 0 {
		return nil
	}
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuMemcpyDtoDAsync.Call(uintptr(dst), uintptr(src), uintptr(n), s.handle), "cuMemcpyDtoDAsync(%d bytes)", n)
}

// Memset8 queues setting n bytes at dst to v.
func (s *Stream) Memset8(dst DevicePtr, v byte, n int) error {
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuMemsetD8Async.Call(uintptr(dst), uintptr(v), uintptr(n), s.handle), "cuMemsetD8Async(%d bytes)", n)
}

// Memset32 queues setting n 4-byte words at dst to v.
func (s *Stream) Memset32(dst DevicePtr, v uint32, words int) error {
	unbind, err := s.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuMemsetD32Async.Call(uintptr(dst), uintptr(v), uintptr(words), s.handle), "cuMemsetD32Async(%d words)", words)
}

// Event marks a point in a stream, for timing and for ordering streams.
type Event struct {
	ctx    *Context
	handle uintptr
}

// NewEvent creates an event. Events without timing are cheaper to record
// and wait on; Elapsed needs timing on both events.
func (c *Context) NewEvent(timing bool) (*Event, error) {
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	const disableTiming = 0x2
	flags := uintptr(0)
	if !timing {
		flags = disableTiming
	}
	e := &Event{ctx: c}
	if err := result(drv.cuEventCreate.Call(uintptr(unsafe.Pointer(&e.handle)), flags), "cuEventCreate"); err != nil {
		return nil, err
	}
	return e, nil
}

// Record marks the event at the current end of stream s (nil: default).
func (e *Event) Record(s *Stream) error {
	unbind, err := e.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuEventRecord.Call(e.handle, s.h()), "cuEventRecord")
}

// Synchronize waits until the work before the event's record has finished.
func (e *Event) Synchronize() error {
	unbind, err := e.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuEventSynchronize.Call(e.handle), "cuEventSynchronize")
}

// Done reports whether the event has completed, without waiting.
func (e *Event) Done() (bool, error) {
	unbind, err := e.ctx.bind()
	if err != nil {
		return false, err
	}
	defer unbind()
	r := drv.cuEventQuery.Call(e.handle)
	if Result(r) == ErrorNotReady {
		return false, nil
	}
	return r == 0, result(r, "cuEventQuery")
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	if e == nil || e.handle == 0 {
		return nil
	}
	unbind, err := e.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = result(drv.cuEventDestroy.Call(e.handle), "cuEventDestroy")
	e.handle = 0
	return err
}

// Elapsed returns the device time between two completed events (the
// driver's resolution is about half a microsecond).
func Elapsed(start, end *Event) (time.Duration, error) {
	unbind, err := start.ctx.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	var ms float32
	if err := result(drv.cuEventElapsedTime.Call(uintptr(unsafe.Pointer(&ms)), start.handle, end.handle), "cuEventElapsedTime"); err != nil {
		return 0, err
	}
	if ms < 0 {
		return 0, fmt.Errorf("cuda: end event recorded before start event (%.3f ms)", ms)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}
