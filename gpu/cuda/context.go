package cuda

import (
	"runtime"
	"unsafe"
)

// Context is a device's primary context: the one the CUDA runtime and
// other libraries in the process share. Every method may be called from
// any goroutine.
//
// The driver keeps a "current context" per OS thread. Each method
// therefore pins its goroutine to its thread and makes the context current
// for the duration of the driver call; this costs a fraction of a
// microsecond and frees callers from thinking about threads.
type Context struct {
	dev    *Device
	handle uintptr
}

// Context retains the device's primary context. Every call takes a
// reference, which Release gives back; a context none gives back lives as
// long as the process. All references share one Context until the last
// is given back; the next call then retains a new one.
func (d *Device) Context() (*Context, error) {
	d.ctxMu.Lock()
	defer d.ctxMu.Unlock()
	if d.ctx == nil {
		// Threads waiting for the device sleep instead of spinning: the
		// host runs half of hmmsearch's pipeline beside the GPU and needs
		// every core. A context some other library already started keeps
		// its own setting (the call then fails, harmlessly).
		const schedBlockingSync = 0x04
		drv.cuDevicePrimaryCtxSetFlags.Call(uintptr(d.handle), schedBlockingSync)
		var h uintptr
		if err := result(drv.cuDevicePrimaryCtxRetain.Call(uintptr(unsafe.Pointer(&h)), uintptr(d.handle)),
			"cuDevicePrimaryCtxRetain(GPU %d)", d.Ordinal); err != nil {
			return nil, err
		}
		d.ctx = &Context{dev: d, handle: h}
	}
	d.ctxRefs++
	return d.ctx, nil
}

// Device returns the context's GPU.
func (c *Context) Device() *Device { return c.dev }

// Release gives back the reference of one Context call. When it was the
// last, the driver tears the context down now (about 0.1 s), beside what
// the host has left to do, instead of in the process's exit; nothing made
// in it (memory, streams, modules, pinned host memory) may be used
// afterwards. A Context already torn down is left alone.
func (c *Context) Release() error {
	d := c.dev
	d.ctxMu.Lock()
	defer d.ctxMu.Unlock()
	if d.ctx != c {
		return nil
	}
	if d.ctxRefs--; d.ctxRefs > 0 {
		return nil
	}
	d.ctx = nil
	return result(drv.cuDevicePrimaryCtxRelease.Call(uintptr(d.handle)), "cuDevicePrimaryCtxRelease(GPU %d)", d.Ordinal)
}

// bind locks the calling goroutine to its OS thread and makes c current
// there. The caller must call the returned function when done.
func (c *Context) bind() (func(), error) {
	runtime.LockOSThread()
	if err := result(drv.cuCtxSetCurrent.Call(c.handle), "cuCtxSetCurrent(GPU %d)", c.dev.Ordinal); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}

// Do runs fn with the context current on the calling goroutine's locked
// OS thread, for code that makes several driver calls of its own.
func (c *Context) Do(fn func() error) error {
	unbind, err := c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return fn()
}

// Synchronize waits for all work queued on the device by this process.
func (c *Context) Synchronize() error {
	unbind, err := c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuCtxSynchronize.Call(), "cuCtxSynchronize(GPU %d)", c.dev.Ordinal)
}

// MemInfo returns the device memory free and in total, in bytes.
func (c *Context) MemInfo() (free, total uint64, err error) {
	unbind, err := c.bind()
	if err != nil {
		return 0, 0, err
	}
	defer unbind()
	err = result(drv.cuMemGetInfo.Call(uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))), "cuMemGetInfo(GPU %d)", c.dev.Ordinal)
	return free, total, err
}
