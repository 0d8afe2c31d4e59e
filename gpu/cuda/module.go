package cuda

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/gpu/internal/dl"
)

// Module is loaded device code: a CUBIN (ELF), a fatbinary, or PTX text
// that the driver compiles for the device when loading.
type Module struct {
	ctx    *Context
	handle uintptr
	// funcs keeps the functions looked up, by name: the filters look
	// their kernel up at every launch, and cuModuleGetFunction took 0.36
	// ms a call on average in a two-GPU search (docs/BENCHMARKS.md,
	// issue 5).
	funcs sync.Map
}

// JIT options (CUjit_option) used to capture the PTX compiler's messages.
const (
	jitErrorLogBuffer     = 5
	jitErrorLogBufferSize = 6
)

// LoadModule loads a kernel image into the context. For PTX the driver's
// compiler log is part of the error.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("cuda: LoadModule of an empty image")
	}
	kind := "PTX"
	switch {
	case bytes.HasPrefix(image, []byte("\x7fELF")):
		kind = "CUBIN"
	case len(image) >= 4 && image[0] == 0x50 && image[1] == 0xed && image[2] == 0x55 && image[3] == 0xba:
		kind = "fatbinary"
	default:
		// PTX is read as a C string: it must end in NUL.
		if image[len(image)-1] != 0 {
			image = append(image[:len(image):len(image)], 0)
		}
	}
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()

	// The log buffer is referenced from the option values, so it must stay
	// put until the call returns: pin it.
	logBuf := make([]byte, 16<<10)
	var pin runtime.Pinner
	pin.Pin(&logBuf[0])
	defer pin.Unpin()
	opts := []uint32{jitErrorLogBuffer, jitErrorLogBufferSize}
	vals := []uintptr{uintptr(unsafe.Pointer(&logBuf[0])), uintptr(len(logBuf))}

	m := &Module{ctx: c}
	r := drv.cuModuleLoadDataEx.Call(uintptr(unsafe.Pointer(&m.handle)), uintptr(unsafe.Pointer(&image[0])),
		uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])), uintptr(unsafe.Pointer(&vals[0])))
	runtime.KeepAlive(logBuf)
	if err := result(r, "cuModuleLoadData(%d-byte %s on GPU %d, %s)", len(image), kind, c.dev.Ordinal, c.dev.Arch()); err != nil {
		if log := strings.TrimSpace(dl.TrimNUL(logBuf)); log != "" {
			err.(*Error).Message += ": " + log
		}
		return nil, err
	}
	return m, nil
}

// Unload releases the module; its functions become invalid.
func (m *Module) Unload() error {
	if m == nil || m.handle == 0 {
		return nil
	}
	unbind, err := m.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = result(drv.cuModuleUnload.Call(m.handle), "cuModuleUnload")
	m.handle = 0
	m.funcs.Clear()
	return err
}

// Function looks up a kernel by its symbol name: the plain name for
// extern "C" kernels, else the lowered (mangled) name NVRTC reports.
func (m *Module) Function(name string) (*Function, error) {
	if f, ok := m.funcs.Load(name); ok {
		return f.(*Function), nil
	}
	unbind, err := m.ctx.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	f := &Function{ctx: m.ctx, name: name}
	if err := result(drv.cuModuleGetFunction.Call(uintptr(unsafe.Pointer(&f.handle)), m.handle, uintptr(unsafe.Pointer(dl.CString(name)))),
		"cuModuleGetFunction(%q)", name); err != nil {
		return nil, err
	}
	got, _ := m.funcs.LoadOrStore(name, f)
	return got.(*Function), nil
}

// Global returns the address and size of a __device__ or __constant__
// variable of the module.
func (m *Module) Global(name string) (DevicePtr, int, error) {
	unbind, err := m.ctx.bind()
	if err != nil {
		return 0, 0, err
	}
	defer unbind()
	var p DevicePtr
	var size uintptr
	err = result(drv.cuModuleGetGlobal.Call(uintptr(unsafe.Pointer(&p)), uintptr(unsafe.Pointer(&size)), m.handle, uintptr(unsafe.Pointer(dl.CString(name)))),
		"cuModuleGetGlobal(%q)", name)
	return p, int(size), err
}

// Function is a kernel of a loaded module.
type Function struct {
	ctx    *Context
	handle uintptr
	name   string
}

// Name is the symbol the function was looked up by.
func (f *Function) Name() string { return f.name }

// Function attributes (CUfunction_attribute), numbered as in cuda.h.
const (
	FuncMaxThreadsPerBlock    = 0
	FuncSharedSizeBytes       = 1 // static shared memory
	FuncConstSizeBytes        = 2
	FuncLocalSizeBytes        = 3 // per-thread local memory (spills, stack)
	FuncNumRegs               = 4
	FuncPTXVersion            = 5
	FuncBinaryVersion         = 6
	FuncMaxDynamicSharedBytes = 8
	FuncPreferredCarveout     = 9 // percent of the unified L1/shared memory to give shared memory
)

// Attribute reads one CUfunction_attribute (the Func* constants).
func (f *Function) Attribute(attr int) (int, error) {
	unbind, err := f.ctx.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	var v int32
	err = result(drv.cuFuncGetAttribute.Call(uintptr(unsafe.Pointer(&v)), uintptr(attr), f.handle), "cuFuncGetAttribute(%s, %d)", f.name, attr)
	return int(v), err
}

// SetMaxDynamicSharedMemory lets launches of f ask for up to bytes of
// dynamic shared memory. Above 48 KiB a launch fails without this; the
// device's limit is Device.SharedMemPerBlockOptin minus f's static shared
// memory.
func (f *Function) SetMaxDynamicSharedMemory(bytes int) error {
	unbind, err := f.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuFuncSetAttribute.Call(f.handle, FuncMaxDynamicSharedBytes, uintptr(bytes)),
		"cuFuncSetAttribute(%s, max dynamic shared memory = %d bytes)", f.name, bytes)
}

// SetAttribute sets one settable CUfunction_attribute (the Func*
// constants: FuncMaxDynamicSharedBytes, FuncPreferredCarveout).
func (f *Function) SetAttribute(attr, value int) error {
	unbind, err := f.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return result(drv.cuFuncSetAttribute.Call(f.handle, uintptr(attr), uintptr(value)),
		"cuFuncSetAttribute(%s, %d = %d)", f.name, attr, value)
}

// Dim3 is a grid or block shape; zero Y and Z count as 1.
type Dim3 struct{ X, Y, Z int }

func (d Dim3) norm() (x, y, z uintptr) {
	one := func(v int) uintptr {
		if v == 0 {
			return 1
		}
		return uintptr(v)
	}
	return one(d.X), one(d.Y), one(d.Z)
}

func (d Dim3) String() string {
	x, y, z := d.norm()
	return fmt.Sprintf("%dx%dx%d", x, y, z)
}

// LaunchConfig says how many threads run a kernel and where.
type LaunchConfig struct {
	Grid      Dim3    // blocks
	Block     Dim3    // threads per block
	SharedMem int     // dynamic shared memory per block, bytes
	Stream    *Stream // nil: the default stream
}

// Args builds a kernel's argument list in parameter order. Each value
// must have exactly the C type of its parameter: Int32 for int, Uint32 for
// unsigned, Int64 for long long or size_t, Float32 for float, Ptr for any
// pointer. An Args can be Reset and reused to avoid allocation.
type Args struct {
	vals  []uint64         // one 8-byte slot per argument holds its value
	ptrs  []unsafe.Pointer // kernelParams: the address of each slot
	kinds []string
}

func (a *Args) add(v uint64, kind string) *Args {
	a.vals = append(a.vals, v)
	a.kinds = append(a.kinds, kind)
	return a
}

// Ptr appends a device pointer.
func (a *Args) Ptr(p DevicePtr) *Args { return a.add(uint64(p), "ptr") }

// Buffer appends a buffer's device address.
func (a *Args) Buffer(b *Buffer) *Args { return a.add(uint64(b.Ptr()), "ptr") }

// Int32 appends an int.
func (a *Args) Int32(v int32) *Args { return a.add(uint64(uint32(v)), "int32") }

// Uint32 appends an unsigned int.
func (a *Args) Uint32(v uint32) *Args { return a.add(uint64(v), "uint32") }

// Int64 appends a long long (or size_t).
func (a *Args) Int64(v int64) *Args { return a.add(uint64(v), "int64") }

// Uint64 appends an unsigned long long.
func (a *Args) Uint64(v uint64) *Args { return a.add(v, "uint64") }

// Float32 appends a float.
func (a *Args) Float32(v float32) *Args { return a.add(uint64(math.Float32bits(v)), "float32") }

// Float64 appends a double.
func (a *Args) Float64(v float64) *Args { return a.add(math.Float64bits(v), "float64") }

// Len is the number of arguments.
func (a *Args) Len() int { return len(a.vals) }

// Reset empties the list, keeping its storage.
func (a *Args) Reset() { a.vals, a.ptrs, a.kinds = a.vals[:0], a.ptrs[:0], a.kinds[:0] }

// Launch queues the kernel. Errors in the launch itself (a bad shape, too
// much shared memory) are reported here; faults while the kernel runs
// surface at the next synchronisation.
func (f *Function) Launch(cfg LaunchConfig, args *Args) error {
	gx, gy, gz := cfg.Grid.norm()
	bx, by, bz := cfg.Block.norm()
	if cfg.Grid.X < 0 || cfg.Grid.Y < 0 || cfg.Grid.Z < 0 || cfg.Block.X < 0 || cfg.Block.Y < 0 || cfg.Block.Z < 0 || cfg.SharedMem < 0 {
		return fmt.Errorf("cuda: launch of %s with negative shape (grid %v, block %v, shared %d)", f.name, cfg.Grid, cfg.Block, cfg.SharedMem)
	}
	if cfg.Stream != nil && cfg.Stream.ctx != f.ctx {
		return fmt.Errorf("cuda: launch of %s (GPU %d) on a stream of GPU %d", f.name, f.ctx.dev.Ordinal, cfg.Stream.ctx.dev.Ordinal)
	}
	// Each argument is passed by the address of its slot. C reads from a
	// uint64 slot the low-order bytes of its own size, which on the
	// little-endian hosts CUDA supports hold the value.
	var params *unsafe.Pointer
	if args != nil && len(args.vals) > 0 {
		args.ptrs = args.ptrs[:0]
		for i := range args.vals {
			args.ptrs = append(args.ptrs, unsafe.Pointer(&args.vals[i]))
		}
		params = &args.ptrs[0]
	}
	unbind, err := f.ctx.bind()
	if err != nil {
		return err
	}
	defer unbind()
	r := drv.cuLaunchKernel.Call(f.handle, gx, gy, gz, bx, by, bz, uintptr(cfg.SharedMem), cfg.Stream.h(), uintptr(unsafe.Pointer(params)), 0)
	runtime.KeepAlive(args)
	if r != 0 {
		kinds := "no args"
		if args != nil && len(args.kinds) > 0 {
			kinds = "args " + strings.Join(args.kinds, ",")
		}
		return result(r, "cuLaunchKernel(%s, grid %v, block %v, shared %d bytes, %s)", f.name, cfg.Grid, cfg.Block, cfg.SharedMem, kinds)
	}
	return nil
}
