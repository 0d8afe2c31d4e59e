//go:build !linux

package core

import "time"

// threadCPUTime is not available here; callers fall back to wall time.
func threadCPUTime() time.Duration { return 0 }
