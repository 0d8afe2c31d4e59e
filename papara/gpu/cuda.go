package gpu

import (
	"fmt"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
)

// New returns a scorer on one GPU (a device from gpu/devices). Kernels are
// compiled when a job first needs them (once per machine: the images are
// cached). Close releases the device memory.
func New(dev *cuda.Device) (*Scorer, error) {
	ctx, err := dev.Context()
	if err != nil {
		return nil, err
	}
	d := &cudaDevice{dev: dev, ctx: ctx}
	if d.stream, err = ctx.NewStream(); err != nil {
		return nil, err
	}
	if d.start, err = ctx.NewEvent(true); err == nil {
		d.end, err = ctx.NewEvent(true)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return newScorer(d), nil
}

// cudaDevice is device over gpu/cuda and gpu/nvrtc: one stream, and a pair
// of events that time the launches between two Waits.
type cudaDevice struct {
	dev        *cuda.Device
	ctx        *cuda.Context
	stream     *cuda.Stream
	start, end *cuda.Event
	launched   bool // a launch since the last Wait (start recorded)
}

func (d *cudaDevice) Name() string { return d.dev.String() }

func (d *cudaDevice) Kernel(c config) (kernel, error) {
	k, err := nvrtc.Build(d.ctx, nvrtc.Program{Name: "papara_" + c.String() + ".cu", Source: cudaSource, Options: c.options()})
	if err != nil {
		return nil, err
	}
	return k.Function("papara_score")
}

func (d *cudaDevice) Alloc(bytes int) (buffer, error) {
	b, err := d.ctx.Alloc(bytes)
	if err != nil {
		return nil, err // not a nil *cuda.Buffer in an interface
	}
	return b, nil
}

func devPtr(b buffer, off int) cuda.DevicePtr { return b.(*cuda.Buffer).Ptr().Add(off) }

func (d *cudaDevice) CopyIn(dst buffer, src []byte) error {
	return d.stream.CopyHtoD(devPtr(dst, 0), src)
}

func (d *cudaDevice) Zero(dst buffer, bytes int) error {
	return d.stream.Memset8(devPtr(dst, 0), 0, bytes)
}

func (d *cudaDevice) Launch(k kernel, gridX, gridY int, args ...any) error {
	if !d.launched {
		if err := d.start.Record(d.stream); err != nil {
			return err
		}
		d.launched = true
	}
	var a cuda.Args
	for i, v := range args {
		switch v := v.(type) {
		case ptr:
			a.Ptr(devPtr(v.buf, v.off))
		case int32:
			a.Int32(v)
		default:
			return fmt.Errorf("papara/gpu: kernel argument %d has type %T", i, v)
		}
	}
	cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: gridX, Y: gridY}, Block: cuda.Dim3{X: blockThreads}, Stream: d.stream}
	return k.(*cuda.Function).Launch(cfg, &a)
}

// Wait polls an event with short sleeps: a blocking synchronize may spin
// a core for the whole kernel (the driver's default for a process with few
// contexts), a core the CPU scorers of a hybrid run need. The paper met
// the same busy-wait in NVIDIA's OpenCL driver.
func (d *cudaDevice) Wait() (time.Duration, error) {
	if err := d.end.Record(d.stream); err != nil {
		return 0, err
	}
	pause := 20 * time.Microsecond
	for {
		done, err := d.end.Done()
		if err != nil {
			return 0, err
		}
		if done {
			break
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Millisecond)
	}
	if !d.launched {
		return 0, nil
	}
	d.launched = false
	return cuda.Elapsed(d.start, d.end)
}

func (d *cudaDevice) CopyOut(dst []byte, src buffer) error {
	if err := d.stream.CopyDtoH(dst, devPtr(src, 0)); err != nil {
		return err
	}
	return d.stream.Synchronize()
}

func (d *cudaDevice) Close() error {
	var first error
	for _, e := range []*cuda.Event{d.start, d.end} {
		if e != nil {
			if err := e.Destroy(); err != nil && first == nil {
				first = err
			}
		}
	}
	if d.stream != nil {
		if err := d.stream.Destroy(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
