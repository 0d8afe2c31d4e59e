// Package gpuinfo is `hmmgo gpuinfo`: what GPUs and CUDA libraries hmmgo
// finds, or why it finds none, and optionally an end-to-end check and a
// bandwidth measurement of the GPUs commands would use.
package gpuinfo

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/gpu/gpucheck"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// Command is the subcommand table entry.
var Command = cli.Command{
	Name:    "gpuinfo",
	Summary: "list the GPUs and CUDA libraries hmmgo can use",
	Run:     run,
}

func run(env cli.Env, args []string) int {
	fs := flag.NewFlagSet("gpuinfo", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: hmmgo gpuinfo [--require] [--check] [--bench] [--gpu N|0,2|all]")
		fs.PrintDefaults()
	}
	require := fs.Bool("require", false, "exit 1 unless a GPU is usable")
	check := fs.Bool("check", false, "compile and run check kernels (vector add, DPX) on the selected GPUs")
	bench := fs.Bool("bench", false, "measure device-to-device copy bandwidth on the selected GPUs")
	benchMiB := fs.Int("bench-mib", 1024, "size of one bandwidth copy, MiB")
	var gpu devices.Request
	gpu.AddFlags(fs)
	if err := fs.Parse(devices.NormalizeArgs(args)); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "hmmgo gpuinfo: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *benchMiB <= 0 {
		fmt.Fprintln(env.Stderr, "hmmgo gpuinfo: --bench-mib must be positive")
		return 2
	}

	out := env.Stdout
	usable := report(out)

	// Which devices would a command with these flags use?
	choice, err := gpu.Resolve(devices.Usable, devices.Needs{})
	if err != nil {
		var ue *cli.UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(env.Stderr, "hmmgo gpuinfo: %v\n", err)
			return 2
		}
		return cli.Fail(env, "gpuinfo", err)
	}
	switch {
	case gpu.CPUOnly():
		fmt.Fprintf(out, "Commands use:  the CPU (asked for)\n")
	case len(choice.Devices) > 0:
		fmt.Fprintf(out, "Commands use:  %s\n", choice.Note)
	case usable != nil:
		fmt.Fprintln(out, "Commands use:  the CPU (no usable GPU; see above)")
	default:
		fmt.Fprintf(out, "Commands use:  the CPU (%s)\n", choice.Note)
	}
	if *require && len(choice.Devices) == 0 {
		if gpu.CPUOnly() {
			usable = errors.New("the GPU was turned off with --nogpu")
		}
		return cli.Fail(env, "gpuinfo", fmt.Errorf("no usable GPU: %v", usable))
	}
	for _, d := range choice.Devices {
		if *check {
			if err := runChecks(out, d); err != nil {
				return cli.Fail(env, "gpuinfo", fmt.Errorf("GPU %d check failed: %w", d.Ordinal, err))
			}
		}
		if *bench {
			if err := runBench(out, d, *benchMiB<<20); err != nil {
				return cli.Fail(env, "gpuinfo", fmt.Errorf("GPU %d bandwidth: %w", d.Ordinal, err))
			}
		}
	}
	return 0
}

// report prints the libraries and devices, and returns why no GPU is
// usable (nil when one is).
func report(out io.Writer) error {
	var why error
	if err := cuda.Load(); err != nil {
		fmt.Fprintf(out, "CUDA driver:   not usable: %v\n", err)
		why = err
	} else {
		v, _ := cuda.DriverVersion()
		fmt.Fprintf(out, "CUDA driver:   CUDA %s (%s)\n", v, cuda.LibraryPath())
	}
	if err := nvrtc.Load(); err != nil {
		fmt.Fprintf(out, "NVRTC:         not usable: %v\n", err)
		if why == nil {
			why = err
		}
	} else {
		major, minor, _ := nvrtc.Version()
		archs, _ := nvrtc.SupportedArchs()
		fmt.Fprintf(out, "NVRTC:         %d.%d (%s); CUBIN for %s\n", major, minor, nvrtc.LibraryPath(), nvrtc.ArchList(archs))
	}
	if c := nvrtc.DefaultCache(); c == nil {
		fmt.Fprintln(out, "Kernel cache:  off (HMMGO_KERNEL_CACHE=off or no home directory)")
	} else if _, err := os.Stat(c.Dir); err != nil {
		fmt.Fprintf(out, "Kernel cache:  %s (empty; created by the first compilation)\n", c.Dir)
	} else if err := c.Writable(); err != nil {
		fmt.Fprintf(out, "Kernel cache:  %s (not writable: %v; kernels are compiled on every run)\n", c.Dir, err)
	} else {
		n, size := c.Entries()
		fmt.Fprintf(out, "Kernel cache:  %s (%d kernels, %.1f MiB)\n", c.Dir, n, float64(size)/(1<<20))
	}
	if cuda.Load() != nil {
		return why
	}
	ds, err := cuda.Devices()
	if err != nil {
		fmt.Fprintf(out, "GPUs:          not usable: %v\n", err)
		return err
	}
	for _, d := range ds {
		printDevice(out, d)
	}
	return why
}

func printDevice(out io.Writer, d *cuda.Device) {
	fmt.Fprintf(out, "GPU %d: %s\n", d.Ordinal, d.Name)
	row := func(k, format string, a ...any) { fmt.Fprintf(out, "  %-20s"+format+"\n", append([]any{k}, a...)...) }
	row("compute capability", "%d.%d (%s)", d.Major, d.Minor, d.Arch())
	row("multiprocessors", "%d", d.Multiprocessors)
	mem := fmt.Sprintf("%.1f GiB", float64(d.TotalMemory)/(1<<30))
	if ctx, err := d.Context(); err == nil {
		if free, _, err := ctx.MemInfo(); err == nil {
			mem += fmt.Sprintf(" (%.1f GiB free)", float64(free)/(1<<30))
		}
	}
	if d.MemoryBusWidthBits > 0 {
		mem += fmt.Sprintf(", %d-bit bus", d.MemoryBusWidthBits)
	}
	if p := d.PeakMemoryBandwidth(); p > 0 {
		mem += fmt.Sprintf(", nominal %.0f GB/s", p/1e9)
	}
	row("memory", "%s", mem)
	row("L2 cache", "%.1f MiB", float64(d.L2CacheBytes)/(1<<20))
	row("shared memory", "%d KiB per block, %d KiB opt-in, %d KiB per SM", d.SharedMemPerBlock>>10, d.SharedMemPerBlockOptin>>10, d.SharedMemPerSM>>10)
	row("registers", "%d per block, %d per SM", d.RegistersPerBlock, d.RegistersPerSM)
	row("threads", "%d per block, %d per SM, warp %d", d.MaxThreadsPerBlock, d.MaxThreadsPerSM, d.WarpSize)
	row("copy engines", "%d", d.AsyncEngines)
	if d.PCIBusID != "" {
		row("PCI bus", "%s", d.PCIBusID)
	}
}

func runChecks(out io.Writer, d *cuda.Device) error {
	ctx, err := d.Context()
	if err != nil {
		return err
	}
	t0 := time.Now()
	k, err := gpucheck.Kernels(ctx)
	if err != nil {
		return err
	}
	defer k.Unload()
	how := fmt.Sprintf("compiled in %v", time.Since(t0).Round(time.Millisecond))
	if k.Image.FromCache {
		how = "from the kernel cache"
	}
	fmt.Fprintf(out, "GPU %d check:   kernels %s %s, %s\n", d.Ordinal, k.Image.Kind, k.Image.Arch, how)
	if err := gpucheck.VectorAdd(ctx, k, 1<<22); err != nil {
		return err
	}
	fmt.Fprintf(out, "GPU %d check:   vector add of 4M floats ok\n", d.Ordinal)
	r, err := gpucheck.DPX(ctx, k, 1<<18)
	if err != nil {
		return fmt.Errorf("DPX: %w", err)
	}
	fmt.Fprintf(out, "GPU %d check:   DPX %v\n", d.Ordinal, r)
	return nil
}

func runBench(out io.Writer, d *cuda.Device, bytes int) error {
	ctx, err := d.Context()
	if err != nil {
		return err
	}
	if free, _, err := ctx.MemInfo(); err == nil && uint64(bytes) > free/3 {
		bytes = int(free / 3) // two buffers and headroom
	}
	k, err := gpucheck.Kernels(ctx)
	if err != nil {
		return err
	}
	defer k.Unload()
	bw, err := gpucheck.CopyBandwidth(ctx, k, bytes, 20)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "GPU %d bench:   %v\n", d.Ordinal, bw)
	return nil
}
