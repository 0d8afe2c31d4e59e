//go:build !linux

package fastaprint

import "os"

// fileIdentity: without a change time to rely on, nothing is cached here.
func fileIdentity(*os.File) (string, bool) { return "", false }
