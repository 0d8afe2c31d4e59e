package gpudb

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// Packing a layout on the host cost a 24-query GPU search 6 of its 54
// CPU seconds (the interleaved writes miss the cache at every word), for
// each of the five or so layouts a run makes. Instead the residues go to
// the device once, concatenated, and each layout is a kernel launch
// (pack.cu) writing the bytes packResidues writes; the host only plans
// the layout (sorting and the block table).

//go:embed pack.cu
var packSource string

func packProgram() nvrtc.Program {
	return nvrtc.Program{Name: "pack.cu", Source: packSource, Options: []string{"-std=c++17"}}
}

// Precompile starts compiling the packing kernel in the background.
func Precompile(t nvrtc.Target) { nvrtc.Prefetch(packProgram(), t, nvrtc.DefaultCache()) }

const packBlockThreads = 256

// devicePacker is a database's residues on the device: raw holds them
// back to back, start (on the host) each target's offset. Its
// launches go on stream; the small buffers each layout's launch reads
// (scratch) stay until the database is freed, since freeing device
// memory waits for every stream of the device (a worker packs layouts
// while other tasks' kernels run).
type devicePacker struct {
	kernels *nvrtc.Kernels
	raw     *cuda.Buffer
	start   []uint64
	fn      *cuda.Function
	stream  *cuda.Stream
	mu      sync.Mutex
	scratch []*cuda.Buffer
}

func (p *devicePacker) free() {
	p.raw.Free()
	for _, b := range p.scratch {
		b.Free()
	}
	p.stream.Destroy()
}

// keep holds b until free.
func (p *devicePacker) keep(b *cuda.Buffer) {
	p.mu.Lock()
	p.scratch = append(p.scratch, b)
	p.mu.Unlock()
}

// upload copies host bytes to a new device buffer (at least 16 bytes, so
// that empty inputs still have an address).
func upload(ctx *cuda.Context, b []byte) (*cuda.Buffer, error) {
	buf, err := ctx.Alloc(max(len(b), 16))
	if err != nil {
		return nil, err
	}
	if len(b) > 0 {
		if err := buf.CopyFromHost(0, b); err != nil {
			buf.Free()
			return nil, err
		}
	}
	return buf, nil
}

// packKernel is the packing kernel loaded on one context.
type packKernel struct {
	once    sync.Once
	kernels *nvrtc.Kernels
	fn      *cuda.Function
	err     error
}

// packKernels holds the loaded kernel of each context: a worker makes a
// database of every block of targets its tasks search, and loading the
// module for each cost every task a module load.
var packKernels sync.Map // *cuda.Context -> *packKernel

func loadPackKernel(ctx *cuda.Context) (*nvrtc.Kernels, *cuda.Function, error) {
	v, _ := packKernels.LoadOrStore(ctx, &packKernel{})
	pk := v.(*packKernel)
	pk.once.Do(func() {
		if pk.kernels, pk.err = nvrtc.Build(ctx, packProgram()); pk.err == nil {
			pk.fn, pk.err = pk.kernels.Function("pack_layout")
		}
	})
	if pk.err != nil {
		// Not kept: a later database tries again.
		packKernels.CompareAndDelete(ctx, pk)
	}
	return pk.kernels, pk.fn, pk.err
}

// packer returns the database's device packer, uploading the residues
// the first time.
func (db *DB) packer() (*devicePacker, error) {
	db.packMu.Lock()
	defer db.packMu.Unlock()
	if db.onDevice != nil {
		return db.onDevice, nil
	}
	if db.freed {
		return nil, errors.New("the database was freed")
	}
	k, fn, err := loadPackKernel(db.ctx)
	if err != nil {
		return nil, err
	}
	raw, start := inSection(db.section, db.Dsqs)
	if raw == nil {
		raw, start = concatenate(db.Dsqs)
	}
	p := &devicePacker{kernels: k, fn: fn, start: start}
	if p.stream, err = db.ctx.NewStream(); err != nil {
		return nil, err
	}
	if p.raw, err = upload(db.ctx, raw); err == nil {
		// Subsets are packed on the filters' lanes, streams that do
		// not wait for the default stream's copy.
		err = db.ctx.SynchronizeDefault()
	}
	if err != nil {
		if p.raw != nil {
			p.raw.Free()
		}
		p.stream.Destroy()
		return nil, err
	}
	db.onDevice = p
	return p, nil
}

// UseResidues tells the database that every target's residues lie in
// section, a makedb file's residues as mapped for the run: the device
// copy then takes the section as it is instead of a packed copy of the
// targets, which for 175M residues cost an allocation and a copy of as
// many bytes before the first layout. A target outside it (or section
// nil) falls back to the copy.
func (db *DB) UseResidues(section []byte) {
	db.packMu.Lock()
	db.section = section
	db.packMu.Unlock()
}

// inSection returns section and each target's offset in it when every
// target lies inside it; nil otherwise.
func inSection(section []byte, dsqs [][]byte) ([]byte, []uint64) {
	if len(section) == 0 {
		return nil, nil
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(section)))
	start := make([]uint64, len(dsqs))
	for i, d := range dsqs {
		if len(d) == 0 {
			continue // read as nothing: any offset
		}
		off := uintptr(unsafe.Pointer(unsafe.SliceData(d))) - base // huge if below
		if off > uintptr(len(section)) || uintptr(len(d)) > uintptr(len(section))-off {
			return nil, nil
		}
		start[i] = uint64(off)
	}
	return section, start
}

// concatenate copies the targets back to back and returns each one's
// offset.
func concatenate(dsqs [][]byte) ([]byte, []uint64) {
	start := make([]uint64, len(dsqs))
	total := 0
	for i, d := range dsqs {
		start[i] = uint64(total)
		total += len(d)
	}
	raw := make([]byte, total)
	ForChunks(len(dsqs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			copy(raw[start[i]:], dsqs[i])
		}
	})
	return raw, start
}

// UploadResidues copies the residues to the device now, as the first
// layout or subset would otherwise do, so that a search can overlap the
// copy with planning its first layouts on the host. A failure is not
// kept: the first layout tries again and reports it.
func (db *DB) UploadResidues() error {
	if hostPacking() {
		return nil
	}
	_, err := db.packer()
	return err
}

// packOnDevice makes the layout pl on the device.
func (db *DB) packOnDevice(pl *layoutPlan) (*Device, error) {
	p, err := db.packer()
	if err != nil {
		return nil, fmt.Errorf("packing the database on GPU %d: %w", db.ctx.Device().Ordinal, err)
	}
	in, startAt, lenAt := p.packInputs(pl)
	ib, err := upload(db.ctx, in)
	if err != nil {
		return nil, err
	}
	p.keep(ib)
	res, err := db.ctx.Alloc(pl.offs[pl.nb] + 16)
	if err != nil {
		return nil, err
	}
	table, err := db.ctx.Alloc(len(pl.table) + BlockBytes)
	if err == nil && len(pl.table) > 0 {
		err = table.CopyFromHost(0, pl.table)
	}
	if err == nil {
		// The copies above are on the default stream and may return
		// before their transfers are in; the packing kernel and the
		// filters' lanes are on streams that do not wait for it.
		err = db.ctx.SynchronizeDefault()
	}
	if err == nil && pl.nb > 0 {
		var a cuda.Args
		p.packArgs(&a, pl, ib.Ptr(), startAt, lenAt, res.Ptr())
		err = p.launch(db.ctx, packGrid(db.ctx, pl), &a)
	}
	if err != nil {
		res.Free()
		if table != nil {
			table.Free()
		}
		return nil, fmt.Errorf("packing the database on GPU %d: %w", db.ctx.Device().Ordinal, err)
	}
	return &Device{Res: res, Table: table, NBlocks: pl.nb}, nil
}

// packInputs is what pack_layout reads besides the residues, in one
// buffer (one copy to the device): the blocks' first residue bytes
// (nb+1 uint64s), then from byte startAt each entry's first residue in
// raw (uint64), then from lenAt its length (uint32), in layout order.
func (p *devicePacker) packInputs(pl *layoutPlan) (in []byte, startAt, lenAt int) {
	n := pl.count()
	startAt = 8 * (pl.nb + 1)
	lenAt = startAt + 8*n
	in = make([]byte, lenAt+4*n)
	for b, o := range pl.offs {
		binary.LittleEndian.PutUint64(in[8*b:], uint64(o))
	}
	if pl.order == nil {
		for k, d := range pl.targets {
			binary.LittleEndian.PutUint64(in[startAt+8*k:], p.start[k])
			binary.LittleEndian.PutUint32(in[lenAt+4*k:], uint32(len(d)))
		}
		return in, startAt, lenAt
	}
	for k, e := range pl.order {
		binary.LittleEndian.PutUint64(in[startAt+8*k:], p.start[e.i]+uint64(e.off))
		binary.LittleEndian.PutUint32(in[lenAt+4*k:], uint32(e.n))
	}
	return in, startAt, lenAt
}

// packArgs sets pack_layout's arguments: plan pl's inputs (packInputs)
// at device address in, its residues written at out.
func (p *devicePacker) packArgs(a *cuda.Args, pl *layoutPlan, in cuda.DevicePtr, startAt, lenAt int, out cuda.DevicePtr) {
	a.Buffer(p.raw).Ptr(in.Add(startAt)).Ptr(in.Add(lenAt)).Ptr(in).
		Uint32(uint32(pl.nb)).Uint32(uint32(pl.S)).Uint32(uint32(pl.count())).Ptr(out)
}

// packGrid is the packing kernel's grid for pl: a CUDA block per warp
// block, up to 8 per multiprocessor (each then loops over several).
func packGrid(ctx *cuda.Context, pl *layoutPlan) int {
	return min(pl.nb, 8*ctx.Device().Multiprocessors)
}

// launch runs the packing kernel on the packer's stream and waits for it
// (other queries' kernels on other streams go on meanwhile).
func (p *devicePacker) launch(ctx *cuda.Context, grid int, a *cuda.Args) error {
	err := p.fn.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: grid}, Block: cuda.Dim3{X: packBlockThreads}, Stream: p.stream}, a)
	if err == nil {
		err = p.stream.Synchronize()
	}
	return err
}
