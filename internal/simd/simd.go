// Package simd says which vector instruction sets the filter and DP
// kernels may use on this machine, and lets a user or a test force a
// lower one: HMMGO_KERNEL=generic|sse|avx2|avx512 in the environment, or Force
// in tests. Every kernel gives the same results at every level; the
// levels differ only in speed.
package simd

import (
	"fmt"
	"os"
	"strings"
)

// Level is a kernel family, from the portable Go code up.
type Level int

const (
	Generic Level = iota // pure Go, any architecture
	SSE                  // 128-bit SSE2 (every amd64 CPU)
	AVX2                 // 256-bit AVX2
	AVX512               // 512-bit AVX-512 F, BW, VL and DQ
)

var names = [...]string{Generic: "generic", SSE: "sse", AVX2: "avx2", AVX512: "avx512"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(names) {
		return names[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Parse reads a level name as HMMGO_KERNEL spells it.
func Parse(s string) (Level, error) {
	for l, n := range names {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Level(l), nil
		}
	}
	return Generic, fmt.Errorf("unknown kernel %q (want generic, sse, avx2 or avx512)", s)
}

// Best is the highest level this machine supports.
var Best = detect()

// Intel reports an Intel CPU: some memory tactics pay off there and not
// on others (fwdback's streamed matrices).
var Intel = intel()

// Available lists the levels this machine can run, lowest first.
func Available() []Level {
	var ls []Level
	for l := Generic; l <= Best; l++ {
		ls = append(ls, l)
	}
	return ls
}

// EnvVar is the environment variable that caps the kernel level.
const EnvVar = "HMMGO_KERNEL"

// Selected is the level the kernels use: Best, or the level named by
// HMMGO_KERNEL when that is lower. A name this machine cannot run, or
// cannot parse, is reported once on stderr and Best is used instead.
var Selected = fromEnv()

func fromEnv() Level {
	v, ok := os.LookupEnv(EnvVar)
	if !ok || v == "" {
		return Best
	}
	l, err := Parse(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hmmgo: %s: %v; using %s\n", EnvVar, err, Best)
		return Best
	}
	if l > Best {
		fmt.Fprintf(os.Stderr, "hmmgo: %s=%s: this CPU cannot run it; using %s\n", EnvVar, v, Best)
		return Best
	}
	return l
}
