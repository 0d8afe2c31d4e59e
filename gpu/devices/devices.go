// Package devices is the one place where hmmgo decides which GPUs a
// command uses, so that every command (hmmsearch, hmm2search, pairhmm,
// papara) reads the same flags the same way:
//
//	(no flag)          auto: use the first usable GPU and say so on stderr;
//	                   run on the CPU when there is none (quietly when no
//	                   NVIDIA driver is installed, with a note otherwise)
//	--gpu              require a GPU: the first usable one; fail saying why
//	                   when there is none
//	--gpu N, --gpu 0,2 require exactly these GPUs
//	--gpu all          require GPUs: every usable one
//	--nogpu, --cpu-only never touch the GPU (the driver is not even loaded)
//
// A command registers the flags with Request.AddFlags, passes its
// arguments through NormalizeArgs first (so "--gpu 0,2" with a space
// works with package flag), and calls Select after parsing.
package devices

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/nvrtc"
	"github.com/hmmgo/hmmgo/internal/cli"
)

// Mode is the GPU policy a command line asks for.
type Mode int

const (
	Auto    Mode = iota // no flag given
	Require             // --gpu in any form
	Never               // --nogpu or --cpu-only
)

// Request is what the command line asked for.
type Request struct {
	Mode     Mode
	All      bool  // --gpu all
	Ordinals []int // --gpu 0,2; nil means the first usable GPU
	gpuText  string
	cpuFlag  string // the CPU-only flag as given, for conflict messages
}

// ParseGPU reads the value of --gpu: "" or "true" (the bare flag), "all",
// or a comma-separated list of GPU numbers. "false" means --nogpu.
func ParseGPU(value string) (Request, error) {
	r := Request{Mode: Require, gpuText: value}
	switch v := strings.TrimSpace(value); v {
	case "", "true":
		r.gpuText = ""
		return r, nil
	case "false":
		return Request{Mode: Never, cpuFlag: "--gpu=false"}, nil
	case "all":
		r.All = true
		return r, nil
	}
	seen := map[int]bool{}
	for _, f := range strings.Split(value, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return Request{}, fmt.Errorf("--gpu %q: want a GPU number, a list such as 0,2, or \"all\"", value)
		}
		if seen[n] {
			return Request{}, fmt.Errorf("--gpu %q: GPU %d is listed twice", value, n)
		}
		seen[n] = true
		r.Ordinals = append(r.Ordinals, n)
	}
	return r, nil
}

// CPUOnly reports whether --nogpu, --cpu-only or --gpu=false was given.
func (r Request) CPUOnly() bool { return r.Mode == Never || r.cpuFlag != "" }

// flagText renders the request as the user would have typed it.
func (r Request) flagText() string {
	if r.gpuText == "" {
		return "--gpu"
	}
	return "--gpu " + r.gpuText
}

// gpuFlag is --gpu: a boolean flag (so it may stand alone) that also takes
// a value with "=".
type gpuFlag struct{ r *Request }

func (g gpuFlag) IsBoolFlag() bool { return true }
func (g gpuFlag) String() string {
	if g.r == nil || g.r.Mode != Require {
		return ""
	}
	return g.r.gpuText
}
func (g gpuFlag) Set(s string) error {
	parsed, err := ParseGPU(s)
	if err != nil {
		return err
	}
	cpu := g.r.cpuFlag
	*g.r = parsed
	if parsed.Mode == Require && cpu != "" {
		g.r.cpuFlag = cpu // keep it, to report the contradiction
	}
	return nil
}

// cpuFlag is --nogpu or --cpu-only.
type cpuFlag struct {
	r    *Request
	name string
}

func (c cpuFlag) IsBoolFlag() bool { return true }
func (c cpuFlag) String() string   { return "" }
func (c cpuFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("--%s takes no value", c.name)
	}
	if on {
		c.r.cpuFlag = "--" + c.name
	} else {
		c.r.cpuFlag = ""
	}
	return nil
}

// AddFlags registers --gpu, --nogpu and --cpu-only on fs.
func (r *Request) AddFlags(fs *flag.FlagSet) {
	fs.Var(gpuFlag{r}, "gpu", "use GPUs: alone the first usable one (required), or N, a list 0,2, or all; default: a GPU when one is usable")
	fs.Var(cpuFlag{r, "nogpu"}, "nogpu", "never use a GPU")
	fs.Var(cpuFlag{r, "cpu-only"}, "cpu-only", "never use a GPU (same as --nogpu)")
}

// NormalizeArgs joins "--gpu X" into "--gpu=X" when X is a GPU list or
// "all", because package flag lets a flag that may stand alone take a
// value only after "=". A positional argument that looks like a GPU
// number right after a bare --gpu is therefore read as one; "--gpu=N"
// is never ambiguous.
func NormalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--gpu" || a == "-gpu") && i+1 < len(args) && looksLikeGPUList(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func looksLikeGPUList(s string) bool {
	if s == "all" {
		return true
	}
	if s == "" {
		return false
	}
	for _, f := range strings.Split(s, ",") {
		if f == "" || strings.Trim(f, "0123456789") != "" {
			return false
		}
	}
	return true
}

// Needs is what a command's GPU kernels require of a device.
type Needs struct {
	MinMajor, MinMinor int    // lowest compute capability; 0 for any
	Why                string // what needs it, for messages, e.g. "DPX instructions"
}

func (n Needs) met(d *cuda.Device) bool {
	return d.Major > n.MinMajor || (d.Major == n.MinMajor && d.Minor >= n.MinMinor)
}

func (n Needs) explain(d *cuda.Device) string {
	s := fmt.Sprintf("%s is %s; hmmgo needs sm_%d%d or newer", describe(d), d.Arch(), n.MinMajor, n.MinMinor)
	if n.Why != "" {
		s += " for " + n.Why
	}
	return s
}

// Choice is the outcome: the devices to use (none: the CPU) and a line
// for stderr ("" for nothing to say).
type Choice struct {
	Devices []*cuda.Device
	Note    string
}

// Prober lists the usable devices (cuda.Devices in production).
type Prober func() ([]*cuda.Device, error)

// Resolve applies the policy to the devices probe reports. Only a
// contradiction or an impossible --gpu request is an error.
func (r Request) Resolve(probe Prober, need Needs) (Choice, error) {
	if err := r.Conflict(); err != nil {
		return Choice{}, err
	}
	if r.Mode == Never || r.cpuFlag != "" {
		return Choice{}, nil
	}
	devs, err := probe()
	if err != nil {
		if r.Mode == Require {
			return Choice{}, fmt.Errorf("%s: no usable GPU: %v", r.flagText(), err)
		}
		if errors.Is(err, cuda.ErrNoDriver) {
			return Choice{}, nil // a CPU-only machine: nothing worth saying
		}
		return Choice{Note: fmt.Sprintf("no usable GPU (%v); running on the CPU", err)}, nil
	}
	var chosen []*cuda.Device
	var skipped []string
	switch {
	case len(r.Ordinals) > 0:
		for _, n := range r.Ordinals {
			if n >= len(devs) {
				return Choice{}, fmt.Errorf("%s: there is no GPU %d; this machine has %d (%s)", r.flagText(), n, len(devs), ordinalRange(len(devs)))
			}
			if !need.met(devs[n]) {
				return Choice{}, fmt.Errorf("%s: %s", r.flagText(), need.explain(devs[n]))
			}
			chosen = append(chosen, devs[n])
		}
	default:
		for _, d := range devs {
			if !need.met(d) {
				skipped = append(skipped, need.explain(d))
				continue
			}
			chosen = append(chosen, d)
			if !r.All {
				break
			}
		}
		if len(chosen) == 0 {
			why := strings.Join(skipped, "; ")
			if r.Mode == Require {
				return Choice{}, fmt.Errorf("%s: no usable GPU: %s", r.flagText(), why)
			}
			return Choice{Note: fmt.Sprintf("no usable GPU (%s); running on the CPU", why)}, nil
		}
	}
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].Ordinal < chosen[j].Ordinal })
	note := "using " + describeAll(chosen)
	if r.Mode == Auto {
		note += "; --nogpu runs on the CPU"
	}
	if len(skipped) > 0 && r.All {
		note += " (skipped: " + strings.Join(skipped, "; ") + ")"
	}
	return Choice{Devices: chosen, Note: note}, nil
}

// Conflict returns the usage error of a self-contradicting request (--gpu
// with --nogpu), which Resolve and Select also return, so that a command
// that selects devices in the background can still reject the command
// line first.
func (r Request) Conflict() error {
	if r.Mode == Require && r.cpuFlag != "" {
		return &cli.UsageError{Msg: fmt.Sprintf("%s and %s contradict each other", r.flagText(), r.cpuFlag)}
	}
	return nil
}

// Usable is the production Prober: the driver's devices, provided NVRTC
// is there too, since every hmmgo kernel is compiled at run time.
func Usable() ([]*cuda.Device, error) {
	// NVRTC loads (about 8 ms) while the driver initialises (about 100 ms
	// on an H100 host): only the wait for the slower one remains.
	nv := make(chan error, 1)
	go func() { nv <- nvrtc.Load() }()
	ds, err := cuda.Devices()
	nverr := <-nv
	if err != nil {
		return nil, err
	}
	if err := nverr; err != nil {
		return nil, fmt.Errorf("%d GPU(s) present but kernels cannot be compiled: %w", len(ds), err)
	}
	return ds, nil
}

// Select resolves r against this machine's GPUs and prints the note as
// "hmmgo <cmd>: <note>" on stderr.
func Select(stderr io.Writer, cmd string, r Request, need Needs) ([]*cuda.Device, error) {
	c, err := r.Resolve(Usable, need)
	if err != nil {
		return nil, err
	}
	if c.Note != "" {
		fmt.Fprintf(stderr, "hmmgo %s: %s\n", cmd, c.Note)
	}
	return c.Devices, nil
}

func describe(d *cuda.Device) string {
	return fmt.Sprintf("GPU %d (%s, %s)", d.Ordinal, d.Name, d.Arch())
}

func describeAll(ds []*cuda.Device) string {
	if len(ds) == 1 {
		return describe(ds[0])
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%d (%s)", d.Ordinal, d.Name)
	}
	return "GPUs " + strings.Join(parts, ", ")
}

func ordinalRange(n int) string {
	if n == 1 {
		return "GPU 0"
	}
	return fmt.Sprintf("GPUs 0-%d", n-1)
}
