package nvrtc

import (
	"errors"
	"fmt"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// Kernels is a program compiled and loaded into one context.
type Kernels struct {
	*cuda.Module
	Image *Image
}

// Function looks a kernel up by its source name (or name expression).
func (k *Kernels) Function(name string) (*cuda.Function, error) {
	return k.Module.Function(k.Image.Symbol(name))
}

// Build compiles p for the context's device, through the default cache,
// and loads it. A cached image that the driver refuses is dropped and
// compiled afresh once.
func Build(ctx *cuda.Context, p Program) (*Kernels, error) {
	defer func(start time.Time) {
		counters.builds.Add(1)
		counters.buildNs.Add(int64(time.Since(start)))
	}(time.Now())
	d := ctx.Device()
	t := Target{Major: d.Major, Minor: d.Minor}
	c := DefaultCache()
	img, err := Compile(p, t, c)
	if err != nil {
		return nil, err
	}
	m, err := ctx.LoadModule(img.Data)
	if err != nil && img.FromCache {
		c.Remove(img.Key)
		if img, err = Compile(p, t, c); err != nil {
			return nil, err
		}
		m, err = ctx.LoadModule(img.Data)
	}
	if err != nil {
		var ce *cuda.Error
		if errors.As(err, &ce) && (ce.Code == cuda.ErrorUnsupportedPTX || ce.Code == cuda.ErrorInvalidImage || ce.Code == cuda.ErrorNoBinaryForGPU) {
			dv, _ := cuda.DriverVersion()
			return nil, fmt.Errorf("%w (kernel %s built as %s %s by NVRTC %s; the driver supports CUDA %s)", err, p.Name, img.Kind, img.Arch, img.NVRTC, dv)
		}
		return nil, err
	}
	return &Kernels{Module: m, Image: img}, nil
}
