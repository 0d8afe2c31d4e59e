//go:build !unix

package seqio

import "time"

func cpuTime() time.Duration { return 0 }
