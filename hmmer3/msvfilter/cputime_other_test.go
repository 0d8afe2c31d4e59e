//go:build !linux

package msvfilter

import "time"

func threadCPU() time.Duration { return 0 }

func lockThread() func() { return func() {} }
