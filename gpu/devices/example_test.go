package devices_test

import (
	"flag"
	"fmt"

	"github.com/hmmgo/hmmgo/gpu/devices"
)

// A command registers the GPU flags, normalises its arguments, and after
// parsing asks Select which GPUs to use (none: run on the CPU).
func Example() {
	var gpu devices.Request
	fs := flag.NewFlagSet("hmmsearch", flag.ContinueOnError)
	gpu.AddFlags(fs)
	fs.Parse(devices.NormalizeArgs([]string{"--gpu", "0,2", "query.hmm", "db.fa"}))
	fmt.Println(gpu.Mode == devices.Require, gpu.Ordinals, fs.Args())
	// Then: devs, err := devices.Select(os.Stderr, "hmmsearch", gpu, devices.Needs{})
	// Output: true [0 2] [query.hmm db.fa]
}
