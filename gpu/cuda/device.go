package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/hmmgo/hmmgo/gpu/internal/dl"
)

// Device attributes (CUdevice_attribute), numbered as in cuda.h.
const (
	attrMaxThreadsPerBlock     = 1
	attrMaxSharedPerBlock      = 8
	attrWarpSize               = 10
	attrMaxRegistersPerBlock   = 12
	attrClockRate              = 13
	attrMultiprocessorCount    = 16
	attrMemoryClockRate        = 36
	attrGlobalMemoryBusWidth   = 37
	attrL2CacheSize            = 38
	attrMaxThreadsPerSM        = 39
	attrAsyncEngineCount       = 40
	attrComputeCapabilityMajor = 75
	attrComputeCapabilityMinor = 76
	attrMaxSharedPerSM         = 81
	attrMaxRegistersPerSM      = 82
	attrMaxSharedPerBlockOptin = 97
)

// Device is one GPU as the driver enumerates it, with the properties that
// kernels size themselves by.
type Device struct {
	Ordinal      int
	Name         string
	Major, Minor int    // compute capability
	TotalMemory  uint64 // bytes
	PCIBusID     string // e.g. "0000:65:00.0"

	Multiprocessors        int
	WarpSize               int
	L2CacheBytes           int
	SharedMemPerBlock      int // without opting in
	SharedMemPerBlockOptin int // the most a kernel may ask for after SetMaxDynamicSharedMemory
	SharedMemPerSM         int
	RegistersPerBlock      int
	RegistersPerSM         int
	MaxThreadsPerBlock     int
	MaxThreadsPerSM        int
	AsyncEngines           int // copy engines: 2 or more overlap H2D and D2H
	ClockKHz               int // 0 when the driver no longer reports it
	MemoryClockKHz         int // 0 when the driver no longer reports it
	MemoryBusWidthBits     int

	handle int32

	ctxMu   sync.Mutex
	ctx     *Context // the primary context while retained
	ctxRefs int      // Context calls not yet given back by Release
}

// Arch is the compute capability as NVRTC and nvcc spell it ("sm_90").
func (d *Device) Arch() string { return fmt.Sprintf("sm_%d%d", d.Major, d.Minor) }

// ComputeCapability is 10*major+minor (90 for Hopper).
func (d *Device) ComputeCapability() int { return 10*d.Major + d.Minor }

// PeakMemoryBandwidth estimates bytes per second from the memory clock and
// bus width (double data rate), or 0 when the driver does not report them.
func (d *Device) PeakMemoryBandwidth() float64 {
	return 2 * float64(d.MemoryClockKHz) * 1e3 * float64(d.MemoryBusWidthBits) / 8
}

func (d *Device) String() string {
	return fmt.Sprintf("GPU %d: %s (%s, %d SMs, %.1f GiB)", d.Ordinal, d.Name, d.Arch(),
		d.Multiprocessors, float64(d.TotalMemory)/(1<<30))
}

var (
	devicesOnce sync.Once
	devices     []*Device
	devicesErr  error
)

// Devices lists every GPU the driver can use, in the driver's order
// (which CUDA_VISIBLE_DEVICES controls).
func Devices() ([]*Device, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	devicesOnce.Do(func() { devices, devicesErr = enumerate() })
	return devices, devicesErr
}

// DeviceByOrdinal returns one device.
func DeviceByOrdinal(ordinal int) (*Device, error) {
	ds, err := Devices()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= len(ds) {
		return nil, fmt.Errorf("cuda: no GPU %d: this machine has %d (0-%d)", ordinal, len(ds), len(ds)-1)
	}
	return ds[ordinal], nil
}

func enumerate() ([]*Device, error) {
	var n int32
	if err := result(drv.cuDeviceGetCount.Call(uintptr(unsafe.Pointer(&n))), "cuDeviceGetCount"); err != nil {
		return nil, err
	}
	out := make([]*Device, 0, n)
	for i := 0; i < int(n); i++ {
		d, err := describeDevice(i)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func describeDevice(ordinal int) (*Device, error) {
	d := &Device{Ordinal: ordinal}
	if err := result(drv.cuDeviceGet.Call(uintptr(unsafe.Pointer(&d.handle)), uintptr(ordinal)), "cuDeviceGet(%d)", ordinal); err != nil {
		return nil, err
	}
	name := make([]byte, 256)
	if err := result(drv.cuDeviceGetName.Call(uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)), uintptr(d.handle)), "cuDeviceGetName(%d)", ordinal); err != nil {
		return nil, err
	}
	d.Name = dl.TrimNUL(name)
	var mem uint64
	if err := result(drv.cuDeviceTotalMem.Call(uintptr(unsafe.Pointer(&mem)), uintptr(d.handle)), "cuDeviceTotalMem(%d)", ordinal); err != nil {
		return nil, err
	}
	d.TotalMemory = mem
	bus := make([]byte, 64)
	if drv.cuDeviceGetPCIBusId.Call(uintptr(unsafe.Pointer(&bus[0])), uintptr(len(bus)), uintptr(d.handle)) == 0 {
		d.PCIBusID = dl.TrimNUL(bus)
	}
	// Attributes every driver reports; a failure here is a real error.
	required := []struct {
		attr int
		dst  *int
		name string
	}{
		{attrComputeCapabilityMajor, &d.Major, "compute capability major"},
		{attrComputeCapabilityMinor, &d.Minor, "compute capability minor"},
		{attrMultiprocessorCount, &d.Multiprocessors, "multiprocessor count"},
		{attrWarpSize, &d.WarpSize, "warp size"},
		{attrMaxThreadsPerBlock, &d.MaxThreadsPerBlock, "max threads per block"},
		{attrMaxSharedPerBlock, &d.SharedMemPerBlock, "shared memory per block"},
		{attrMaxSharedPerBlockOptin, &d.SharedMemPerBlockOptin, "opt-in shared memory per block"},
		{attrMaxSharedPerSM, &d.SharedMemPerSM, "shared memory per multiprocessor"},
		{attrL2CacheSize, &d.L2CacheBytes, "L2 cache size"},
		{attrMaxRegistersPerBlock, &d.RegistersPerBlock, "registers per block"},
		{attrMaxRegistersPerSM, &d.RegistersPerSM, "registers per multiprocessor"},
		{attrMaxThreadsPerSM, &d.MaxThreadsPerSM, "threads per multiprocessor"},
		{attrAsyncEngineCount, &d.AsyncEngines, "copy engine count"},
		{attrGlobalMemoryBusWidth, &d.MemoryBusWidthBits, "memory bus width"},
	}
	for _, a := range required {
		v, err := attribute(d.handle, a.attr)
		if err != nil {
			return nil, fmt.Errorf("reading the %s of GPU %d: %w", a.name, ordinal, err)
		}
		*a.dst = v
	}
	// Clock rates are deprecated in recent drivers; 0 means unknown.
	d.ClockKHz, _ = attribute(d.handle, attrClockRate)
	d.MemoryClockKHz, _ = attribute(d.handle, attrMemoryClockRate)
	return d, nil
}

func attribute(dev int32, attr int) (int, error) {
	var v int32
	err := result(drv.cuDeviceGetAttribute.Call(uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(dev)), "cuDeviceGetAttribute(%d)", attr)
	return int(v), err
}
