//go:build !linux

package vitfilter

import "time"

func threadCPU() time.Duration { return 0 }

func lockThread() func() { return func() {} }
