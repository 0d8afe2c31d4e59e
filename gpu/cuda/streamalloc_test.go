package cuda

import (
	"bytes"
	"testing"

	"github.com/hmmgo/hmmgo/gpu/internal/dl"
)

// A driver older than CUDA 11.2 lacks the stream-ordered calls: then
// Stream.Alloc takes cuMemAlloc, and Free the matching cuMemFree.
func TestGPUStreamAllocWithoutAsync(t *testing.T) {
	if err := Load(); err != nil {
		t.Skipf("no usable GPU: %v", err)
	}
	d, err := DeviceByOrdinal(0)
	if err != nil {
		t.Skipf("%v", err)
	}
	ctx, err := d.Context()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	allocAsync, freeAsync := drv.cuMemAllocAsync, drv.cuMemFreeAsync
	drv.cuMemAllocAsync, drv.cuMemFreeAsync = dl.Proc{}, dl.Proc{}
	defer func() { drv.cuMemAllocAsync, drv.cuMemFreeAsync = allocAsync, freeAsync }()
	b, err := s.Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	if b.stream != nil {
		t.Fatal("the buffer would be freed by cuMemFreeAsync, which the driver lacks")
	}
	in := bytes.Repeat([]byte{1, 2, 3, 4}, 1024)
	out := make([]byte, len(in))
	if err := b.CopyFromHost(0, in); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyToHost(out, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, out) {
		t.Fatal("the buffer did not keep what was copied in")
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
}
