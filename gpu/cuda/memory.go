package cuda

import (
	"fmt"
	"unsafe"
)

// DevicePtr is an address in device memory (CUdeviceptr).
type DevicePtr uint64

// Add offsets the address by n bytes.
func (p DevicePtr) Add(n int) DevicePtr { return p + DevicePtr(n) }

// Buffer is device memory from Alloc. Its copy and memset methods run on
// the default stream and return only once the operation is complete, so
// work queued afterwards on any stream sees the result; reading back with
// CopyToHost after a kernel on a Stream needs that stream synchronised
// first. Stream has the asynchronous forms.
type Buffer struct {
	ctx  *Context
	ptr  DevicePtr
	size int
	// stream, for a buffer from Stream.Alloc, is the stream Free frees
	// it on.
	stream *Stream
}

// Alloc reserves bytes of device memory (not cleared).
func (c *Context) Alloc(bytes int) (*Buffer, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: Alloc of %d bytes", bytes)
	}
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	var p DevicePtr
	if err := result(drv.cuMemAlloc.Call(uintptr(unsafe.Pointer(&p)), uintptr(bytes)), "cuMemAlloc(%d bytes on GPU %d)", bytes, c.dev.Ordinal); err != nil {
		return nil, err
	}
	return &Buffer{ctx: c, ptr: p, size: bytes}, nil
}

// Ptr is the buffer's device address, for kernel arguments.
func (b *Buffer) Ptr() DevicePtr { return b.ptr }

// Size is the buffer's length in bytes.
func (b *Buffer) Size() int { return b.size }

// Free returns the memory to the device. Freeing twice is harmless.
func (b *Buffer) Free() error {
	if b == nil || b.ptr == 0 {
		return nil
	}
	unbind, err := b.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if b.stream != nil {
		err = result(drv.cuMemFreeAsync.Call(uintptr(b.ptr), b.stream.h()), "cuMemFreeAsync")
	} else {
		err = result(drv.cuMemFree.Call(uintptr(b.ptr)), "cuMemFree")
	}
	b.ptr = 0
	return err
}

// Alloc reserves bytes of device memory in the stream's order, where the
// driver can (cuMemAllocAsync; else as Context.Alloc), and returns once
// the memory is ready for any stream. Its Free then frees it after the
// work queued on the stream so far, without waiting for the device:
// cuMemFree waits for every stream of the device, so a stream whose
// buffers grow would otherwise stall all the others.
func (s *Stream) Alloc(bytes int) (*Buffer, error) {
	if !drv.cuMemAllocAsync.Found() || !drv.cuMemFreeAsync.Found() {
		return s.ctx.Alloc(bytes)
	}
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: Alloc of %d bytes", bytes)
	}
	unbind, err := s.ctx.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	var p DevicePtr
	if err := result(drv.cuMemAllocAsync.Call(uintptr(unsafe.Pointer(&p)), uintptr(bytes), s.h()),
		"cuMemAllocAsync(%d bytes on GPU %d)", bytes, s.ctx.dev.Ordinal); err != nil {
		return nil, err
	}
	b := &Buffer{ctx: s.ctx, ptr: p, size: bytes, stream: s}
	if err := result(drv.cuStreamSynchronize.Call(s.h()), "cuStreamSynchronize"); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// completeDefaultStream waits for the default stream. The driver's
// "synchronous" memset and device-side copies may return before the
// device has finished them, and our streams do not wait for the default
// stream (they are non-blocking), so without this a kernel on a Stream
// could read memory a Buffer method had not finished writing. The caller
// holds the context binding.
func completeDefaultStream() error {
	return result(drv.cuStreamSynchronize.Call(0), "cuStreamSynchronize(default stream)")
}

// check rejects a transfer that would run past the buffer.
func (b *Buffer) check(op string, off, n int) error {
	if b.ptr == 0 {
		return fmt.Errorf("cuda: %s on a freed buffer", op)
	}
	if off < 0 || n < 0 || off+n > b.size {
		return fmt.Errorf("cuda: %s of %d bytes at offset %d overruns a %d-byte buffer", op, n, off, b.size)
	}
	return nil
}

// CopyFromHost copies src to the buffer at byte offset off.
func (b *Buffer) CopyFromHost(off int, src []byte) error {
	if err := b.check("CopyFromHost", off, len(src)); err != nil || len(src) == 0 {
		return err
	}
	unbind, err := b.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := result(drv.cuMemcpyHtoD.Call(uintptr(b.ptr.Add(off)), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src))),
		"cuMemcpyHtoD(%d bytes)", len(src)); err != nil {
		return err
	}
	return completeDefaultStream()
}

// CopyToHost fills dst from the buffer starting at byte offset off.
func (b *Buffer) CopyToHost(dst []byte, off int) error {
	if err := b.check("CopyToHost", off, len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	unbind, err := b.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuMemcpyDtoH.Call(uintptr(unsafe.Pointer(&dst[0])), uintptr(b.ptr.Add(off)), uintptr(len(dst))),
		"cuMemcpyDtoH(%d bytes)", len(dst))
}

// CopyFrom copies n bytes from src (device memory of the same context or,
// with unified addressing, of another) to the buffer at offset off.
func (b *Buffer) CopyFrom(off int, src DevicePtr, n int) error {
	if err := b.check("CopyFrom", off, n); err != nil || n == 0 {
		return err
	}
	unbind, err := b.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := result(drv.cuMemcpyDtoD.Call(uintptr(b.ptr.Add(off)), uintptr(src), uintptr(n)), "cuMemcpyDtoD(%d bytes)", n); err != nil {
		return err
	}
	return completeDefaultStream()
}

// Memset8 sets every byte of the buffer to v.
func (b *Buffer) Memset8(v byte) error {
	if err := b.check("Memset8", 0, b.size); err != nil {
		return err
	}
	unbind, err := b.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := result(drv.cuMemsetD8.Call(uintptr(b.ptr), uintptr(v), uintptr(b.size)), "cuMemsetD8(%d bytes)", b.size); err != nil {
		return err
	}
	return completeDefaultStream()
}

// Memset32 sets every 4-byte word of the buffer to v; the size must be a
// multiple of 4.
func (b *Buffer) Memset32(v uint32) error {
	if err := b.check("Memset32", 0, b.size); err != nil {
		return err
	}
	if b.size%4 != 0 {
		return fmt.Errorf("cuda: Memset32 of a %d-byte buffer (not a multiple of 4)", b.size)
	}
	unbind, err := b.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := result(drv.cuMemsetD32.Call(uintptr(b.ptr), uintptr(v), uintptr(b.size/4)), "cuMemsetD32(%d words)", b.size/4); err != nil {
		return err
	}
	return completeDefaultStream()
}

// HostBuffer is page-locked ("pinned") host memory: the copy engines read
// and write it directly, so asynchronous copies from and to it overlap
// with kernels and with each other. Bytes is valid until Free.
type HostBuffer struct {
	ctx *Context
	p   unsafe.Pointer
	b   []byte
}

// AllocHost reserves pinned host memory, usable by every context
// (CU_MEMHOSTALLOC_PORTABLE).
func (c *Context) AllocHost(bytes int) (*HostBuffer, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost of %d bytes", bytes)
	}
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	const portable = 0x01
	var p unsafe.Pointer
	if err := result(drv.cuMemHostAlloc.Call(uintptr(unsafe.Pointer(&p)), uintptr(bytes), portable), "cuMemHostAlloc(%d bytes)", bytes); err != nil {
		return nil, err
	}
	return &HostBuffer{ctx: c, p: p, b: unsafe.Slice((*byte)(p), bytes)}, nil
}

// Bytes is the pinned memory as a Go slice; it must not be used after Free.
func (h *HostBuffer) Bytes() []byte { return h.b }

// Free releases the pinned memory. Freeing twice is harmless.
func (h *HostBuffer) Free() error {
	if h == nil || h.p == nil {
		return nil
	}
	unbind, err := h.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = result(drv.cuMemFreeHost.Call(uintptr(h.p)), "cuMemFreeHost")
	h.p, h.b = nil, nil
	return err
}

// Scalar is the element types that View and Bytes reinterpret.
type Scalar interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// Bytes views a slice of numbers as its bytes (no copy), for the copy
// methods. The bytes are in the host's order, which is the GPU's
// (little-endian).
func Bytes[T Scalar](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// View reinterprets bytes (typically HostBuffer.Bytes) as a slice of T,
// dropping a partial trailing element. b must be aligned for T, as
// pinned and Go-allocated memory are.
func View[T Scalar](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}
