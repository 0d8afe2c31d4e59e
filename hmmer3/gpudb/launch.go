package gpudb

import (
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// Buffers keeps named device buffers that kernels reuse across calls,
// growing them when a call needs more.
type Buffers struct {
	ctx  *cuda.Context
	bufs map[string]*cuda.Buffer
	// stream, when set (a lane's), allocates and frees the buffers in
	// its order (cuda.Stream.Alloc): a lane's buffers growing then never
	// wait for the other lanes' work.
	stream *cuda.Stream
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
	alloc := b.ctx.Alloc
	if b.stream != nil {
		alloc = b.stream.Alloc
	}
	buf, err := alloc(max(n, 4096))
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

// LanesPerKernel is how many launches of one kernel family may run at
// once on a device: about the queries a GPU worker keeps in flight.
// $HMMGO_GPU_LANES overrides it (1: one launch at a time, for benchmarks).
var LanesPerKernel = lanesFromEnv(4)

func lanesFromEnv(def int) int {
	if n, err := strconv.Atoi(os.Getenv("HMMGO_GPU_LANES")); err == nil && n >= 1 {
		return n
	}
	return def
}

// Lanes let several launches of one kernel family run on a device at
// once. A worker's tasks search small blocks of targets, and a filter
// kernel over a small block is latency-bound: its time is that of its
// longest target, with most of the device idle. On one stream behind one
// lock, the launches of the queries in flight would run one after
// another; each lane is a stream of its own with its own buffers, so
// their kernels overlap.
type Lanes struct {
	ctx     *cuda.Context
	n       int
	ordered bool // NewOrderedLanes
	once    sync.Once
	free    chan *Lane
	err     error
}

// Lane is one stream and the buffers its launches use.
type Lane struct {
	Stream     *cuda.Stream
	Bufs       *Buffers
	start, end *cuda.Event
	// staged is the lane's pinned host memory for uploads (an arena of
	// stageBytes, its pieces in flight until the stream is next waited
	// for), back the pinned buffer results come back through; pinnedOff
	// is set when pinned memory is off ($HMMGO_LANE_PINNED=off) or could
	// not be had, and the copies go from and to Go memory directly.
	staged, back *cuda.HostBuffer
	stage        arena
	pinnedOff    bool
	taken        time.Time // when Take handed the lane out
}

// NewLanes makes n lanes on ctx (streams are created on first use).
func NewLanes(ctx *cuda.Context, n int) *Lanes { return &Lanes{ctx: ctx, n: max(1, n)} }

// NewOrderedLanes is NewLanes whose buffers are allocated and freed in
// their lane's stream order (cuda.Stream.Alloc), for lanes whose buffers
// only their own stream uses and whose growth must not stall the device.
func NewOrderedLanes(ctx *cuda.Context, n int) *Lanes {
	return &Lanes{ctx: ctx, n: max(1, n), ordered: true}
}

// Take waits for a free lane; Give returns it.
func (l *Lanes) Take() (*Lane, error) {
	l.once.Do(func() {
		l.free = make(chan *Lane, l.n)
		for range l.n {
			ln := &Lane{Bufs: NewBuffers(l.ctx), pinnedOff: !pinnedLanes}
			var err error
			if ln.Stream, err = l.ctx.NewStream(); err == nil {
				if l.ordered {
					ln.Bufs.stream = ln.Stream
				}
				if ln.start, err = l.ctx.NewEvent(true); err == nil {
					ln.end, err = l.ctx.NewEvent(true)
				}
			}
			if err != nil {
				l.err = err
				break
			}
			l.free <- ln
		}
		if len(l.free) > 0 {
			l.err = nil // fewer lanes than asked for still work
		}
	})
	if l.err != nil {
		return nil, l.err
	}
	waited := time.Now()
	ln := <-l.free
	LaneTimes.Wait.since(waited)
	if ln.stage.used != 0 {
		// The last holder queued uploads from the arena and returned
		// before waiting for them (an error on its way): they must be
		// done before the arena is written again.
		if err := ln.Stream.Synchronize(); err != nil {
			l.Give(ln)
			return nil, err
		}
		ln.stage.reset()
	}
	ln.taken = time.Now()
	return ln, nil
}

// Give returns a lane taken with Take.
func (l *Lanes) Give(ln *Lane) {
	LaneTimes.Held.since(ln.taken)
	l.free <- ln
}

// Upload copies src into the lane's buffer name (grown as needed), in
// stream order.
func (ln *Lane) Upload(name string, src []byte) (*cuda.Buffer, error) {
	defer LaneTimes.Upload.since(time.Now())
	buf, err := ln.Bufs.Get(name, len(src))
	if err != nil {
		return nil, err
	}
	return buf, ln.copyIn(buf.Ptr(), src)
}

// UploadPacked copies a packed layout of a few targets (a call's subset
// packed on the host: Layout's HMMGO_GPUDB_PACK=host path) into the lane's buffers, in stream
// order, and returns it as a layout. It belongs to the lane until its
// next use and must not be freed: allocating and freeing device memory
// for each call would cost more, and a free waits for every stream.
func (ln *Lane) UploadPacked(p *Packed) (*Device, error) {
	defer LaneTimes.Upload.since(time.Now())
	res, err := ln.Bufs.Get("subset.res", len(p.Res)+16)
	if err != nil {
		return nil, err
	}
	table, err := ln.Bufs.Get("subset.table", len(p.Table)+BlockBytes)
	if err != nil {
		return nil, err
	}
	if err := ln.copyIn(res.Ptr(), p.Res); err != nil {
		return nil, err
	}
	if err := ln.copyIn(table.Ptr(), p.Table); err != nil {
		return nil, err
	}
	return &Device{Res: res, Table: table, NBlocks: p.NBlocks}, nil
}

// Zero returns the lane's buffer name of at least n bytes, cleared whole
// in stream order.
func (ln *Lane) Zero(name string, n int) (*cuda.Buffer, error) {
	buf, err := ln.Bufs.Get(name, n)
	if err != nil {
		return nil, err
	}
	return buf, ln.Stream.Memset32(buf.Ptr(), 0, buf.Size()/4)
}

// Run queues launch on the lane's stream between two events, then the
// copy of out's first len(dst) bytes into dst; it waits for all of it and
// returns the kernel's device time.
func (ln *Lane) Run(launch func(*cuda.Stream) error, out *cuda.Buffer, dst []byte) (time.Duration, error) {
	queued := time.Now()
	if err := ln.start.Record(ln.Stream); err != nil {
		return 0, err
	}
	if err := launch(ln.Stream); err != nil {
		return 0, err
	}
	if err := ln.end.Record(ln.Stream); err != nil {
		return 0, err
	}
	LaneTimes.Launch.since(queued)
	defer LaneTimes.Results.since(time.Now())
	if err := ln.copyBack(dst, out.Ptr()); err != nil {
		return 0, err
	}
	return cuda.Elapsed(ln.start, ln.end)
}

// CopyBack copies src's first len(dst) bytes into dst after the work
// queued on the lane's stream and waits for all of it, through the
// lane's pinned result buffer (a side lane's results, which Run does not
// copy).
func (ln *Lane) CopyBack(dst []byte, src *cuda.Buffer) error {
	defer LaneTimes.Results.since(time.Now())
	return ln.copyBack(dst, src.Ptr())
}
