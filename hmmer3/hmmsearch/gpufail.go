package hmmsearch

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/hmmer3/hits"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/hmmer3/profile"
)

// A device that fails mid-run hands its work back. Its first failed call
// takes it out of the run (gpuSearch.fail): from then on each of its calls
// computes the same scores on the cores instead (gpuSearch.call), and
// dealt queries go to the devices still running. The query whose call
// failed, and any other query a failed call reached, is searched again
// from the start (searchQuery), so no query keeps a result that a failed
// call left incomplete. Every score the cores give is the one the device
// would have given (the CPU kernels are the GPU kernels' oracle), so the
// output is the same as a run without the failure.

// deviceError is a device call that failed: the device is out of the run.
type deviceError struct {
	ordinal int
	err     error
}

func (e *deviceError) Error() string { return fmt.Sprintf("GPU %d: %v", e.ordinal, e.err) }
func (e *deviceError) Unwrap() error { return e.err }

// failEnv makes devices fail on purpose, for tests and drills:
// "ORDINAL:N[:trap][,...]" fails device ORDINAL's N-th call (counting
// from 1). Plain, the call returns errInjected. With ":trap" a kernel
// that traps runs on the device first, so the context is broken as by a
// fault (every later call on it fails, the work of other queries in
// flight there too) and the call returns the driver's own error.
const failEnv = "HMMGO_GPU_FAIL"

// errInjected is what a failure set by $HMMGO_GPU_FAIL returns.
var errInjected = errors.New("failure injected by " + failEnv)

// failure is one device's failure set by $HMMGO_GPU_FAIL.
type failure struct {
	at   int64 // the call that fails, from 1
	trap bool  // break the context with a trapping kernel
}

// errNoDevice: no device is left for envelopes, which the cores then
// rescore.
var errNoDevice = errors.New("no GPU left in the run")

// parseFailures reads $HMMGO_GPU_FAIL, by ordinal; empty, none.
func parseFailures(v string) (map[int]failure, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	out := map[int]failure{}
	for _, f := range strings.Split(v, ",") {
		fields := strings.Split(strings.TrimSpace(f), ":")
		trap := len(fields) == 3 && fields[2] == "trap"
		if trap {
			fields = fields[:2]
		}
		if len(fields) != 2 {
			return nil, badFailures(v)
		}
		d, err1 := strconv.Atoi(fields[0])
		n, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil || d < 0 || n < 1 {
			return nil, badFailures(v)
		}
		out[d] = failure{at: n, trap: trap}
	}
	return out, nil
}

func badFailures(v string) error {
	return fmt.Errorf("%s is %q: say ORDINAL:N[:trap][,...], the device and which of its calls fails (1 or more)", failEnv, v)
}

// partHealth is whether a device is still in the run.
type partHealth struct {
	ordinal int
	down    atomic.Bool
	calls   atomic.Int64 // device calls so far, counted for $HMMGO_GPU_FAIL
	failure failure      // set by $HMMGO_GPU_FAIL; at 0: none
}

// call runs one device call of part p: gpu on its device, or host (the
// same scores, computed on the cores) once the device is out of the run.
// A part with no device (tests) computes on the cores as if it had one.
// A failed call returns a *deviceError and, with hand-back, takes the
// device out of the run.
func (g *gpuSearch) call(p *gpuPart, gpu, host func() error) error {
	if p.down.Load() {
		return host()
	}
	var err error
	switch {
	case p.failure.at > 0 && p.calls.Add(1) >= p.failure.at:
		err = errInjected
		switch {
		case p.failure.trap && p.k != nil && p.k.ctx != nil:
			err = trap(p.k.ctx)
			if err == nil {
				err = gpu() // on a context the trap broke
			}
		case p.failure.trap: // no device (tests): the error a fault gives
			err = &cuda.Error{Call: "a trapping kernel (" + failEnv + ")", Code: cuda.ErrorLaunchFailed, Name: "CUDA_ERROR_LAUNCH_FAILED", Message: "unspecified launch failure"}
		}
	case p.k == nil || p.k.ctx == nil:
		return host()
	default:
		err = gpu()
	}
	if err == nil {
		return nil
	}
	if g.handBack {
		g.fail(p, err)
	}
	return &deviceError{p.ordinal, err}
}

// fail takes p's device out of the run and says so once on stderr. A
// fault takes every device out: the driver fails every later call of the
// process (cuda.IsFault).
func (g *gpuSearch) fail(p *gpuPart, err error) {
	if cuda.IsFault(err) {
		if g.fault.Swap(true) {
			return
		}
		for _, q := range g.parts {
			q.down.Store(true)
		}
		if g.warn != nil {
			g.warn(fmt.Sprintf("GPU %d failed (%v); a fault breaks every GPU of the process, so all leave the run and their work goes to the CPU cores: the results are the same", p.ordinal, err))
		}
		return
	}
	if p.down.Swap(true) || g.warn == nil {
		return
	}
	var alive []string
	for _, q := range g.parts {
		if !q.down.Load() {
			alive = append(alive, strconv.Itoa(q.ordinal))
		}
	}
	to := "the CPU cores"
	if g.deal != nil && len(alive) > 0 {
		to = "GPU " + strings.Join(alive, ", ") // each holds every target
	}
	g.warn(fmt.Sprintf("GPU %d failed (%v); it leaves the run, and its work goes to %s: the results are the same", p.ordinal, err, to))
}

// host is the CPU accelerator over p's targets, in p's order: its scores
// are indexed as the device's are.
func (g *gpuSearch) host(p *gpuPart) pipeline.CPUAccelerator {
	return pipeline.CPUAccelerator{Seqs: g.partSeqs(p)}
}

// hostBias is the bias filter of p's targets with sel[k] on the cores,
// into out (bg.FilterScore at each target's length, as the workers
// compute it).
func (g *gpuSearch) hostBias(p *gpuPart, bg *profile.Background, sel []bool, out []float32) {
	seqs := g.host(p).Seqs
	var wg sync.WaitGroup
	n := max(1, min(len(seqs), runtime.GOMAXPROCS(0)))
	for w := 0; w < n; w++ {
		wg.Go(func() {
			b := *bg // SetLength writes the copy
			for k := w; k < len(seqs); k += n {
				if sel[k] {
					b.SetLength(len(seqs[k].Dsq))
					out[k] = b.FilterScore(seqs[k].Dsq)
				}
			}
		})
	}
	wg.Wait()
}

// searchQuery runs one query's staged search on the devices. A device
// failure takes the device out of the run (call) and the query is
// searched again, on what is left. An attempt fails only on a device
// that was in the run when it began and is out when it ends, so there
// are at most as many attempts as devices, and one.
// A query counted by queryStarts says when it is done with the devices;
// so does leaveDevices, when not nil.
func (g *gpuSearch) searchQuery(m *pipeline.Model, indices []int64, cfg *pipeline.Config, rank int64, counted bool, leaveDevices func()) ([]*hits.Hit, *hits.Stats, error) {
	var once sync.Once
	callsDone := func() {
		once.Do(func() {
			if counted {
				g.queryCallsDone()
			}
			if leaveDevices != nil {
				leaveDevices()
			}
		})
	}
	defer callsDone()
	for attempt := 0; ; attempt++ {
		acc, done := g.forQuery(rank)
		on := acc.(gpuOn)
		on.callsDone = callsDone
		seqs, numbers := g.seqs, indices
		if on.own {
			seqs, numbers = g.partSeqs(on.use[0]), g.partNumbers(on.use[0], indices)
		}
		list, st, err := pipeline.SearchStaged(m, seqs, numbers, cfg, on)
		done()
		if !isDeviceError(err) || attempt >= len(g.parts) {
			return list, st, err
		}
	}
}

// trap breaks ctx as a device fault would: a kernel that traps, and the
// error its synchronisation returns (nil only if the trap did not break
// the context).
func trap(ctx *cuda.Context) error {
	k, err := nvrtc.Build(ctx, nvrtc.Program{Name: "trap.cu", Source: `extern "C" __global__ void hmmgo_trap() { __trap(); }`})
	if err != nil {
		return err
	}
	f, err := k.Function("hmmgo_trap")
	if err != nil {
		return err
	}
	if err := f.Launch(cuda.LaunchConfig{Grid: cuda.Dim3{X: 1}, Block: cuda.Dim3{X: 1}}, nil); err != nil {
		return err
	}
	return ctx.Synchronize()
}

// isDeviceError reports whether err is a failed device call.
func isDeviceError(err error) bool {
	var de *deviceError
	return errors.As(err, &de)
}
