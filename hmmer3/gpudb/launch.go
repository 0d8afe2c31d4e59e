package gpudb

import (
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// Buffers keeps named device buffers that kernels reuse across calls,
// growing them when a call needs more.
type Buffers struct {
	ctx  *cuda.Context
	bufs map[string]*cuda.Buffer
}

// NewBuffers returns an empty set on ctx.
func NewBuffers(ctx *cuda.Context) *Buffers {
	return &Buffers{ctx: ctx, bufs: map[string]*cuda.Buffer{}}
}

// Get returns buffer name with at least n bytes.
func (b *Buffers) Get(name string, n int) (*cuda.Buffer, error) {
	if buf := b.bufs[name]; buf != nil && buf.Size() >= n {
		return buf, nil
	}
	if buf := b.bufs[name]; buf != nil {
		buf.Free()
	}
	buf, err := b.ctx.Alloc(max(n, 4096))
	if err != nil {
		return nil, err
	}
	b.bufs[name] = buf
	return buf, nil
}

// Upload copies src into buffer name (grown as needed) and returns it.
func (b *Buffers) Upload(name string, src []byte) (*cuda.Buffer, error) {
	buf, err := b.Get(name, len(src))
	if err != nil {
		return nil, err
	}
	if len(src) > 0 {
		err = buf.CopyFromHost(0, src)
	}
	return buf, err
}

// Timed runs launch between two events, waits for the device and returns
// the time the device spent.
func Timed(ctx *cuda.Context, launch func() error) (time.Duration, error) {
	e0, err := ctx.NewEvent(true)
	if err != nil {
		return 0, err
	}
	defer e0.Destroy()
	e1, err := ctx.NewEvent(true)
	if err != nil {
		return 0, err
	}
	defer e1.Destroy()
	if err := e0.Record(nil); err != nil {
		return 0, err
	}
	if err := launch(); err != nil {
		return 0, err
	}
	if err := e1.Record(nil); err != nil {
		return 0, err
	}
	if err := ctx.Synchronize(); err != nil {
		return 0, err
	}
	return cuda.Elapsed(e0, e1)
}

// PersistentGrid is the grid of a kernel that pulls work from a counter:
// enough blocks to fill every multiprocessor, one per SM when a block
// needs more than half of an SM's shared memory.
func PersistentGrid(ctx *cuda.Context, block, sharedBytes int) int {
	sms := ctx.Device().Multiprocessors
	if sharedBytes > 96*1024 {
		return sms
	}
	return sms * max(1, 2048/block)
}
