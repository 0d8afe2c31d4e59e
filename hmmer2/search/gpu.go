package search

import (
	"fmt"
	"io"
	"strings"

	"github.com/hmmgo/hmmgo/gpu/cuda"
	"github.com/hmmgo/hmmgo/gpu/devices"
	"github.com/hmmgo/hmmgo/hmmer2/plan7"
	"github.com/hmmgo/hmmgo/hmmer2/viterbi"
	vitgpu "github.com/hmmgo/hmmgo/hmmer2/viterbi/gpu"
)

// NewGPUScorer makes the Viterbi back end on the GPUs --gpu selected.
var NewGPUScorer = func(devs []*cuda.Device, p *plan7.Profile) (viterbi.Scorer, error) {
	ctxs := make([]*cuda.Context, len(devs))
	for i, d := range devs {
		c, err := d.Context()
		if err != nil {
			return nil, err
		}
		ctxs[i] = c
	}
	return vitgpu.NewScorer(ctxs, p)
}

// gpuBatch is the default number of sequences per scoring chunk on a
// GPU: enough groups of threads to fill a large device.
const gpuBatch = 1 << 15

// extractGPUOptions takes hmmgo's --gpu [list], --nogpu and --cpu-only
// out of the options (before the first non-option), so that squid's
// abbreviation rules for hmm2search's own options stay as they are.
func extractGPUOptions(args []string) (devices.Request, []string, error) {
	var req devices.Request
	rest := make([]string, 0, len(args))
	set := func(r devices.Request, flag string) error {
		if req.Mode != devices.Auto && req.Mode != r.Mode {
			return usageErr("%s contradicts an earlier GPU option", flag)
		}
		req = r
		return nil
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-" || a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		switch name, val, hasVal := strings.Cut(a, "="); {
		case name == "--gpu":
			if !hasVal && i+1 < len(args) && len(devices.NormalizeArgs(args[i:i+2])) == 1 {
				val = args[i+1]
				i++
			}
			r, err := devices.ParseGPU(val)
			if err != nil {
				return req, nil, &usageError{err}
			}
			if err := set(r, "--gpu"); err != nil {
				return req, nil, err
			}
		case a == "--nogpu" || a == "--cpu-only":
			if err := set(devices.Request{Mode: devices.Never}, a); err != nil {
				return req, nil, err
			}
		default:
			rest = append(rest, a)
			// An option's separate value is not an option of ours.
			if spec := valueOption(a); spec && i+1 < len(args) {
				rest = append(rest, args[i+1])
				i++
			}
		}
	}
	return req, append(rest, args[i:]...), nil
}

// valueOption reports whether a takes its value from the next argument
// (an option of optTable that needs one and has none attached).
func valueOption(a string) bool {
	if strings.HasPrefix(a, "--") {
		if strings.Contains(a, "=") {
			return false
		}
		var match *optSpec
		for j := range optTable {
			if s := &optTable[j]; !s.single && strings.HasPrefix(s.name, a) {
				if match != nil && s.name != a {
					return false // ambiguous: the parser will say so
				}
				match = s
				if s.name == a {
					break
				}
			}
		}
		return match != nil && match.arg != 0
	}
	// Bundled single letters: the first that takes a value ends the word.
	for k := 1; k < len(a); k++ {
		for _, s := range optTable {
			if s.single && s.name[1] == a[k] {
				if s.arg != 0 {
					return k == len(a)-1
				}
			}
		}
	}
	return false
}

type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }

// newScorer picks the back end: the GPUs --gpu asks for (or, by default,
// the first usable one, announced on stderr), else the CPU lane kernel.
// --forward scores with the CPU's Forward and never needs a GPU.
func newScorer(stderr io.Writer, o *Options, p *plan7.Profile, workers int) (viterbi.Scorer, error) {
	if o.Forward {
		return NewScorer(p, workers)
	}
	devs, err := devices.Select(stderr, "hmm2search", o.GPU, devices.Needs{})
	if err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return NewScorer(p, workers)
	}
	if !o.batchSet {
		o.Batch = gpuBatch
	}
	sc, err := NewGPUScorer(devs, p)
	if err != nil {
		return nil, fmt.Errorf("GPU Viterbi: %w", err)
	}
	return sc, nil
}
